/**
 * What the supplier-review poller knows about each watched key: the fingerprints of the reviews it
 * already emitted, the reviews failing on consecutive runs, and the watch entry it last read (its
 * ETag and expiry).
 *
 * Kept apart from the watch entries (packages/bridge/src/state/watch-list.ts), in shared shard documents, so that a poll
 * costs one read per shard instead of one per key: the listing of the watch list carries each entry's
 * ETag, and when it matches the ETag remembered here the entry has not changed (same expiry), so it
 * is not read. Only the poller writes these documents, once per shard per run and only when something
 * changed; publications and operators write the watch entries and never contend with it.
 *
 * Why the shard count grows (linear hashing): a write rewrites a whole shard, so with a fixed number
 * of shards each write, and the bytes a run writes, grow with the watch list (keys² ÷ 64 with 64
 * shards: 230 MiB a run at 100,000 keys). Here a shard holds about {@link SHARD_KEYS_TARGET} keys at
 * most on average: the layout document (`review-progress/layout.json`, {@link ProgressLayout}) lists
 * the levels used so far; at level `L` a key lives in shard `hash mod 2^L`, so shard `i` of level `L`
 * splits into shards `i`, `i + 2^L`, … of a higher level by the next bits of the same hash. The
 * scheduled run raises the level when the watch list outgrows it (never lowers it) and fans the keys
 * out in chunks aligned to the shards, so a chunk writes each shard it covers once. A run writes only
 * the shards of keys with news, each of bounded size: the bytes written grow with the keys that
 * changed, not with the watch list. Chosen over chunks that carry a whole fixed shard, which bound
 * the writes per shard but not a shard's size (1,560 keys, 230 KB, at 100,000 keys). Level 6 is the
 * 64-shard layout of before (`review-progress/<nn>.json`): a deployment that never grows keeps its
 * documents and its one read per shard.
 *
 * Carry-over: after a split, a key missing from its shard is looked up in the shard's ancestors (one
 * per earlier level, newest first) and written to its new shard with that shard's next write. Before
 * an ancestor's keys are trusted it is sealed (`supersededBy`, a conditional write): a run still on
 * an older level (chunks sent before the split) that writes a sealed shard finds the seal and writes
 * to the newer level instead, where the fingerprints are merged as for any two overlapping runs; one
 * that reads a sealed shard of its own level reads the layout again first. So no review is emitted
 * again across a split, the first one from the 64-shard layout included.
 *
 * Watch entries written before progress was kept apart carry `seen` and `failing` themselves; the first
 * poll of such a key reads its entry (its ETag is not remembered yet) and carries them over.
 */
import { StateConflictError, type StateStore, sha256Hex, watchKey } from '../../state/index.ts';
import { getWatchEntry, type ReviewFailure, type WatchEntry } from '../../state/watch-list.ts';
import { ProgressLayoutChangedError, ProgressLayoutError } from '../errors.ts';
import { PROGRESS_LAYOUT_KEY as LAYOUT_KEY, PROGRESS_BASE_LEVEL, reviewProgressKey } from '../keys.ts';

/** The level of the layout from before the shard count grew: 2^6 = 64 shards, `review-progress/<nn>.json`. */
export const BASE_LEVEL = PROGRESS_BASE_LEVEL;
/** Highest level (2^20 shards: about 130 million keys at the target). */
export const MAX_LEVEL = 20;
/**
 * Average keys per shard above which the layout grows: 5,000 watched keys (about 80 a shard) stay in
 * the 64 shards as before; a shard of at most about 128 keys is some 20 KB and mostly fits one chunk.
 */
export const SHARD_KEYS_TARGET = 128;
/** Review fingerprints kept per key; older ones fall off (a review that old is not listed again in practice). */
export const MAX_SEEN = 1000;
/** Failing reviews kept per key; beyond it the oldest are forgotten (and counted again from zero). */
export const MAX_FAILING = 100;

