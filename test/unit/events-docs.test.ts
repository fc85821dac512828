import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASYNCAPI_PATH } from '../../packages/bridge/src/events/contracts.ts';
import { dataSchemaPath, dataSchemaUri } from '../../packages/bridge/src/events/dataschema.ts';
import { exampleEvents, formatExample } from '../../packages/bridge/src/events/examples.ts';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';

const root = path.resolve(import.meta.dirname, '../..');
const docsPath = path.join(root, 'docs/events.md');

/** The targets of the relative links of a markdown file, resolved against its folder (anchors dropped). */
function relativeLinks(file: string): string[] {
  const markdown = readFileSync(file, 'utf8');
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => (match[1] ?? '').split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z]+:/.test(target))
    .map((target) => path.resolve(path.dirname(file), target));
}

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

describe('docs/events.md, Schemas and versions', () => {
  const markdown = readFileSync(docsPath, 'utf8');

  it('lists every type with the schema file and dataschema of its current version', () => {
    // act
    const rows = [...markdown.matchAll(/^\| \[`([^`]+)`\]\(\.\.\/([^)]+)\) \| `([^`]+)` \|$/gm)].map(
      ([, type, file, uri]) => ({ type, file, uri }),
    );

    // assess
    expect(rows).toEqual(
      EVENT_TYPES.map((type) => ({ type, file: dataSchemaPath(type), uri: dataSchemaUri(type) })),
    );
  });

  it('links only to files that exist, the schemas and the AsyncAPI document among them', () => {
    // act
    const links = relativeLinks(docsPath);

    // assess
    expect(links.filter((target) => !existsSync(target))).toEqual([]);
    expect(links).toContain(path.join(root, ASYNCAPI_PATH));
  });
});

describe('README.md', () => {
  it('links the event catalogue, its schemas and the AsyncAPI document, to files that exist', () => {
    // act
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const links = relativeLinks(path.join(root, 'README.md'));

    // assess
    expect(readme).toContain('](docs/events.md#schemas-and-versions)');
    expect(links).toContain(path.join(root, ASYNCAPI_PATH));
    expect(links.filter((target) => !existsSync(target))).toEqual([]);
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
