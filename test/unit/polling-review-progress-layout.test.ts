/**
 * The review progress's growing layout (packages/bridge/src/polling/supplier-reviews/review-progress.ts): shards split by the next bits
 * of the hash, progress of the 64-shard layout carried over, overlapping runs of an older level.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProgressLayoutError } from '../../packages/bridge/src/polling/errors.ts';
import { reviewProgressKey } from '../../packages/bridge/src/polling/keys.ts';
import { reviewFingerprint } from '../../packages/bridge/src/polling/supplier-reviews/fingerprint.ts';
import {
  pollReviewKeys,
  pollSupplierReviews,
} from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import {
  BASE_LEVEL,
  forgetProgress,
  growLayout,
  type KeyProgress,
  levelFor,
  loadProgressShard,
  progressShardOf,
  readLayout,
  readProgress,
  readProgressShard,
  SHARD_KEYS_TARGET,
  writeProgressShard,
} from '../../packages/bridge/src/polling/supplier-reviews/review-progress.ts';
import { chunkKeys } from '../../packages/bridge/src/polling/supplier-reviews/review-queue.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { type WatchedKey, watch, watchedKeys } from '../../packages/bridge/src/state/watch-list.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

const DAY = 86_400_000;
const BASE = { levels: [BASE_LEVEL] };
const keysNamed = (count: number) =>
  Array.from({ length: count }, (_, index) => `04${String(index).padStart(12, '0')}`);

/** The shard document name of the 64-shard layout, as the bridge wrote it before the layout grew. */
function legacyShardKey(primaryKey: string): string {
  const shard = Number.parseInt(createHash('sha256').update(primaryKey).digest('hex').slice(0, 8), 16) % 64;
  return `review-progress/${String(shard).padStart(2, '0')}.json`;
}

async function listed(store: MemoryStateStore): Promise<WatchedKey[]> {
  const keys: WatchedKey[] = [];
  for await (const key of watchedKeys(store)) keys.push(key);
  return keys;
}

describe('progress layout', () => {
  it('keeps the 64-shard layout for small watch lists and splits a shard into the shards of the next bits', () => {
    expect(levelFor(0)).toBe(BASE_LEVEL);
    expect(levelFor(5000)).toBe(BASE_LEVEL);
    expect(levelFor(SHARD_KEYS_TARGET * 64 + 1)).toBe(BASE_LEVEL + 1);
    expect(levelFor(100_000)).toBe(10);
    for (const key of keysNamed(500)) {
      expect(reviewProgressKey(progressShardOf(key))).toBe(legacyShardKey(key));
      expect(progressShardOf(key, 9) % 2 ** 7).toBe(progressShardOf(key, 7));
    }
    expect(reviewProgressKey(3, 9)).toBe('review-progress/L9/3.json');
  });

  it('grows the stored layout once, never lowers it, and refuses a layout it did not write', async () => {
    const store = new MemoryStateStore();
    expect(await readLayout(store)).toEqual(BASE);

    const grown = await Promise.all([growLayout(store, 20_000), growLayout(store, 20_000)]);
    const after = await growLayout(store, 10);

    expect(grown).toEqual([{ levels: [6, 8] }, { levels: [6, 8] }]);
    expect(after).toEqual({ levels: [6, 8] });
    await store.mutate('review-progress/layout.json', () => ({ levels: [7] }));
    await expect(readLayout(store)).rejects.toBeInstanceOf(ProgressLayoutError);
  });
});