/** The poller's progress on one watched key. */
export interface KeyProgress {
  /** ETag of the watch entry when the poller last read it. */
  watchEtag: string;
  /** That entry's expiry (ISO). */
  expiresAt: string;
  /** Fingerprints of reviews already emitted, oldest first; at most {@link MAX_SEEN}. */
  seen: string[];
  /** Reviews that failed on the latest runs and were not emitted yet; absent when none. */
  failing?: ReviewFailure[];
  /**
   * When the PDS first answered 404 for the key's reviews (ISO), while it still does: the poller warns
   * once, when it sets this, not on every run of the watch period. Absent while the item exists.
   */
  missingSince?: string;
}

/** One progress document: the keys of one shard, by primary key. */
interface ProgressShard {
  version: 1;
  keys: Record<string, KeyProgress>;
  /** Sealed: the level whose shards hold these keys' progress from now on (see the module comment). */
  supersededBy?: number;
}

/** The levels used so far, ascending from {@link BASE_LEVEL}; the last is the current one. */
export interface ProgressLayout {
  levels: number[];
}

/** The level keys are polled and written at. */
export function currentLevel(layout: ProgressLayout): number {
  return layout.levels[layout.levels.length - 1] ?? BASE_LEVEL;
}

/** The levels before `level`, newest first: where a key missing at `level` may still be. */
function ancestorLevels(layout: ProgressLayout, level: number): number[] {
  return layout.levels.filter((used) => used < level).reverse();
}

/** The shard of a primary key at a level: the low `level` bits of its hash (level 6: as before). */
export function progressShardOf(primaryKey: string, level: number = BASE_LEVEL): number {
  return Number.parseInt(sha256Hex(primaryKey).slice(0, 8), 16) % 2 ** level;
}

/** The lowest level at which `watched` keys average at most {@link SHARD_KEYS_TARGET} per shard. */
export function levelFor(watched: number): number {
  let level = BASE_LEVEL;
  while (level < MAX_LEVEL && watched > SHARD_KEYS_TARGET * 2 ** level) level += 1;
  return level;
}

function checkedLayout(value: unknown): ProgressLayout {
  const levels = (value as { levels?: unknown } | null)?.levels;
  const valid =
    Array.isArray(levels) &&
    levels[0] === BASE_LEVEL &&
    levels.every(
      (level, index) =>
        Number.isInteger(level) && level <= MAX_LEVEL && (index === 0 || level > levels[index - 1]),
    );
  if (!valid)
    throw new ProgressLayoutError(`"levels" must ascend from ${BASE_LEVEL} to at most ${MAX_LEVEL}`);
  return { levels: [...levels] };
}

/** The layout as stored; the 64-shard one when none was written. */
export async function readLayout(store: StateStore): Promise<ProgressLayout> {
  const stored = await store.get<ProgressLayout>(LAYOUT_KEY);
  return stored ? checkedLayout(stored.value) : { levels: [BASE_LEVEL] };
}

/**
 * The layout for a watch list of `watched` keys: the stored one, raised (conditionally) to
 * {@link levelFor} when the watch list outgrew it. Never lowered: a smaller watch list just has
 * smaller shards.
 */
export async function growLayout(store: StateStore, watched: number): Promise<ProgressLayout> {
  const stored = await readLayout(store);
  const wanted = levelFor(watched);
  if (wanted <= currentLevel(stored)) return stored;
  const { value } = await store.mutate<ProgressLayout>(LAYOUT_KEY, (current) => {
    const layout = current ? checkedLayout(current) : { levels: [BASE_LEVEL] };
    return wanted > currentLevel(layout) ? { levels: [...layout.levels, wanted] } : undefined;
  });
  return value ? checkedLayout(value) : stored;
}

/** One shard as read: its keys' progress and the version read (none when never written). */
export interface ProgressShardRead {
  progress: Map<string, KeyProgress>;
  etag?: string;
  /** Set when the shard is sealed: its keys' progress lives at that level now. */
  supersededBy?: number;
}

