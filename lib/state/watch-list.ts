/**
 * The supplier-review watch list: the primary keys whose reviews the poller fetches.
 *
 * One state object per key (`watch/<primaryKey>.json`, see ./keys.ts). Keys are added by the
 * publish worker for every published item and by operators (API watch routes, `pds watch`); each
 * addition extends the entry's expiry, and expired entries are skipped and purged by the poller.
 * The entry also keeps the fingerprints of the reviews already emitted for the key, so one read
 * per key tells the poller what is new. Every change is a conditional read–modify–write
 * (`StateStore.mutate`), so publications, operators and pollers never overwrite each other.
 */
import { primaryKeyOfWatchKey, STATE_PREFIXES, watchKey } from './keys.ts';
import { StateConflictError, type StateStore } from './store.ts';

export interface WatchEntry {
  primaryKey: string;
  /** ISO time the key was first watched. */
  addedAt: string;
  /** ISO time after which the key is no longer polled. */
  expiresAt: string;
  /** Who asked, most recent last, e.g. `publication:<id>` or `operator`; at most {@link MAX_SOURCES}. */
  sources: string[];
  /** Fingerprints of reviews already emitted, oldest first; at most {@link MAX_SEEN}. */
  seen: string[];
  /**
   * Reviews that failed on the latest runs and were not emitted yet, with their count of consecutive
   * failed runs (the poller passes a review once it reaches `POLL_FAILURE_LIMIT`); absent when none.
   */
  failing?: ReviewFailure[];
}

/** A review of the key that failed on consecutive runs. */
export interface ReviewFailure {
  fingerprint: string;
  /** Consecutive runs that failed on it. */
  attempts: number;
  /** ISO time of the first of those failures. */
  firstFailedAt: string;
  /** Message of the latest failure, for operators reading the entry. */
  lastError: string;
}

/** Failing reviews kept per key; beyond it the oldest are forgotten (and counted again from zero). */
export const MAX_FAILING = 100;

/** Sources kept per entry: enough to tell why a key is watched without growing forever. */
export const MAX_SOURCES = 20;
/** Review fingerprints kept per key; older ones fall off (a review that old is not listed again in practice). */
export const MAX_SEEN = 1000;

export interface WatchOptions {
  /** How long from `now` the key stays watched; an existing later expiry is kept. */
  ttlMs: number;
  /** Why the key is watched, e.g. `publication:4f0c…` or `operator`. */
  source: string;
  now?: Date;
}

/** The primary key must be non-empty text; it becomes one state-key segment. */
export class WatchListError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WatchListError';
  }
}

function assertPrimaryKey(primaryKey: string): void {
  if (typeof primaryKey !== 'string' || primaryKey.length === 0) {
    throw new WatchListError('A watched primary key must be a non-empty string');
  }
}

/**
 * Adds (or refreshes) keys on the watch list and returns their entries.
 *
 * @example
 * ```ts
 * await watch(store, ['04012345678901'], { ttlMs: 30 * 86_400_000, source: 'operator' });
 * ```
 */
export async function watch(
  store: StateStore,
  primaryKeys: readonly string[],
  options: WatchOptions,
): Promise<WatchEntry[]> {
  if (!(options.ttlMs > 0)) throw new WatchListError(`ttlMs must be positive, got ${options.ttlMs}`);
  primaryKeys.forEach(assertPrimaryKey);
  const now = options.now ?? new Date();
  const expiresAt = new Date(now.getTime() + options.ttlMs).toISOString();
  const entries: WatchEntry[] = [];
  for (const primaryKey of new Set(primaryKeys)) {
    const result = await store.mutate<WatchEntry>(watchKey(primaryKey), (current) => {
      const live = current && !isExpired(current, now) ? current : undefined;
      return {
        primaryKey,
        addedAt: live?.addedAt ?? now.toISOString(),
        expiresAt: live && live.expiresAt > expiresAt ? live.expiresAt : expiresAt,
        sources: [
          ...(live?.sources ?? []).filter((source) => source !== options.source),
          options.source,
        ].slice(-MAX_SOURCES),
        seen: current?.seen ?? [],
        ...(current?.failing ? { failing: current.failing } : {}),
      };
    });
    entries.push(result.value as WatchEntry);
  }
  return entries;
}

/** Removes a key from the watch list; true when it was there. */
export async function unwatch(store: StateStore, primaryKey: string): Promise<boolean> {
  assertPrimaryKey(primaryKey);
  const key = watchKey(primaryKey);
  const existing = await store.get<WatchEntry>(key);
  if (!existing) return false;
  await store.delete(key);
  return true;
}

/** The entry of one key, or `undefined` when it is not watched. */
export async function getWatchEntry(store: StateStore, primaryKey: string): Promise<WatchEntry | undefined> {
  assertPrimaryKey(primaryKey);
  return (await store.get<WatchEntry>(watchKey(primaryKey)))?.value;
}

