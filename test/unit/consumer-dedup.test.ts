import { describe, expect, it } from 'vitest';
import { Deduplicator, MemoryDedupStore } from '../../packages/consumer/src/index.ts';
import { describeDedupBehaviour } from '../helpers/dedup-suite.ts';

describeDedupBehaviour('Deduplicator on MemoryDedupStore', (clock) => new MemoryDedupStore({ now: clock }));

describe('MemoryDedupStore', () => {
  it('forgets the least recently written id first once it holds maxEntries', async () => {
    // prepare
    const store = new MemoryDedupStore({ maxEntries: 2 });
    const dedup = new Deduplicator({ store });
    for (const id of ['e-1', 'e-2', 'e-3']) await dedup.once({ id }, () => id);

    // act
    const forgotten = await dedup.once({ id: 'e-1' }, () => 'again');
    const remembered = await dedup.once({ id: 'e-3' }, () => 'again');

    // assess
    expect(forgotten).toEqual({ duplicate: false, value: 'again' });
    expect(remembered).toEqual({ duplicate: true });
    expect(store.size).toBe(2);
  });

  it('drops a record once its time has passed', async () => {
    // prepare
    let now = 1_000;
    const store = new MemoryDedupStore({ now: () => now });
    const dedup = new Deduplicator({ store, ttlMs: 100, now: () => now });
    await dedup.once({ id: 'e-1' }, () => 1);

    // act
    now += 101;
    const entry = await store.get(dedup.keyOf('e-1'));

    // assess
    expect(entry).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new MemoryDedupStore({ maxEntries: 0 })).toThrow(
      /maxEntries must be a positive integer, got 0/,
    );
  });
});

describe('Deduplicator options', () => {
  it.each([
    [{ ttlMs: -1 }, /ttlMs must be a non-negative number of milliseconds, got -1/],
    [{ inProgressMs: Number.NaN }, /inProgressMs must be a non-negative number of milliseconds/],
    [{ keyPrefix: 'no-slash' }, /keyPrefix must be empty or end with "\/"/],
  ])('refuses %o up front', (options, message) => {
    expect(() => new Deduplicator({ store: new MemoryDedupStore(), ...options })).toThrow(message);
  });

  it('says which store to pass when none is given', () => {
    expect(() => new Deduplicator({} as never)).toThrow(/new MemoryDedupStore\(\) or s3DedupStore/);
  });
});