function shardRead(
  stored: { value: ProgressShard; etag?: string | undefined } | undefined,
): ProgressShardRead {
  return {
    progress: new Map(Object.entries(stored?.value.keys ?? {})),
    ...(stored?.etag !== undefined ? { etag: stored.etag } : {}),
    ...(stored?.value.supersededBy !== undefined ? { supersededBy: stored.value.supersededBy } : {}),
  };
}

/** The progress of every key of one shard (empty when the shard was never written). */
export async function readProgressShard(
  store: StateStore,
  shard: number,
  level: number = BASE_LEVEL,
): Promise<ProgressShardRead> {
  return shardRead(await store.get<ProgressShard>(reviewProgressKey(shard, level)));
}

/** Seals a shard for `by` (creating it sealed when absent) and returns what it holds from then on. */
async function sealShard(
  store: StateStore,
  shard: number,
  level: number,
  by: number,
): Promise<ProgressShardRead> {
  const { value, etag } = await store.mutate<ProgressShard>(reviewProgressKey(shard, level), (current) =>
    current?.supersededBy !== undefined
      ? undefined
      : { version: 1, keys: current?.keys ?? {}, supersededBy: by },
  );
  return shardRead(value ? { value, etag } : undefined);
}

/** One shard of the current level as read for a poll, and its keys' progress found in older shards. */
export interface LoadedShard {
  read: ProgressShardRead;
  /** Progress of keys missing from the shard, found in an ancestor: to be written to the shard. */
  carried: Map<string, KeyProgress>;
}

/**
 * Reads one shard of the layout's current level and, for the given keys it lacks, their progress in
 * its ancestors, newest first, each read once. With `seal`, each ancestor is sealed as it is read, so
 * what it holds is final (a poll that writes the keys needs that; a report does not). Throws
 * {@link ProgressLayoutChangedError} when a shard was sealed by a level newer than the layout.
 */
export async function loadProgressShard(
  store: StateStore,
  layout: ProgressLayout,
  shard: number,
  primaryKeys: readonly string[],
  options: { seal: boolean },
): Promise<LoadedShard> {
  const level = currentLevel(layout);
  const read = await readProgressShard(store, shard, level);
  if (read.supersededBy !== undefined) throw new ProgressLayoutChangedError(level, read.supersededBy);
  const carried = new Map<string, KeyProgress>();
  let missing = primaryKeys.filter((primaryKey) => !read.progress.has(primaryKey));
  for (const ancestor of ancestorLevels(layout, level)) {
    if (missing.length === 0) break;
    const byShard = Map.groupBy(missing, (primaryKey) => progressShardOf(primaryKey, ancestor));
    const reads = await Promise.all(
      [...byShard.keys()].map(async (old) => {
        const found = options.seal
          ? await sealShard(store, old, ancestor, level)
          : await readProgressShard(store, old, ancestor);
        if (found.supersededBy !== undefined && found.supersededBy > level) {
          throw new ProgressLayoutChangedError(level, found.supersededBy);
        }
        return found;
      }),
    );
    for (const found of reads) {
      for (const primaryKey of missing) {
        const progress = found.progress.get(primaryKey);
        if (progress) carried.set(primaryKey, progress);
      }
    }
    missing = missing.filter((primaryKey) => !carried.has(primaryKey));
  }
  return { read, carried };
}

/** The progress of the given keys, read only (for reports and checks), reading each shard once. */
export async function readProgress(
  store: StateStore,
  primaryKeys: Iterable<string>,
): Promise<Map<string, KeyProgress>> {
  const layout = await readLayout(store);
  const level = currentLevel(layout);
  const byShard = Map.groupBy(new Set(primaryKeys), (primaryKey) => progressShardOf(primaryKey, level));
  const found = new Map<string, KeyProgress>();
  await Promise.all(
    [...byShard].map(async ([shard, keys]) => {
      const { read, carried } = await loadProgressShard(store, layout, shard, keys, { seal: false });
      for (const primaryKey of keys) {
        const progress = read.progress.get(primaryKey) ?? carried.get(primaryKey);
        if (progress) found.set(primaryKey, progress);
      }
    }),
  );
  return found;
}

