/**
 * The watch-list behaviour (packages/bridge/src/state/watch-list.ts) on any `StateStore`: call it from a test file with
 * a factory that returns an empty store.
 */
import { describe, expect, it } from 'vitest';
import {
  BASE_LEVEL,
  MAX_SEEN,
  nextProgress,
  progressShardOf,
  readProgress,
  readProgressShard,
  seenReviewCounts,
  unwatch,
  writeProgressShard,
} from '../../packages/bridge/src/polling/supplier-reviews/review-progress.ts';
import { watchKey } from '../../packages/bridge/src/state/keys.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import {
  getWatchEntry,
  isExpired,
  purgeIfExpired,
  watch,
  watchEntries,
  watchedKeys,
} from '../../packages/bridge/src/state/watch-list.ts';

/** The 64-shard layout, as before the shard count grew. */
const BASE = { levels: [BASE_LEVEL] };

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
      expect((await collect(watchedKeys(store))).map((key) => key.primaryKey).sort()).toEqual([
        '04012345678901',
        'key / with spaces',
      ]);
      expect(await getWatchEntry(store, 'key / with spaces')).toEqual({
        primaryKey: 'key / with spaces',
        addedAt: t0.toISOString(),
        expiresAt: later(30 * DAY).toISOString(),
        sources: ['publication:p1'],
      });
    });

    it('extends the expiry on a later addition but never shortens it, and keeps the progress of an older entry', async () => {
      // Prepare: an entry as written before the poller kept its progress apart
      const store = await makeStore();
      await store.create(watchKey('k'), {
        primaryKey: 'k',
        addedAt: t0.toISOString(),
        expiresAt: later(30 * DAY).toISOString(),
        sources: ['publication:p1'],
        seen: ['review-a'],
      });

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
      expect((await seenReviewCounts(store, long ? [long] : [])).get('k')).toBe(1);
    });

    it('lists each watched key with an ETag that changes when its entry does', async () => {
      // Prepare
      const store = await makeStore();
      await watch(store, ['a', 'b'], { ttlMs: DAY, source: 'operator', now: t0 });
      const before = new Map((await collect(watchedKeys(store))).map((key) => [key.primaryKey, key.etag]));

      // Act
      await watch(store, ['a'], { ttlMs: 5 * DAY, source: 'operator', now: t0 });
      const after = new Map((await collect(watchedKeys(store))).map((key) => [key.primaryKey, key.etag]));

      // Assess
      expect(after.get('a')).not.toBe(before.get('a'));
      expect(after.get('b')).toBe(before.get('b'));
    });

    it("keeps each key's emitted fingerprints once, the newest ones, in its progress shard", async () => {
      // Prepare
      const store = await makeStore();
      const [entry] = await watch(store, ['k'], { ttlMs: DAY, source: 'operator', now: t0 });
      const start = { watchEtag: 'e1', expiresAt: entry?.expiresAt ?? '', seen: [] };
      const many = Array.from({ length: MAX_SEEN + 5 }, (_, i) => `r${i}`);
      const record = async (emitted: string[]) => {
        const current = (await readProgress(store, ['k'])).get('k') ?? start;
        const next = nextProgress(current, { emitted, failed: [], now: t0 });
        await writeProgressShard(store, BASE, progressShardOf('k'), new Map([['k', next]]));
      };

      // Act
      await record(['r0', 'r1']);
      await record(['r1', 'r2']);
      const few = (await readProgress(store, ['k'])).get('k')?.seen;
      await record(many);

      // Assess
      expect(few).toEqual(['r0', 'r1', 'r2']);
      const seen = (await readProgress(store, ['k'])).get('k')?.seen ?? [];
      expect(seen).toHaveLength(MAX_SEEN);
      expect(seen.at(-1)).toBe(`r${MAX_SEEN + 4}`);
      expect((await seenReviewCounts(store, entry ? [entry] : [])).get('k')).toBe(MAX_SEEN);
    });

    it('keeps the fingerprints of both writers when two runs record one key from the same read', async () => {
      // Prepare: both runs read the shard, then each emitted a different review of the key
      const store = await makeStore();
      const shard = progressShardOf('k');
      const start = { watchEtag: 'e1', expiresAt: later(DAY).toISOString(), seen: ['r0'] };
      await writeProgressShard(store, BASE, shard, new Map([['k', start]]));
      const readByBoth = await readProgressShard(store, shard);

      // Act
      await writeProgressShard(
        store,
        BASE,
        shard,
        new Map([['k', { ...start, seen: ['r0', 'r1'] }]]),
        readByBoth,
      );
      await writeProgressShard(
        store,
        BASE,
        shard,
        new Map([['k', { ...start, seen: ['r0', 'r2'] }]]),
        readByBoth,
      );

      // Assess
      expect((await readProgress(store, ['k'])).get('k')?.seen.sort()).toEqual(['r0', 'r1', 'r2']);
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
        list: (prefix, options) => backing.list(prefix, options),
        listEntries: (prefix, options) => backing.listEntries(prefix, options),
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

    it('removes a key on request, with its progress, and reports whether it was watched', async () => {
      // Prepare
      const store = await makeStore();
      await watch(store, ['k', 'other'], { ttlMs: DAY, source: 'operator', now: t0 });
      const progress = { watchEtag: 'e1', expiresAt: later(DAY).toISOString(), seen: ['r0'] };
      for (const key of ['k', 'other']) {
        await writeProgressShard(store, BASE, progressShardOf(key), new Map([[key, progress]]));
      }

      // Act
      const results = [await unwatch(store, 'k'), await unwatch(store, 'k')];

      // Assess
      expect(results).toEqual([true, false]);
      const left = await readProgress(store, ['k', 'other']);
      expect(left.has('k')).toBe(false);
      expect(left.get('other')?.seen).toEqual(['r0']);
    });

    it('lists very long keys, which are stored hashed, by their real value', async () => {
      // Prepare
      const store = await makeStore();
      const longKey = 'x'.repeat(500);

      // Act
      await watch(store, [longKey], { ttlMs: DAY, source: 'operator', now: t0 });

      // Assess
      expect((await collect(watchedKeys(store))).map((key) => key.primaryKey)).toEqual([longKey]);
    });
  });
}
