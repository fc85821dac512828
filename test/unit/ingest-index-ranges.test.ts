/**
 * The imported set of a progress record: ranges that answer exactly like a set of indexes, whatever
 * order the imports finished in, and that refuse a stored value that is not ranges.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addIndexes,
  countIndexes,
  hasIndex,
  missingIndexes,
  normaliseRanges,
  rangesOfFlags,
} from '../../packages/bridge/src/ingest/index-ranges.ts';

describe('index ranges', () => {
  it('hold exactly the indexes added, in any order and in batches, as few disjoint ascending ranges', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.nat(300), { maxLength: 20 }), { maxLength: 30 }), (batches) => {
        let ranges = addIndexes([], []);
        const added = new Set<number>();
        for (const batch of batches) {
          ranges = addIndexes(ranges, batch);
          for (const index of batch) added.add(index);
        }
        for (let index = 0; index <= 301; index++) expect(hasIndex(ranges, index)).toBe(added.has(index));
        expect(countIndexes(ranges)).toBe(added.size);
        expect(missingIndexes(ranges, 302)).toEqual(
          Array.from({ length: 302 }, (_, i) => i).filter((i) => !added.has(i)),
        );
        // disjoint, ascending, never adjacent (adjacent ranges are joined)
        for (let i = 1; i < ranges.length; i++) {
          expect((ranges[i] as [number, number])[0]).toBeGreaterThan((ranges[i - 1] as [number, number])[1]);
        }
      }),
    );
  });

  it('read the flags of the earlier layout', () => {
    expect(rangesOfFlags([true, true, false, true, false, false, true])).toEqual([
      [0, 2],
      [3, 4],
      [6, 7],
    ]);
  });

  it('refuse a stored value that is not a list of [from, to) pairs, naming it', () => {
    expect(() => normaliseRanges({ from: 0 })).toThrow('not a list');
    expect(() => normaliseRanges([[3, 1]])).toThrow('[3,1]');
    expect(() => normaliseRanges([[0, 1.5]])).toThrow('not a [from, to) pair');
    expect(
      normaliseRanges([
        [5, 7],
        [0, 2],
        [1, 5],
      ]),
    ).toEqual([[0, 7]]);
  });
});
