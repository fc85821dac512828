/**
 * The record-progress stage of the supplier-review poller: the keys polled shard by shard
 * (review-progress.ts), each shard's progress read once before its keys and written once after them.
 */
import { createLimiter, type Limiter, type Settled } from '../../core/index.ts';
import { ProgressLayoutChangedError } from '../errors.ts';
import { pollKey } from './key.ts';
import {
  currentLevel,
  type KeyProgress,
  type LoadedShard,
  loadProgressShard,
  type ProgressLayout,
  progressShardOf,
  readLayout,
  writeProgressShard,
} from './review-progress.ts';
import type { KeyContext, KeyOutcome } from './types.ts';

type Key = { primaryKey: string; etag?: string | undefined };

/** Layouts changed since a run began: a level split again; attempts before the keys are failed. */
const LAYOUT_ATTEMPTS = 3;

/**
 * Polls the keys shard by shard (review-progress.ts): each shard's progress is read once before its
 * keys and written once after them, only after SQS accepted their events, together with the progress
 * carried over from older levels. A shard's keys start as soon as that shard is read, not after every
 * shard is: on a first poll the reads of the other shards overlap the keys' work. Keys of all shards
 * share one window of `width` keys in flight; a key not started by `deadline` is left out.
 *
 * When a newer run split the shards meanwhile (this run's chunk was sent before), a shard read says
 * so; the layout is read again (once per level) and that shard's keys are regrouped at the new level.
 * A shard of the old level read before the split is still written safely: a sealed shard redirects
 * its write to the level that sealed it (review-progress.ts).
 */
export async function pollByShard(
  keys: readonly Key[],
  context: KeyContext,
  options: { width: number; deadline: number | undefined; layout: ProgressLayout | undefined },
): Promise<Map<string, Settled<KeyOutcome>>> {
  const settled = new Map<string, Settled<KeyOutcome>>();
  const failAll = (failed: readonly Key[], error: unknown) => {
    for (const key of failed) settled.set(key.primaryKey, { ok: false, error });
  };
  const { store } = context.deps;
  const newerLayouts = new Map<number, Promise<ProgressLayout>>();
  const keySlot = createLimiter(options.width);

  const pollAtLevel = async (levelKeys: readonly Key[], layout: ProgressLayout, attempt: number) => {
    const level = currentLevel(layout);
    const grouped = Map.groupBy(levelKeys, (key) => progressShardOf(key.primaryKey, level));
    await Promise.all(
      [...grouped].map(async ([shard, shardKeys]) => {
        let loaded: LoadedShard;
        try {
          const primaryKeys = shardKeys.map((key) => key.primaryKey);
          loaded = await loadProgressShard(store, layout, shard, primaryKeys, { seal: true });
        } catch (error) {
          if (!(error instanceof ProgressLayoutChangedError) || attempt === LAYOUT_ATTEMPTS) {
            failAll(shardKeys, error);
            return;
          }
          // Every shard of this level that says so waits for the same read of the layout.
          const reread = newerLayouts.get(level) ?? readLayout(store);
          newerLayouts.set(level, reread);
          let newer: ProgressLayout;
          try {
            newer = await reread;
          } catch (readError) {
            failAll(shardKeys, readError);
            return;
          }
          await pollAtLevel(shardKeys, newer, attempt + 1);
          return;
        }
        await pollShard(
          { shard, keys: shardKeys, loaded, layout },
          keySlot,
          context,
          options.deadline,
          settled,
        );
      }),
    );
  };

  let layout: ProgressLayout;
  try {
    layout = options.layout ?? (await readLayout(store));
  } catch (error) {
    failAll(keys, error);
    return settled;
  }
  await pollAtLevel(keys, layout, 1);
  return settled;
}

/** The keys of one read shard polled, and the shard written once with their changes. */
async function pollShard(
  target: { shard: number; keys: readonly Key[]; loaded: LoadedShard; layout: ProgressLayout },
  keySlot: Limiter,
  context: KeyContext,
  deadline: number | undefined,
  settled: Map<string, Settled<KeyOutcome>>,
): Promise<void> {
  const { read, carried } = target.loaded;
  const changes = new Map<string, KeyProgress | null>();
  await Promise.all(
    target.keys.map((key) =>
      keySlot(async () => {
        if (deadline !== undefined && Date.now() >= deadline) return;
        const remembered = read.progress.get(key.primaryKey) ?? carried.get(key.primaryKey);
        try {
          const polled = await pollKey(key, remembered, context);
          settled.set(key.primaryKey, { ok: true, value: polled.outcome });
          const progress = polled.progress === undefined ? carried.get(key.primaryKey) : polled.progress;
          if (progress !== undefined) changes.set(key.primaryKey, progress);
        } catch (error) {
          settled.set(key.primaryKey, { ok: false, error });
        }
      }),
    ),
  );
  try {
    await writeProgressShard(context.deps.store, target.layout, target.shard, changes, read);
  } catch (error) {
    // Their events went out but are not recorded: the next run sends them again (same ids).
    for (const primaryKey of changes.keys()) settled.set(primaryKey, { ok: false, error });
  }
}
