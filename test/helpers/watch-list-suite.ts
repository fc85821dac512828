/**
 * The watch-list behaviour (lib/state/watch-list.ts) on any `StateStore`: call it from a test file with
 * a factory that returns an empty store.
 */
import { describe, expect, it } from 'vitest';
import type { StateStore } from '../../lib/state/store.ts';
import {
  getWatchEntry,
  isExpired,
  MAX_SEEN,
  purgeIfExpired,
  recordSeen,
  unwatch,
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

/** Registers the watch-list tests under `describe(name)`. */
export function describeWatchListBehaviour(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
): void {
  describe(name, () => {
    it('adds keys once each, with the expiry and the source that asked', async () => {
      // Prepare
      const store = await makeStore();

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
      const store = await makeStore();
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
      const store = await makeStore();
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
      const store = await makeStore();
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
      // Prepare: a refresh lands after purgeIfExpired read the entry and before its delete
      const backing = await makeStore();
      let raced = false;
      const store: StateStore = {
        get: (key) => backing.get(key),
        create: (key, value) => backing.create(key, value),
        update: (key, value, etag) => backing.update(key, value, etag),
        delete: async (key, etag) => {
          if (!raced) {
            raced = true;
            await watch(backing, ['k'], { ttlMs: 10 * DAY, source: 'operator', now: later(2 * DAY) });
          }
          await backing.delete(key, etag);
        },
        list: (prefix) => backing.list(prefix),
        mutate: (key, fn, options) => backing.mutate(key, fn, options),
      };
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
      const store = await makeStore();
      await watch(store, ['k'], { ttlMs: DAY, source: 'operator', now: t0 });

      // Act
      const results = [await unwatch(store, 'k'), await unwatch(store, 'k')];

      // Assess
      expect(results).toEqual([true, false]);
    });

    it('lists very long keys, which are stored hashed, by their real value', async () => {
      // Prepare
      const store = await makeStore();
      const longKey = 'x'.repeat(500);

      // Act
      await watch(store, [longKey], { ttlMs: DAY, source: 'operator', now: t0 });

      // Assess
      expect(await collect(watchedPrimaryKeys(store))).toEqual([longKey]);
    });
  });
}
