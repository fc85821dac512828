/**
 * The record-progress stage of the supplier-review poller: the keys polled shard by shard
 * (review-progress.ts), each shard's progress read once before its keys and written once after them.
 */
import { createLimiter, type Settled } from '../../core/index.ts';
import type { StateStore } from '../../state/index.ts';
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

/**
 * The shards of the layout's current level the keys fall in, each read once with its keys' progress
 * carried over from older levels; when a newer run split the shards meanwhile (this run's chunk was
 * sent before), the layout is read again and the keys regrouped at the new level.
 */
async function loadShards(
  keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }>,
  store: StateStore,
  given: ProgressLayout | undefined,
): Promise<{ layout: ProgressLayout; shards: Map<number, ShardToPoll> }> {
  let layout = given ?? (await readLayout(store));
  for (let attempt = 1; ; attempt++) {
    const level = currentLevel(layout);
    const grouped = Map.groupBy(keys, (key) => progressShardOf(key.primaryKey, level));
    const shards = new Map<number, ShardToPoll>();
    await Promise.all(
      [...grouped].map(async ([shard, shardKeys]) => {
        const primaryKeys = shardKeys.map((key) => key.primaryKey);
        try {
          shards.set(shard, {
            keys: shardKeys,
            ...(await loadProgressShard(store, layout, shard, primaryKeys, { seal: true })),
          });
        } catch (error) {
          shards.set(shard, { keys: shardKeys, error });
        }
      }),
    );
    const changed = [...shards.values()].some((shard) => shard.error instanceof ProgressLayoutChangedError);
    if (!changed || attempt === 3) return { layout, shards };
    layout = await readLayout(store);
  }
}

type ShardToPoll = { keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }> } & (
  | (LoadedShard & { error?: undefined })
  | { error: unknown; read?: undefined; carried?: undefined }
);

/**
 * Polls the keys shard by shard (review-progress.ts): each shard's progress is read once
 * before its keys and written once after them, only after SQS accepted their events, together with
 * the progress carried over from older levels. Keys of all shards share one window of `width` keys in
 * flight; a key not started by `deadline` is left out.
 */
export async function pollByShard(
  keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }>,
  context: KeyContext,
  options: { width: number; deadline: number | undefined; layout: ProgressLayout | undefined },
): Promise<Map<string, Settled<KeyOutcome>>> {
  const settled = new Map<string, Settled<KeyOutcome>>();
  const keySlot = createLimiter(options.width);
  const { store } = context.deps;
  let loaded: Awaited<ReturnType<typeof loadShards>>;
  try {
    loaded = await loadShards(keys, store, options.layout);
  } catch (error) {
    for (const key of keys) settled.set(key.primaryKey, { ok: false, error });
    return settled;
  }
  await Promise.all(
    [...loaded.shards].map(async ([shard, { keys: shardKeys, read, carried, error }]) => {
      if (read === undefined) {
        for (const key of shardKeys) settled.set(key.primaryKey, { ok: false, error });
        return;
      }
      const changes = new Map<string, KeyProgress | null>();
      await Promise.all(
        shardKeys.map((key) =>
          keySlot(async () => {
            if (options.deadline !== undefined && Date.now() >= options.deadline) return;
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
        await writeProgressShard(store, loaded.layout, shard, changes, read);
      } catch (error) {
        // Their events went out but are not recorded: the next run sends them again (same ids).
        for (const primaryKey of changes.keys()) settled.set(primaryKey, { ok: false, error });
      }
    }),
  );
  return settled;
}
