import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleEvents, formatExample } from '../../lib/events/examples.ts';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES } from '../../lib/events/index.ts';

const docsPath = path.resolve(import.meta.dirname, '../../docs/events.md');

/** The fenced ```json blocks under each `### <type>` heading of docs/events.md, parsed. */
function documentedExamples(markdown: string): Map<string, unknown[]> {
  const sections = new Map<string, unknown[]>();
  for (const part of markdown.split(/^### /m).slice(1)) {
    const [heading = '', ...rest] = part.split('\n');
    const blocks = [...rest.join('\n').matchAll(/^```json\n([\s\S]*?)^```$/gm)].map((match) =>
      JSON.parse(match[1] ?? ''),
    );
    sections.set(heading.trim(), blocks);
  }
  return sections;
}

describe('docs/events.md', () => {
  const documented = documentedExamples(readFileSync(docsPath, 'utf8'));
  const produced = exampleEvents();

  it('has one section per event type and no other', () => {
    expect([...documented.keys()].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('shows exactly the examples the code produces for %s', (type) => {
    // prepare
    const expected = JSON.parse(JSON.stringify(produced[type]));

    // act
    const shown = documented.get(type);

    // assess
    expect(shown).toEqual(expected);
  });

  it.each(EVENT_TYPES)('shows examples of %s whose data pass the type schema', (type) => {
    for (const example of documented.get(type) ?? []) {
      const { data, type: shownType } = example as { data: unknown; type: string };
      expect(shownType).toBe(type);
      expect(EVENT_DATA_SCHEMAS[type].safeParse(data).success).toBe(true);
    }
  });
});

describe('formatExample', () => {
  it('writes JSON that parses back to the same value, indented to the given depth', () => {
    // prepare
    const value = { a: 1, b: { c: [1, { d: 'x' }], e: {} }, f: [] };

    // act
    const text = formatExample(value, 2);

    // assess
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toBe('{\n  "a": 1,\n  "b": {\n    "c": [1,{"d":"x"}],\n    "e": {}\n  },\n  "f": []\n}');
  });
});