/**
 * Writes one shard (of the layout's current level) with one conditional write: a key's new progress,
 * or `null` to forget the key. Given the shard as the caller read it, the write goes straight to that
 * version (no second read); when someone wrote the shard since, it is read again and the changes
 * merged in. When another writer recorded the same key meanwhile (overlapping runs), the fingerprints
 * both emitted are kept, so neither run's reviews are emitted again. A sealed shard takes no
 * progress: the changes go to the shards of the level that sealed it. A forgotten key is removed
 * from its older shards too, so that it is not carried over again when watched anew.
 */
export async function writeProgressShard(
  store: StateStore,
  layout: ProgressLayout,
  shard: number,
  changes: ReadonlyMap<string, KeyProgress | null>,
  read?: ProgressShardRead,
): Promise<void> {
  if (changes.size === 0) return;
  const level = currentLevel(layout);
  const key = reviewProgressKey(shard, level);
  const apply = (current: Iterable<[string, KeyProgress]>): ProgressShard => {
    const keys = Object.fromEntries(current);
    for (const [primaryKey, next] of changes) {
      if (next === null) {
        delete keys[primaryKey];
        continue;
      }
      const stored = keys[primaryKey];
      keys[primaryKey] = stored ? { ...next, seen: unionSeen(stored.seen, next.seen) } : next;
    }
    return { version: 1, keys };
  };
  let written = false;
  if (read && read.supersededBy === undefined) {
    try {
      if (read.etag === undefined) written = (await store.create(key, apply(read.progress))).created;
      else written = Boolean(await store.update(key, apply(read.progress), read.etag));
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error;
    }
  }
  let sealedBy: number | undefined;
  if (!written) {
    await store.mutate<ProgressShard>(key, (current) => {
      sealedBy = current?.supersededBy;
      return sealedBy === undefined ? apply(Object.entries(current?.keys ?? {})) : undefined;
    });
  }
  if (sealedBy !== undefined) await redirect(store, layout, sealedBy, changes);
  else await forgetInAncestors(store, layout, level, changes);
}

/** The changes meant for a sealed shard, written to the shards of the level that sealed it. */
async function redirect(
  store: StateStore,
  layout: ProgressLayout,
  sealedBy: number,
  changes: ReadonlyMap<string, KeyProgress | null>,
): Promise<void> {
  const newer = { levels: [...layout.levels.filter((level) => level < sealedBy), sealedBy] };
  const byShard = Map.groupBy(changes, ([primaryKey]) => progressShardOf(primaryKey, sealedBy));
  await Promise.all(
    [...byShard].map(([shard, entries]) => writeProgressShard(store, newer, shard, new Map(entries))),
  );
}

/** Removes forgotten keys from the older shards they may still be in (a read per shard, a write where found). */
async function forgetInAncestors(
  store: StateStore,
  layout: ProgressLayout,
  level: number,
  changes: ReadonlyMap<string, KeyProgress | null>,
): Promise<void> {
  const forgotten = [...changes].filter(([, next]) => next === null).map(([primaryKey]) => primaryKey);
  if (forgotten.length === 0) return;
  for (const ancestor of ancestorLevels(layout, level)) {
    const byShard = Map.groupBy(forgotten, (primaryKey) => progressShardOf(primaryKey, ancestor));
    await Promise.all(
      [...byShard].map(([old, keys]) =>
        store.mutate<ProgressShard>(reviewProgressKey(old, ancestor), (current) => {
          if (!current || !keys.some((primaryKey) => Object.hasOwn(current.keys, primaryKey)))
            return undefined;
          const left = Object.entries(current.keys).filter(([primaryKey]) => !keys.includes(primaryKey));
          return { ...current, keys: Object.fromEntries(left) };
        }),
      ),
    );
  }
}