describe('carry-over across a split', () => {
  it('emits no review again after the 64-shard layout of an earlier deployment grows', async () => {
    // prepare: 40 keys with one emitted review each, recorded as the 64-shard layout wrote them
    const store = new MemoryStateStore();
    const pds = new FakePds();
    const keys = keysNamed(40);
    await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
    const legacy = new Map<string, Record<string, KeyProgress>>();
    for (const { primaryKey, etag } of await listed(store)) {
      const review = pds.addReview(primaryKey, '<review/>');
      const expiresAt = new Date(Date.now() + 30 * DAY).toISOString();
      const shard = legacy.get(legacyShardKey(primaryKey)) ?? {};
      shard[primaryKey] = { watchEtag: etag, expiresAt, seen: [reviewFingerprint(review)] };
      legacy.set(legacyShardKey(primaryKey), shard);
    }
    for (const [key, shardKeys] of legacy) await store.create(key, { version: 1, keys: shardKeys });
    await growLayout(store, 40_000);
    const sink = new RecordingSink();

    // act
    const first = await pollReviewKeys({ pds, store, sink }, await listed(store));
    pds.addReview(keys[7] as string, '<review/>');
    const second = await pollReviewKeys({ pds, store, sink }, await listed(store));

    // assess: nothing emitted again; the progress now lives at level 9, the old shards sealed
    expect(first).toMatchObject({ keysPolled: 40, reviewsEmitted: 0, keysFailed: 0 });
    expect(second).toMatchObject({ keysPolled: 40, reviewsEmitted: 1 });
    const moved = await readProgressShard(store, progressShardOf(keys[7] as string, 9), 9);
    expect(moved.progress.get(keys[7] as string)?.seen).toHaveLength(2);
    const old = await store.get<{ supersededBy?: number }>(legacyShardKey(keys[7] as string));
    expect(old?.value.supersededBy).toBe(9);
  });

  it('sends the progress of a run still on the older level to the newer shards, keeping both runs’ reviews', async () => {
    // prepare: an old run read the key's shard; then the layout grew and a new run carried it over
    const store = new MemoryStateStore();
    const start: KeyProgress = {
      watchEtag: 'e1',
      expiresAt: new Date(Date.now() + DAY).toISOString(),
      seen: ['r0'],
    };
    await writeProgressShard(store, BASE, progressShardOf('k'), new Map([['k', start]]));
    const readByOldRun = await readProgressShard(store, progressShardOf('k'));
    const layout = await growLayout(store, 20_000);
    const shard = progressShardOf('k', 8);
    const loaded = await loadProgressShard(store, layout, shard, ['k'], { seal: true });

    // act: both runs record what they emitted
    await writeProgressShard(
      store,
      BASE,
      progressShardOf('k'),
      new Map([['k', { ...start, seen: ['r0', 'r1'] }]]),
      readByOldRun,
    );
    await writeProgressShard(
      store,
      layout,
      shard,
      new Map([['k', { ...start, seen: ['r0', 'r2'] }]]),
      loaded.read,
    );

    // assess
    expect(loaded.carried.get('k')?.seen).toEqual(['r0']);
    expect((await readProgress(store, ['k'])).get('k')?.seen.toSorted()).toEqual(['r0', 'r1', 'r2']);
    expect((await readProgressShard(store, progressShardOf('k'))).progress.get('k')?.seen).toEqual(['r0']);
  });

  it('follows two splits: a run of the 64-shard level writes through level 8 to level 10', async () => {
    // prepare: the key carried from level 6 to 8, then from 8 to 10, while an old run still holds its read
    const store = new MemoryStateStore();
    const start: KeyProgress = {
      watchEtag: 'e1',
      expiresAt: new Date(Date.now() + DAY).toISOString(),
      seen: ['r0'],
    };
    await writeProgressShard(store, BASE, progressShardOf('k'), new Map([['k', start]]));
    const readByOldRun = await readProgressShard(store, progressShardOf('k'));
    for (const watched of [20_000, 100_000]) {
      const layout = await growLayout(store, watched);
      const shard = progressShardOf('k', layout.levels.at(-1));
      const loaded = await loadProgressShard(store, layout, shard, ['k'], { seal: true });
      await writeProgressShard(store, layout, shard, loaded.carried, loaded.read);
    }

    // act
    const seen = { ...start, seen: ['r0', 'r1'] };
    await writeProgressShard(store, BASE, progressShardOf('k'), new Map([['k', seen]]), readByOldRun);

    // assess
    expect(await readLayout(store)).toEqual({ levels: [6, 8, 10] });
    const atTen = await readProgressShard(store, progressShardOf('k', 10), 10);
    expect(atTen.progress.get('k')?.seen).toEqual(['r0', 'r1']);
    expect((await readProgressShard(store, progressShardOf('k', 8), 8)).supersededBy).toBe(10);
  });

  it('polls a chunk grouped by the older level after the split without emitting a review twice', async () => {
    // prepare
    const store = new MemoryStateStore();
    const pds = new FakePds();
    const keys = keysNamed(30);
    await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
    for (const key of keys) pds.addReview(key, '<review/>');
    const sink = new RecordingSink();
    await pollReviewKeys({ pds, store, sink }, await listed(store), { layout: BASE });
    const layout = await growLayout(store, 20_000);
    await pollReviewKeys({ pds, store, sink }, (await listed(store)).slice(0, 15), { layout });
    pds.addReview(keys[20] as string, '<review/>');

    // act: a chunk sent before the split, then a run on the new layout
    const late = await pollReviewKeys({ pds, store, sink }, await listed(store), { layout: BASE });
    const next = await pollReviewKeys({ pds, store, sink }, await listed(store), { layout });

    // assess
    expect(late).toMatchObject({ keysPolled: 30, reviewsEmitted: 1, keysFailed: 0 });
    expect(next).toMatchObject({ keysPolled: 30, reviewsEmitted: 0, keysFailed: 0 });
    expect(sink.events).toHaveLength(31);
    expect(new Set(sink.events.map((event) => event.id)).size).toBe(31);
  });

  it('forgets a key at every level, so it is not carried over again when watched anew', async () => {
    const store = new MemoryStateStore();
    const progress: KeyProgress = {
      watchEtag: 'e1',
      expiresAt: new Date(Date.now() + DAY).toISOString(),
      seen: ['r0'],
    };
    await writeProgressShard(store, BASE, progressShardOf('k'), new Map([['k', progress]]));
    const layout = await growLayout(store, 20_000);
    const loaded = await loadProgressShard(store, layout, progressShardOf('k', 8), ['k'], { seal: true });
    await writeProgressShard(store, layout, progressShardOf('k', 8), loaded.carried, loaded.read);

    await forgetProgress(store, 'k');

    expect((await readProgress(store, ['k'])).has('k')).toBe(false);
    expect((await readProgressShard(store, progressShardOf('k'))).progress.has('k')).toBe(false);
  });
});

