/**
 * docs/consumers.md and the Python example stay true to the kit, as events-docs.test.ts keeps
 * docs/events.md true to the catalogue.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSUMER_ERROR_CODES, EVENT_TYPES } from '../../packages/consumer/src/index.ts';

const root = path.resolve(import.meta.dirname, '../..');
const guide = readFileSync(path.join(root, 'docs', 'consumers.md'), 'utf8');
const pythonConsumer = readFileSync(path.join(root, 'examples', 'consumer-python', 'consumer.py'), 'utf8');

describe('docs/consumers.md', () => {
  it('lists every error code of the kit in its table, and no other', () => {
    // act
    const errors = guide.slice(guide.indexOf('### Errors'), guide.indexOf('### Deduplication'));
    const section = errors.slice(errors.indexOf('|---|'));
    const listed = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((match) => match[1]);

    // assess
    expect(listed).toEqual([...CONSUMER_ERROR_CODES]);
  });

  it('links examples that exist', () => {
    // act
    const links = [...guide.matchAll(/\]\(\.\.\/(examples\/[^)]+)\)/g)].map((match) => match[1] ?? '');

    // assess
    expect(links.length).toBeGreaterThanOrEqual(3);
    for (const link of links) expect(() => readFileSync(path.join(root, link))).not.toThrow();
  });
});

describe('examples/consumer-python/consumer.py', () => {
  it('knows every event type the bridge emits', () => {
    // act
    const block = /KNOWN_TYPES = \(([\s\S]*?)\)/.exec(pythonConsumer)?.[1] ?? '';
    const known = [...block.matchAll(/"([^"]+)"/g)].map((match) => match[1]);

    // assess
    expect(known).toEqual([...EVENT_TYPES]);
  });
});