/** Forgets a key's progress (the key left the watch list), at every level it may be recorded in. */
export async function forgetProgress(store: StateStore, primaryKey: string): Promise<void> {
  const layout = await readLayout(store);
  const shard = progressShardOf(primaryKey, currentLevel(layout));
  await writeProgressShard(store, layout, shard, new Map([[primaryKey, null]]));
}

function unionSeen(stored: readonly string[], next: readonly string[]): string[] {
  const ours = new Set(next);
  const theirs = stored.filter((fingerprint) => !ours.has(fingerprint));
  return theirs.length === 0 ? [...next] : [...theirs, ...next].slice(-MAX_SEEN);
}

/** What one run did with the new reviews of a key. */
export interface ReviewOutcome {
  /** Fingerprints whose events SQS accepted. */
  emitted: readonly string[];
  /** Reviews that failed in this run, with the reason. */
  failed: ReadonlyArray<{ fingerprint: string; reason: string }>;
  now: Date;
}

/**
 * The progress after one run: emitted fingerprints join `seen` and leave `failing`; each failed
 * review's count of consecutive failed runs goes up by one.
 *
 * @example
 * ```ts
 * nextProgress(progress, { emitted: ['9f…'], failed: [{ fingerprint: '3c…', reason: '503' }], now: new Date() });
 * ```
 */
export function nextProgress(current: KeyProgress, outcome: ReviewOutcome): KeyProgress {
  const now = outcome.now.toISOString();
  const emitted = new Set(outcome.emitted);
  const failing = new Map(
    (current.failing ?? [])
      .filter((failure) => !emitted.has(failure.fingerprint))
      .map((failure) => [failure.fingerprint, failure]),
  );
  for (const { fingerprint, reason } of outcome.failed) {
    const previous = failing.get(fingerprint);
    failing.delete(fingerprint); // re-inserted last: the newest failures are kept
    failing.set(fingerprint, {
      fingerprint,
      attempts: (previous?.attempts ?? 0) + 1,
      firstFailedAt: previous?.firstFailedAt ?? now,
      lastError: reason.slice(0, 300),
    });
  }
  const seen = new Set(current.seen);
  const fresh = outcome.emitted.filter((fingerprint) => !seen.has(fingerprint));
  const kept = [...failing.values()].slice(-MAX_FAILING);
  const { failing: _previous, ...rest } = current;
  return {
    ...rest,
    seen: [...current.seen, ...fresh].slice(-MAX_SEEN),
    ...(kept.length > 0 ? { failing: kept } : {}),
  };
}

/**
 * Removes a key from the watch list and forgets the poller's progress on it; true when it was watched.
 * Watched again later, the key starts afresh, as it would have when its entry held the progress.
 */
export async function unwatch(store: StateStore, primaryKey: string): Promise<boolean> {
  if (!(await getWatchEntry(store, primaryKey))) return false;
  await store.delete(watchKey(primaryKey));
  await forgetProgress(store, primaryKey);
  return true;
}

/**
 * How many reviews the poller has emitted for each entry's key, reading each progress shard once.
 *
 * @example
 * (await seenReviewCounts(store, [entry])).get(entry.primaryKey); // 3
 */
export async function seenReviewCounts(
  store: StateStore,
  entries: readonly WatchEntry[],
): Promise<Map<string, number>> {
  const progress = await readProgress(
    store,
    entries.map((entry) => entry.primaryKey),
  );
  return new Map(
    entries.map((entry) => [
      entry.primaryKey,
      progress.get(entry.primaryKey)?.seen.length ?? entry.seen?.length ?? 0,
    ]),
  );
}