describe('fan-out aligned to the shards', () => {
  it('sends each shard’s keys in one chunk, with the layout they were grouped by', async () => {
    const store = new MemoryStateStore();
    const keys = keysNamed(600);
    await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
    const sent: Array<{ keys: string[]; levels?: number[] }> = [];
    const queue = {
      send: async (chunks: ReadonlyArray<{ keys: string[]; levels?: number[] }>) => void sent.push(...chunks),
    };

    await pollSupplierReviews(
      { pds: new FakePds(), store, sink: new RecordingSink() },
      { runId: 'r', queue, chunkSize: 30, inlineMax: 10 },
    );

    const chunkOfShard = new Map<number, Set<number>>();
    sent.forEach((chunk, index) => {
      for (const key of chunk.keys) {
        const shard = progressShardOf(key);
        chunkOfShard.set(shard, (chunkOfShard.get(shard) ?? new Set()).add(index));
      }
    });
    expect([...chunkOfShard.values()].every((chunks) => chunks.size === 1)).toBe(true);
    expect(sent.every((chunk) => chunk.levels?.join() === '6')).toBe(true);
    expect(sent.flatMap((chunk) => chunk.keys).toSorted()).toEqual(keys);
  });

  it('splits a shard larger than twice the chunk size', () => {
    const chunks = chunkKeys(['a', 'b', 'c', 'd', 'e'], {
      chunkSize: 2,
      runId: 'r',
      now: new Date(),
      shards: { levels: [6], of: () => 1 },
    });
    expect(chunks.map((chunk) => chunk.keys)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });
});
