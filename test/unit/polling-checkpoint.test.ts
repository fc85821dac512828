import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MessagingAssetSummary } from '../../packages/bridge/src/pds/types.ts';
import {
  advanceCheckpoint,
  initialCheckpoint,
  isDone,
  type MessagingAssetCheckpoint,
  parseCheckpoint,
  storedCheckpoint,
} from '../../packages/bridge/src/polling/checkpoint.ts';
import { CheckpointFormatError } from '../../packages/bridge/src/polling/errors.ts';
import { IdCollector, IdRanges } from '../../packages/bridge/src/polling/id-ranges.ts';

const NOW = new Date('2026-03-02T10:00:00Z');

function asset(id: number): MessagingAssetSummary {
  return { id, createdAt: 1_767_600_000_000 + id, contentType: 'application/xml', primaryKey: `k${id}` };
}

function checkpoint(partial: Partial<MessagingAssetCheckpoint> = {}): MessagingAssetCheckpoint {
  return { ...initialCheckpoint(NOW), ...partial };
}

function ranges(...ids: number[]): IdRanges {
  const set = new IdRanges();
  for (const id of ids) set.add(id);
  return set;
}

describe('IdRanges', () => {
  it('holds exactly the ids added and removed, in any order, as a Set would', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ remove: fc.boolean(), id: fc.integer({ min: 0, max: 60 }) }), {
          maxLength: 200,
        }),
        (operations) => {
          // prepare
          const set = new IdRanges();
          const reference = new Set<number>();

          // act
          for (const { remove, id } of operations) {
            if (remove) expect(set.delete(id)).toBe(reference.delete(id));
            else {
              expect(set.add(id)).toBe(!reference.has(id));
              reference.add(id);
            }
          }

          // assess
          for (let id = -1; id <= 61; id++) expect(set.has(id)).toBe(reference.has(id));
          expect(set.size).toBe(reference.size);
          const decoded = IdRanges.decode(JSON.parse(JSON.stringify(set.encode())));
          for (let id = 0; id <= 60; id++) expect(decoded.has(id)).toBe(reference.has(id));
          const pairs = [...set.ranges()];
          for (let index = 1; index < pairs.length; index++) {
            expect((pairs[index] as number[])[0]).toBeGreaterThan(
              ((pairs[index - 1] as number[])[1] as number) + 1,
            );
          }
        },
      ),
    );
  });

  it('merges many ids at once, in any order, to the same set as adding them one by one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 80 }), { maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 80 }), { maxLength: 200 }),
        (before, batch) => {
          // prepare
          const one = new IdRanges();
          const many = new IdRanges();
          for (const id of before) {
            one.add(id);
            many.add(id);
          }

          // act
          let addedOne = 0;
          for (const id of batch) if (one.add(id)) addedOne += 1;
          const collector = new IdCollector(many, 7);
          for (const id of batch) collector.add(id);
          collector.flush();

          // assess
          expect(many.encode()).toEqual(one.encode());
          expect(many.size).toBe(one.size);
          expect(collector.added).toBe(addedOne);
        },
      ),
    );
  });

  it('takes a million ids listed newest first as one range', () => {
    // prepare
    const record = new IdRanges();
    const collector = new IdCollector(record);

    // act
    for (let id = 1_000_000; id >= 1; id--) collector.add(id);
    collector.flush();

    // assess
    expect([...record.ranges()]).toEqual([[1, 1_000_000]]);
  });

  it('keeps consecutive ids as one range whatever order they arrive in', () => {
    // act
    const set = ranges(5, 3, 4, 1, 2, 10);

    // assess
    expect([...set.ranges()]).toEqual([
      [1, 5],
      [10, 10],
    ]);
    expect(set.encode()).toEqual([1, 5, 5, 1]);
  });

  it('lists the ids one set has and the other has not', () => {
    // prepare
    const record = ranges(1, 2, 3, 4, 5, 9, 10);
    const listed = ranges(2, 3, 5, 10, 11);

    // act / assess
    expect(record.difference(listed, 10)).toEqual({ count: 3, ids: [1, 4, 9] });
    expect(record.difference(listed, 2)).toEqual({ count: 3, ids: [1, 4] });
  });

  it('refuses a stored form that does not describe ascending disjoint ranges', () => {
    // act / assess
    expect(() => IdRanges.decode([1, 2, 1, 1])).toThrow(/number 2 must be an integer >= 2/);
    expect(() => IdRanges.decode([1, 0])).toThrow(/number 1/);
    expect(() => IdRanges.decode([1])).toThrow(/pairs/);
  });
});

