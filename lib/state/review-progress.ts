/**
 * What the supplier-review poller knows about each watched key: the fingerprints of the reviews it
 * already emitted, the reviews failing on consecutive runs, and the watch entry it last read (its
 * ETag and expiry).
 *
 * Kept apart from the watch entries (./watch-list.ts), in {@link PROGRESS_SHARDS} shared documents
 * (`review-progress/<nn>.json`, a key's shard fixed by the hash of its primary key), so that a poll
 * costs one read per shard instead of one per key: the listing of the watch list carries each entry's
 * ETag, and when it matches the ETag remembered here the entry has not changed (same expiry), so it
 * is not read. Only the poller writes these documents, once per shard per run and only when something
 * changed; publications and operators write the watch entries and never contend with it.
 *
 * Watch entries written before this layout carry `seen` and `failing` themselves; the first poll of
 * such a key reads its entry (its ETag is not remembered yet) and carries them over.
 */
import { STATE_PREFIXES, sha256Hex } from './keys.ts';
import { StateConflictError, type StateStore } from './store.ts';

/**
 * Shards of the progress: about 80 keys each at 5,000 watched keys. Changing it moves keys to other
 * shards, where their progress is not found, so their reviews would be emitted again (same event ids).
 */
export const PROGRESS_SHARDS = 64;
/** Review fingerprints kept per key; older ones fall off (a review that old is not listed again in practice). */
export const MAX_SEEN = 1000;
/** Failing reviews kept per key; beyond it the oldest are forgotten (and counted again from zero). */
export const MAX_FAILING = 100;

/** A review of the key that failed on consecutive runs. */
export interface ReviewFailure {
  fingerprint: string;
  /** Consecutive runs that failed on it. */
  attempts: number;
  /** ISO time of the first of those failures. */
  firstFailedAt: string;
  /** Message of the latest failure, for operators reading the progress. */
  lastError: string;
}

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
}

/** One progress document: the keys of one shard, by primary key. */
interface ProgressShard {
  version: 1;
  keys: Record<string, KeyProgress>;
}

/** The shard a primary key's progress lives in. */
export function progressShardOf(primaryKey: string): number {
  return Number.parseInt(sha256Hex(primaryKey).slice(0, 8), 16) % PROGRESS_SHARDS;
}

/** `review-progress/<nn>.json`. */
export function reviewProgressKey(shard: number): string {
  return `${STATE_PREFIXES.reviewProgress}${String(shard).padStart(2, '0')}.json`;
}

/** One shard as read: its keys' progress and the version read (none when never written). */
export interface ProgressShardRead {
  progress: Map<string, KeyProgress>;
  etag?: string;
}

/** The progress of every key of one shard (empty when the shard was never written). */
export async function readProgressShard(store: StateStore, shard: number): Promise<ProgressShardRead> {
  const stored = await store.get<ProgressShard>(reviewProgressKey(shard));
  return {
    progress: new Map(Object.entries(stored?.value.keys ?? {})),
    ...(stored ? { etag: stored.etag } : {}),
  };
}

/** The progress of the given keys, reading each shard they fall in once. */
export async function readProgress(
  store: StateStore,
  primaryKeys: Iterable<string>,
): Promise<Map<string, KeyProgress>> {
  const shards = new Set([...primaryKeys].map(progressShardOf));
  const found = new Map<string, KeyProgress>();
  await Promise.all(
    [...shards].map(async (shard) => {
      for (const [primaryKey, progress] of (await readProgressShard(store, shard)).progress) {
        found.set(primaryKey, progress);
      }
    }),
  );
  return found;
}

/**
 * Writes one shard's changes with one conditional write: a key's new progress, or `null` to forget
 * the key. Given the shard as the caller read it, the write goes straight to that version (no second
 * read); when someone wrote the shard since, it is read again and the changes merged in. When another
 * writer recorded the same key meanwhile (overlapping runs), the fingerprints both emitted are kept,
 * so neither run's reviews are emitted again.
 */
export async function writeProgressShard(
  store: StateStore,
  shard: number,
  changes: ReadonlyMap<string, KeyProgress | null>,
  read?: ProgressShardRead,
): Promise<void> {
  if (changes.size === 0) return;
  const key = reviewProgressKey(shard);
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
  if (read) {
    const next = apply(read.progress);
    try {
      if (read.etag === undefined) {
        if ((await store.create(key, next)).created) return;
      } else {
        await store.update(key, next, read.etag);
        return;
      }
    } catch (error) {
      if (!(error instanceof StateConflictError)) throw error;
    }
  }
  await store.mutate<ProgressShard>(key, (current) => apply(Object.entries(current?.keys ?? {})));
}

/** Forgets a key's progress (the key left the watch list). */
export async function forgetProgress(store: StateStore, primaryKey: string): Promise<void> {
  await writeProgressShard(store, progressShardOf(primaryKey), new Map([[primaryKey, null]]));
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