/** True when the entry's expiry has passed at `now`. */
export function isExpired(entry: WatchEntry, now: Date = new Date()): boolean {
  return entry.expiresAt <= now.toISOString();
}

/**
 * Every watched primary key, in state-key order, without reading the entries: cheap enough for a
 * scheduled run to split thousands of keys into chunks. Hashed (very long) keys are read to learn the key.
 */
export async function* watchedPrimaryKeys(store: StateStore): AsyncGenerator<string> {
  for await (const stateKey of store.list(STATE_PREFIXES.watch)) {
    const primaryKey = primaryKeyOfWatchKey(stateKey);
    if (primaryKey !== undefined) {
      yield primaryKey;
      continue;
    }
    const entry = await store.get<WatchEntry>(stateKey);
    if (entry) yield entry.value.primaryKey;
  }
}

/** Options of {@link watchEntries}. */
export interface WatchEntriesOptions {
  /** Start after this key's entry (in state-key order), for paging; the key need not be watched any more. */
  afterPrimaryKey?: string;
}

/** Every entry, expired ones included (callers decide: the API shows them, the poller purges them). */
export async function* watchEntries(
  store: StateStore,
  options: WatchEntriesOptions = {},
): AsyncGenerator<WatchEntry> {
  // State keys are ASCII (encodeKeySegment escapes everything else), so string order is the list order.
  const after = options.afterPrimaryKey === undefined ? undefined : watchKey(options.afterPrimaryKey);
  for await (const stateKey of store.list(STATE_PREFIXES.watch)) {
    if (after !== undefined && stateKey <= after) continue;
    const entry = await store.get<WatchEntry>(stateKey);
    if (entry) yield entry.value;
  }
}

/**
 * Records review fingerprints as emitted for a key. Call only after the events were accepted. A key
 * removed meanwhile stays removed; the newest {@link MAX_SEEN} fingerprints are kept.
 */
export async function recordSeen(
  store: StateStore,
  primaryKey: string,
  fingerprints: readonly string[],
): Promise<void> {
  assertPrimaryKey(primaryKey);
  if (fingerprints.length === 0) return;
  await store.mutate<WatchEntry>(watchKey(primaryKey), (current) => {
    if (!current) return undefined;
    const fresh = fingerprints.filter((fingerprint) => !current.seen.includes(fingerprint));
    if (fresh.length === 0) return undefined;
    return { ...current, seen: [...current.seen, ...fresh].slice(-MAX_SEEN) };
  });
}

/** What one run did with the new reviews of a key. */
export interface ReviewOutcome {
  /** Fingerprints whose events SQS accepted. */
  emitted: readonly string[];
  /** Reviews that failed in this run, with the reason. */
  failed: ReadonlyArray<{ fingerprint: string; reason: string }>;
  now?: Date;
}

/**
 * Records one run's outcome on a key in one conditional write: emitted fingerprints join `seen` and
 * leave `failing`; each failed review's count of consecutive failed runs goes up by one. Call only
 * after the events were accepted. A key removed meanwhile stays removed.
 *
 * @example
 * ```ts
 * await recordReviewOutcome(store, '04012345678901', { emitted: ['9f…'], failed: [{ fingerprint: '3c…', reason: '503' }] });
 * ```
 */
export async function recordReviewOutcome(
  store: StateStore,
  primaryKey: string,
  outcome: ReviewOutcome,
): Promise<void> {
  assertPrimaryKey(primaryKey);
  if (outcome.emitted.length === 0 && outcome.failed.length === 0) return;
  const now = (outcome.now ?? new Date()).toISOString();
  await store.mutate<WatchEntry>(watchKey(primaryKey), (current) => {
    if (!current) return undefined;
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
    const fresh = outcome.emitted.filter((fingerprint) => !current.seen.includes(fingerprint));
    const { failing: _previous, ...rest } = current;
    const kept = [...failing.values()].slice(-MAX_FAILING);
    return {
      ...rest,
      seen: [...current.seen, ...fresh].slice(-MAX_SEEN),
      ...(kept.length > 0 ? { failing: kept } : {}),
    };
  });
}

/** Deletes the entry of a key if it is (still) expired at `now`; true when it was purged. */
export async function purgeIfExpired(
  store: StateStore,
  primaryKey: string,
  now: Date = new Date(),
): Promise<boolean> {
  const key = watchKey(primaryKey);
  const entry = await store.get<WatchEntry>(key);
  if (!entry || !isExpired(entry.value, now)) return false;
  try {
    // Conditional on the version read: a refresh that raced us keeps the key watched.
    await store.delete(key, entry.etag);
    return true;
  } catch (error) {
    if (error instanceof StateConflictError) return false;
    throw error;
  }
}
