/**
 * The PDS client reads a JSON array answer (the messaging-asset listing) element by element: the
 * same elements as reading the whole text at once, in any cut into network chunks, and a refusal
 * for every text that is not one JSON array.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../packages/bridge/src/core/json.ts';
import { jsonArrayBatches, MAX_ELEMENT_BYTES } from '../../packages/bridge/src/pds/json-array.ts';
import { holds } from '../helpers/property.ts';

class ShapeError extends Error {}

/** The text cut at `cuts` (byte offsets), read through the reader: its elements, or its error. */
async function read(text: string | Buffer, cuts: number[] = []): Promise<unknown[] | ShapeError> {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks = [0, ...offsets, bytes.length]
    .slice(1)
    .map((end, index, ends) => bytes.subarray(index === 0 ? 0 : (ends[index - 1] as number), end))
    .filter((chunk) => chunk.length > 0);
  const elements: unknown[] = [];
  try {
    for await (const batch of jsonArrayBatches(Readable.from(chunks), (message) => new ShapeError(message))) {
      expect(batch.length).toBeGreaterThan(0);
      elements.push(...batch);
    }
    return elements;
  } catch (error) {
    if (error instanceof ShapeError) return error;
    throw error;
  }
}

/** What reading the whole text gives: its elements when it is one JSON array, else undefined. */
function whole(text: string): unknown[] | undefined {
  try {
    const value = parseJson(text);
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Listing-like entries with strings that hold the bytes the reader follows: quotes, commas, brackets. */
const tricky = fc.string({
  unit: fc.constantFrom('"', '\\', ',', '[', ']', '{', '}', 'a', ' ', 'é', '😀', '\n'),
  maxLength: 12,
});
const entry = fc.oneof(
  fc.record({ id: fc.nat(), createdAt: fc.nat(), contentType: tricky, primaryKey: tricky }),
  fc.jsonValue({ maxDepth: 3 }),
);
const spacing = fc.constantFrom('', ' ', '\n', '\r\n\t');

describe('jsonArrayBatches', () => {
  it('yields what reading the whole text yields, wherever the chunks are cut', async () => {
    await holds(
      fc.asyncProperty(
        fc.array(entry, { maxLength: 30 }),
        spacing,
        fc.array(fc.nat(), { maxLength: 6 }),
        async (entries, space, cuts) => {
          const text = `${space}[${space}${entries.map((e) => JSON.stringify(e)).join(`${space},${space}`)}${space}]${space}`;
          expect(await read(text, cuts)).toEqual(whole(text));
        },
      ),
      { runs: 300 },
    );
  });

  it('refuses every text that is not one JSON array, and takes every one that is, cut anywhere', async () => {
    // A valid array text with one byte changed, inserted or removed: either reading may refuse it.
    const bytes = fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', ':', '1', ' ', 'x');
    await holds(
      fc.asyncProperty(
        fc.array(entry, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        bytes,
        fc.constantFrom('replace', 'insert', 'remove'),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (entries, position, byte, change, cuts) => {
          const valid = JSON.stringify(entries);
          const at = position % valid.length;
          const text =
            change === 'remove'
              ? valid.slice(0, at) + valid.slice(at + 1)
              : valid.slice(0, at) + byte + valid.slice(change === 'replace' ? at + 1 : at);
          // As sent: a surrogate the change split in two is sent as U+FFFD, as any UTF-8 encoder does.
          const sent = Buffer.from(text).toString('utf8');
          const expected = whole(sent);
          const got = await read(sent, cuts);
          if (expected === undefined) expect(got).toBeInstanceOf(ShapeError);
          else expect(got).toEqual(expected);
        },
      ),
      { runs: 500 },
    );
  });

  it.each([
    ['[1,]', /not valid JSON/],
    ['[,1]', /not valid JSON: an empty element/],
    ['[}', /a \} closes the array/],
    ['[1] [2]', /something follows the array/],
    ['  ', /empty body/],
    ['{"id": 1}', /not a JSON array/],
    ['[{"id": 1}, {"id"', /ends before its JSON array does/],
  ])('refuses %j naming what is wrong', async (text, message) => {
    const error = await read(text, [1, 3]);

    expect(error).toBeInstanceOf(ShapeError);
    expect((error as ShapeError).message).toMatch(message);
  });

  it('reads an element whose key is written with an escape exactly (not as JSON.parse misreads it)', async () => {
    const text = '[{"e":0,"\\\\u":0,"f":0},{"e":0,"\\u00e9x":0,"f":0}]';

    expect(await read(text, [5])).toEqual([
      { e: 0, '\\u': 0, f: 0 },
      { e: 0, éx: 0, f: 0 },
    ]);
  });

  it('refuses an element larger than the limit instead of holding it', async () => {
    const huge = `["${'a'.repeat(MAX_ELEMENT_BYTES + 10)}"]`;
    const cuts = Array.from({ length: 16 }, (_, index) => (index + 1) * 65_536);

    const error = await read(huge, cuts);

    expect(error).toBeInstanceOf(ShapeError);
    expect((error as ShapeError).message).toContain('larger than');
  });
});
