/**
 * The supplier-review watch list: the primary keys whose reviews the poller fetches.
 *
 * One state object per key (`watch/<primaryKey>.json`, built in ./keys.ts). Keys are added by the
 * publish worker for every published item and by operators (API watch routes, `pds watch`); each
 * addition extends the entry's expiry, and expired entries are skipped and purged by the poller.
 * What the poller already emitted per key is kept apart, in shards (packages/bridge/src/polling/supplier-reviews/review-progress.ts,
 * which also removes keys: `unwatch` forgets their progress), so a poll reads one document per shard
 * rather than one per key. Every change is a conditional
 * read–modify–write (`StateStore.mutate`), so publications and operators never overwrite each other.
 */
import { WatchListError } from './errors.ts';
import { primaryKeyOfWatchKey, WATCH_PREFIX, watchKey } from './keys.ts';
import { deleteIfUnchanged, type StateStore } from './store.ts';

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

export interface WatchEntry {
  primaryKey: string;
  /** ISO time the key was first watched. */
  addedAt: string;
  /** ISO time after which the key is no longer polled. */
  expiresAt: string;
  /** Who asked, most recent last, e.g. `publication:<id>` or `operator`; at most {@link MAX_SOURCES}. */
  sources: string[];
  /**
   * Fingerprints of reviews already emitted, as entries written before the poller kept its progress
   * apart (packages/bridge/src/polling/supplier-reviews/review-progress.ts); the poller carries them over once and they are not updated since.
   */
  seen?: string[];
  /** Failing reviews, as entries written before the progress was kept apart; see `seen`. */
  failing?: ReviewFailure[];
}

/** Sources kept per entry: enough to tell why a key is watched without growing forever. */
export const MAX_SOURCES = 20;

export interface WatchOptions {
  /** How long from `now` the key stays watched; an existing later expiry is kept. */
  ttlMs: number;
  /** Why the key is watched, e.g. `publication:4f0c…` or `operator`. */
  source: string;
  now?: Date;
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
        // Progress of entries written before it was kept apart, until the poller has carried it over.
        ...(current?.seen ? { seen: current.seen } : {}),
        ...(current?.failing ? { failing: current.failing } : {}),
      };
    });
    entries.push(result.value as WatchEntry);
  }
  return entries;
}

/** The entry of one key, or `undefined` when it is not watched. */
export async function getWatchEntry(store: StateStore, primaryKey: string): Promise<WatchEntry | undefined> {
  assertPrimaryKey(primaryKey);
  return (await store.get<WatchEntry>(watchKey(primaryKey)))?.value;
}

/** True when the entry's expiry has passed at `now`. */
export function isExpired(entry: Pick<WatchEntry, 'expiresAt'>, now: Date = new Date()): boolean {
  return entry.expiresAt <= now.toISOString();
}

/** A watched key as the listing shows it: the primary key and the ETag of its entry. */
export interface WatchedKey {
  primaryKey: string;
  /** Changes whenever the entry does (a refresh, a new expiry). */
  etag: string;
}

/**
 * Every watched key with its entry's ETag, in state-key order, without reading the entries: cheap
 * enough for a scheduled run to split thousands of keys into chunks. Hashed (very long) keys are read
 * to learn the key.
 */
export async function* watchedKeys(store: StateStore): AsyncGenerator<WatchedKey> {
  for await (const { key: stateKey, etag } of store.listEntries(WATCH_PREFIX)) {
    const primaryKey = primaryKeyOfWatchKey(stateKey);
    if (primaryKey !== undefined) {
      yield { primaryKey, etag };
      continue;
    }
    const entry = await store.get<WatchEntry>(stateKey);
    if (entry) yield { primaryKey: entry.value.primaryKey, etag: entry.etag };
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
  for await (const stateKey of store.list(WATCH_PREFIX)) {
    if (after !== undefined && stateKey <= after) continue;
    const entry = await store.get<WatchEntry>(stateKey);
    if (entry) yield entry.value;
  }
}

/** The entry of a key and its ETag, or `undefined` when it is not watched. */
export async function readWatchEntry(
  store: StateStore,
  primaryKey: string,
): Promise<{ entry: WatchEntry; etag: string } | undefined> {
  assertPrimaryKey(primaryKey);
  const stored = await store.get<WatchEntry>(watchKey(primaryKey));
  return stored && { entry: stored.value, etag: stored.etag };
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
  // Conditional on the version read: a refresh that raced us keeps the key watched.
  return deleteIfUnchanged(store, key, entry.etag);
}
