import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../lib/state/memory.ts';
import {
  getWatchEntry,
  isExpired,
  MAX_SEEN,
  purgeIfExpired,
  recordSeen,
  unwatch,
  WatchListError,
  watch,
  watchEntries,
  watchedPrimaryKeys,
} from '../../lib/state/watch-list.ts';

const DAY = 86_400_000;
const t0 = new Date('2026-11-20T10:00:00.000Z');
const later = (ms: number) => new Date(t0.getTime() + ms);

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('watch list', () => {
  it('adds keys once each, with the expiry and the source that asked', async () => {
    // Prepare
    const store = new MemoryStateStore();

    // Act
    await watch(store, ['04012345678901', 'key / with spaces', '04012345678901'], {
      ttlMs: 30 * DAY,
      source: 'publication:p1',
      now: t0,
    });

    // Assess
    expect((await collect(watchedPrimaryKeys(store))).sort()).toEqual([
      '04012345678901',
      'key / with spaces',
    ]);
    expect(await getWatchEntry(store, 'key / with spaces')).toEqual({
      primaryKey: 'key / with spaces',
      addedAt: t0.toISOString(),
      expiresAt: later(30 * DAY).toISOString(),
      sources: ['publication:p1'],
      seen: [],
    });
  });

  it('extends the expiry on a later addition but never shortens it, and keeps the seen reviews', async () => {
    // Prepare
    const store = new MemoryStateStore();
    await watch(store, ['k'], { ttlMs: 30 * DAY, source: 'publication:p1', now: t0 });
    await recordSeen(store, 'k', ['review-a']);

    // Act
    await watch(store, ['k'], { ttlMs: 1 * DAY, source: 'operator', now: later(DAY) });
    const short = await getWatchEntry(store, 'k');
    await watch(store, ['k'], { ttlMs: 60 * DAY, source: 'publication:p1', now: later(2 * DAY) });
    const long = await getWatchEntry(store, 'k');

    // Assess
    expect(short?.expiresAt).toBe(later(30 * DAY).toISOString());
    expect(long?.expiresAt).toBe(later(62 * DAY).toISOString());
    expect(long?.sources).toEqual(['operator', 'publication:p1']);
    expect(long?.seen).toEqual(['review-a']);
    expect(long?.addedAt).toBe(t0.toISOString());
  });

  it('records each fingerprint once, keeps the newest ones, and ignores keys no longer watched', async () => {
    // Prepare
    const store = new MemoryStateStore();
    await watch(store, ['k'], { ttlMs: DAY, source: 'operator', now: t0 });
    const many = Array.from({ length: MAX_SEEN + 5 }, (_, i) => `r${i}`);

    // Act
    await recordSeen(store, 'k', ['r0', 'r1']);
    await recordSeen(store, 'k', ['r1', 'r2']);
    const few = (await getWatchEntry(store, 'k'))?.seen;
    await recordSeen(store, 'k', many);
    await recordSeen(store, 'gone', ['r0']);

    // Assess
    expect(few).toEqual(['r0', 'r1', 'r2']);
    const seen = (await getWatchEntry(store, 'k'))?.seen ?? [];
    expect(seen).toHaveLength(MAX_SEEN);
    expect(seen.at(-1)).toBe(`r${MAX_SEEN + 4}`);
    expect(await getWatchEntry(store, 'gone')).toBeUndefined();
  });

  it('purges an expired key but not one refreshed in time', async () => {
    // Prepare
    const store = new MemoryStateStore();
    await watch(store, ['old', 'fresh'], { ttlMs: DAY, source: 'operator', now: t0 });
    await watch(store, ['fresh'], { ttlMs: 10 * DAY, source: 'operator', now: later(DAY / 2) });

    // Act
    const purgedOld = await purgeIfExpired(store, 'old', later(2 * DAY));
    const purgedFresh = await purgeIfExpired(store, 'fresh', later(2 * DAY));

    // Assess
    expect([purgedOld, purgedFresh]).toEqual([true, false]);
    expect((await collect(watchEntries(store))).map((entry) => entry.primaryKey)).toEqual(['fresh']);
  });

  it('does not purge a key that was refreshed between the read and the delete', async () => {
    // Prepare
    let store: MemoryStateStore;
    let raced = false;
    store = new MemoryStateStore({
      beforeOperation: async (operation) => {
        if (operation.kind === 'delete' && !raced) {
          raced = true;
          await watch(store, ['k'], { ttlMs: 10 * DAY, source: 'operator', now: later(2 * DAY) });
        }
      },
    });
    await watch(store, ['k'], { ttlMs: DAY, source: 'operator', now: t0 });

    // Act
    const purged = await purgeIfExpired(store, 'k', later(2 * DAY));

    // Assess
    expect(purged).toBe(false);
    const entry = await getWatchEntry(store, 'k');
    expect(entry && isExpired(entry, later(2 * DAY))).toBe(false);
  });

  it('removes a key on request and reports whether it was watched', async () => {
    // Prepare
    const store = new MemoryStateStore();
    await watch(store, ['k'], { ttlMs: DAY, source: 'operator', now: t0 });

    // Act
    const results = [await unwatch(store, 'k'), await unwatch(store, 'k')];

    // Assess
    expect(results).toEqual([true, false]);
  });

  it('lists very long keys, which are stored hashed, by their real value', async () => {
    // Prepare
    const store = new MemoryStateStore();
    const longKey = 'x'.repeat(500);

    // Act
    await watch(store, [longKey], { ttlMs: DAY, source: 'operator', now: t0 });

    // Assess
    expect(await collect(watchedPrimaryKeys(store))).toEqual([longKey]);
  });

  it('refuses empty keys and a non-positive ttl', async () => {
    const store = new MemoryStateStore();
    await expect(watch(store, [''], { ttlMs: DAY, source: 'operator' })).rejects.toBeInstanceOf(
      WatchListError,
    );
    await expect(watch(store, ['k'], { ttlMs: 0, source: 'operator' })).rejects.toThrow(
      /ttlMs must be positive/,
    );
  });
});