describe('advanceCheckpoint', () => {
  it('records accepted ids as emitted and failed ids for a retry with their attempts and listing', () => {
    // prepare
    const current = checkpoint({ retry: [{ id: 3, attempts: 1, firstFailedAt: 'earlier', lastError: 'x' }] });

    // act
    const { checkpoint: next } = advanceCheckpoint(
      current,
      {
        emitted: [1, 2],
        failed: [
          { asset: asset(3), reason: 'PdsServerError: 503' },
          { asset: asset(4), reason: 'PdsServerError: 503' },
        ],
      },
      { now: NOW },
    );

    // assess
    expect([...next.emitted.ranges()]).toEqual([[1, 2]]);
    expect(next.highestId).toBe(2);
    expect(next.retry).toEqual([
      {
        id: 3,
        createdAt: asset(3).createdAt,
        primaryKey: 'k3',
        attempts: 2,
        firstFailedAt: 'earlier',
        lastError: 'PdsServerError: 503',
      },
      {
        id: 4,
        createdAt: asset(4).createdAt,
        primaryKey: 'k4',
        attempts: 1,
        firstFailedAt: NOW.toISOString(),
        lastError: 'PdsServerError: 503',
      },
    ]);
    expect(current.emitted.size).toBe(0); // the checkpoint it was given is left as it was
  });

  it('records an id far below the newest, or out of order, exactly like any other', () => {
    // prepare: 1..100 000 emitted, then 3 and 50 000 turn up (they had been missing)
    const emitted = new IdRanges();
    emitted.addRange(1, 100_000);
    emitted.delete(3);
    emitted.delete(50_000);
    const current = checkpoint({ emitted });

    // act
    expect(isDone(current, 3)).toBe(false);
    const { checkpoint: next } = advanceCheckpoint(
      current,
      { emitted: [50_000, 3], failed: [] },
      { now: NOW },
    );

    // assess
    expect(isDone(next, 3) && isDone(next, 50_000)).toBe(true);
    expect(next.emitted.rangeCount).toBe(1);
  });

  it('drops a retry entry once its asset was emitted or is gone', () => {
    // prepare
    const retry = [3, 4].map((id) => ({ id, attempts: 1, firstFailedAt: 'earlier', lastError: 'x' }));

    // act
    const { checkpoint: next } = advanceCheckpoint(
      checkpoint({ retry }),
      { emitted: [3], failed: [], gone: [4] },
      { now: NOW },
    );

    // assess
    expect(next.retry).toEqual([]);
  });

  it('lets the oldest failures leave a full retry list without recording them as emitted', () => {
    // act
    const { checkpoint: next, abandoned } = advanceCheckpoint(
      checkpoint(),
      { emitted: [], failed: [7, 8, 9].map((id) => ({ asset: asset(id), reason: 'x' })) },
      { now: NOW, maxRetry: 2 },
    );

    // assess
    expect(abandoned.map((entry) => entry.id)).toEqual([7]);
    expect(next.retry.map((entry) => entry.id)).toEqual([8, 9]);
    expect(isDone(next, 7)).toBe(false);
  });
});

describe('parseCheckpoint', () => {
  it('accepts what storedCheckpoint writes', () => {
    // prepare
    const written = advanceCheckpoint(
      checkpoint(),
      { emitted: [1, 2, 7], failed: [{ asset: asset(3), reason: 'x' }] },
      { now: NOW },
    ).checkpoint;

    // act
    const parsed = parseCheckpoint(JSON.parse(JSON.stringify(storedCheckpoint(written))), 'k');

    // assess
    expect(storedCheckpoint(parsed)).toEqual(storedCheckpoint(written));
    expect(storedCheckpoint(written).emittedCount).toBe(3);
  });

  it('carries a version-1 checkpoint over: seen ids emitted, retries kept, the floor held until a whole read', () => {
    // prepare: floor 100, 102 and 105 seen above it, 40 (below the floor) and 103 waiting for a retry
    const retry = [40, 103].map((id) => ({ id, attempts: 2, firstFailedAt: 'earlier', lastError: 'x' }));
    const old = { version: 1, floor: 100, highestId: 105, seen: [102, 105], retry, updatedAt: 'then' };

    // act
    const carried = parseCheckpoint(old, 'k');

    // assess
    expect(carried.version).toBe(2);
    expect([...carried.emitted.ranges()]).toEqual([
      [102, 102],
      [105, 105],
    ]);
    expect(carried.legacyFloor).toBe(100);
    expect(carried.retry).toEqual(retry);
    expect([1, 99, 100, 102, 105].every((id) => isDone(carried, id))).toBe(true);
    expect([40, 101, 103, 104, 106].some((id) => isDone(carried, id))).toBe(false);
  });

  it('refuses a foreign document with an error that says how to recover', () => {
    // act / assess
    expect(() => parseCheckpoint({ lastId: 5 }, 'checkpoints/messaging-assets.json')).toThrow(
      CheckpointFormatError,
    );
    expect(() => parseCheckpoint({ lastId: 5 }, 'checkpoints/messaging-assets.json')).toThrow(
      /delete it to start again/,
    );
    const broken = { ...storedCheckpoint(checkpoint()), emitted: [5, 0] };
    expect(() => parseCheckpoint(broken, 'k')).toThrow(/emitted: number 1/);
  });
});
