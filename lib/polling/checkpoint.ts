/**
 * The messaging-asset poller's checkpoint: which listed assets are new, and how the record moves
 * once a page of events was accepted. Pure functions over a JSON value; messaging-assets.ts stores it
 * under `checkpointKey('messaging-assets')` with conditional writes.
 *
 * What the record says:
 * - `floor`: every id at or below it is done (emitted, or given up on); `null` when nothing is.
 * - `seen`: ids above the floor whose event SQS accepted, ascending, at most `seenWindow` of them.
 *   Ids increase (docs/spec-gaps.md), but "new" means "not seen before", so an id that shows up late
 *   or out of order is still emitted as long as it lies above the floor. When `seen` outgrows its
 *   window the oldest ids fall off and the floor rises to the largest of them: an id that appears
 *   more than `seenWindow` ids late is taken for done.
 * - `retry`: ids whose fetch failed or whose event SQS refused as invalid; `attempts` counts the
 *   consecutive runs that failed (the poison rule passes an id at `POLL_FAILURE_LIMIT`, poison.ts).
 *   They are tried again on every run while the PDS still lists them (an id no longer listed is
 *   dropped as gone), so the floor may pass them safely. At most `maxRetry` entries; beyond that the
 *   oldest are abandoned (the caller logs and counts them).
 *
 * The floor never passes an id that is still pending in the running poll (later pages, or events SQS
 * did not accept), so a run that stops early loses nothing.
 */
import * as z from 'zod';
import { once } from '../lazy.ts';
import type { MessagingAssetSummary } from '../pds/index.ts';

/** One asset whose fetch failed (or whose event SQS refused as invalid), kept for the next runs. */
export interface RetryEntry {
  id: number;
  /** Consecutive failed runs so far. */
  attempts: number;
  /** ISO time of the first failure. */
  firstFailedAt: string;
  /** Message of the latest failure (for operators reading the checkpoint). */
  lastError: string;
}

/** The stored checkpoint (JSON). */
export interface MessagingAssetCheckpoint {
  version: 1;
  floor: number | null;
  /** Highest id whose event was accepted, for operators. */
  highestId: number | null;
  seen: number[];
  retry: RetryEntry[];
  /** ISO time of the last write. */
  updatedAt: string;
}

/** What to do when no checkpoint exists: `now` records the current listing as done, `backlog` emits it. */
export type FirstRun = 'now' | 'backlog';

/** Default size of the seen window (ids). */
export const DEFAULT_SEEN_WINDOW = 5000;
/** Default cap of the retry list. */
export const DEFAULT_MAX_RETRY = 1000;

/**
 * The checkpoint of a first run. `now` puts the floor at the highest listed id, so only later assets
 * are emitted; `backlog` starts with no floor, so everything listed is new.
 *
 * @example
 * initialCheckpoint([{ id: 7, createdAt: 0, contentType: 'application/xml' }], 'now', new Date()).floor; // 7
 */
export function initialCheckpoint(
  listing: readonly MessagingAssetSummary[],
  firstRun: FirstRun,
  now: Date,
): MessagingAssetCheckpoint {
  const highest = listing.reduce<number | null>(
    (max, asset) => (max === null || asset.id > max ? asset.id : max),
    null,
  );
  return {
    version: 1,
    floor: firstRun === 'now' ? highest : null,
    highestId: firstRun === 'now' ? highest : null,
    seen: [],
    retry: [],
    updatedAt: now.toISOString(),
  };
}

/** The listed assets to fetch now, and retry entries whose asset is no longer listed. */
export interface Selection {
  /** Ascending by id, each id once. */
  candidates: MessagingAssetSummary[];
  gone: RetryEntry[];
}

/**
 * Picks the assets not seen before (above the floor and not in `seen`) plus those waiting for a retry.
 *
 * @example
 * selectCandidates(listing, checkpoint).candidates.map((asset) => asset.id); // [101, 102, 105]
 */
export function selectCandidates(
  listing: readonly MessagingAssetSummary[],
  checkpoint: MessagingAssetCheckpoint,
): Selection {
  const seen = new Set(checkpoint.seen);
  const retry = new Set(checkpoint.retry.map((entry) => entry.id));
  const listed = new Set<number>();
  const candidates: MessagingAssetSummary[] = [];
  for (const asset of listing) {
    if (listed.has(asset.id)) continue;
    listed.add(asset.id);
    const fresh = (checkpoint.floor === null || asset.id > checkpoint.floor) && !seen.has(asset.id);
    if (fresh || retry.has(asset.id)) candidates.push(asset);
  }
  candidates.sort((a, b) => a.id - b.id);
  return { candidates, gone: checkpoint.retry.filter((entry) => !listed.has(entry.id)) };
}

/** The outcome of one page, as recorded. */
export interface PageOutcome {
  /** Ids whose event SQS accepted. */
  emitted: readonly number[];
  /** Ids whose fetch failed, with the reason. */
  failed: ReadonlyArray<{ id: number; reason: string }>;
  /** Retry entries to drop because their asset is no longer listed. */
  gone?: readonly number[];
  /**
   * The lowest id that must stay new after this write (not yet processed, or not accepted by SQS);
   * the floor stays below it.
   */
  lowestPending?: number | undefined;
}

export interface AdvanceOptions {
  seenWindow?: number;
  maxRetry?: number;
  now: Date;
}

/** The next checkpoint, and the retry entries abandoned because the retry list was full. */
export interface Advanced {
  checkpoint: MessagingAssetCheckpoint;
  abandoned: RetryEntry[];
}

/**
 * Records a page: accepted ids join `seen` and leave `retry`, failed ids join `retry`, the seen window
 * is trimmed and the floor raised (never to or past `lowestPending`).
 *
 * @example
 * advanceCheckpoint(checkpoint, { emitted: [101, 102], failed: [{ id: 103, reason: '503' }] }, { now: new Date() });
 */
export function advanceCheckpoint(
  checkpoint: MessagingAssetCheckpoint,
  outcome: PageOutcome,
  options: AdvanceOptions,
): Advanced {
  const seenWindow = options.seenWindow ?? DEFAULT_SEEN_WINDOW;
  const maxRetry = options.maxRetry ?? DEFAULT_MAX_RETRY;
  const now = options.now.toISOString();
  const emitted = new Set(outcome.emitted);
  const gone = new Set(outcome.gone ?? []);

  let seen = mergeAscending(checkpoint.seen, outcome.emitted);
  let floor = checkpoint.floor;
  if (seen.length > seenWindow) {
    let raised = seen[seen.length - seenWindow - 1] as number;
    if (outcome.lowestPending !== undefined) raised = Math.min(raised, outcome.lowestPending - 1);
    if (floor === null || raised > floor) floor = raised;
  }
  if (floor !== null) {
    const limit = floor;
    seen = seen.filter((id) => id > limit);
  }

  const retryById = new Map(
    checkpoint.retry
      .filter((entry) => !emitted.has(entry.id) && !gone.has(entry.id))
      .map((entry) => [entry.id, entry]),
  );
  for (const { id, reason } of outcome.failed) {
    const previous = retryById.get(id);
    retryById.set(id, {
      id,
      attempts: (previous?.attempts ?? 0) + 1,
      firstFailedAt: previous?.firstFailedAt ?? now,
      lastError: reason.slice(0, 300),
    });
  }
  let retry = [...retryById.values()].sort((a, b) => a.id - b.id);
  let abandoned: RetryEntry[] = [];
  if (retry.length > maxRetry) {
    // The lowest ids have waited longest: ids increase with time.
    abandoned = retry.slice(0, retry.length - maxRetry);
    retry = retry.slice(retry.length - maxRetry);
  }

  const highestEmitted = outcome.emitted.reduce<number | null>(
    (max, id) => (max === null || id > max ? id : max),
    checkpoint.highestId,
  );
  return {
    checkpoint: { version: 1, floor, highestId: highestEmitted, seen, retry, updatedAt: now },
    abandoned,
  };
}

/** True when every id is larger than the one before it. */
function strictlyAscending(ids: readonly number[]): boolean {
  for (let index = 1; index < ids.length; index++) {
    if ((ids[index] as number) <= (ids[index - 1] as number)) return false;
  }
  return true;
}

/**
 * The ids of both lists, ascending, each once. `seen` is kept ascending by every write, so a page
 * costs a merge with its own (sorted) ids rather than a sort of the whole window; a stored list
 * that is not ascending (edited by hand) is sorted as a whole.
 */
function mergeAscending(seen: readonly number[], emitted: readonly number[]): number[] {
  const added = [...new Set(emitted)].sort((a, b) => a - b);
  if (!strictlyAscending(seen)) return [...new Set([...seen, ...added])].sort((a, b) => a - b);
  const merged: number[] = [];
  let i = 0;
  let j = 0;
  while (i < seen.length || j < added.length) {
    const next =
      j >= added.length || (i < seen.length && (seen[i] as number) <= (added[j] as number))
        ? (seen[i++] as number)
        : (added[j++] as number);
    if (merged.length === 0 || next !== merged[merged.length - 1]) merged.push(next);
  }
  return merged;
}

/** Built on first use (lib/lazy.ts). */
const checkpointSchema = once(() =>
  z.object({
    version: z.literal(1),
    floor: z.number().int().nullable(),
    highestId: z.number().int().nullable(),
    seen: z.array(z.number().int()),
    retry: z.array(
      z.object({
        id: z.number().int(),
        attempts: z.number().int().nonnegative(),
        firstFailedAt: z.string(),
        lastError: z.string(),
      }),
    ),
    updatedAt: z.string(),
  }),
);

/** The stored checkpoint is not one this poller wrote. */
export class CheckpointFormatError extends Error {
  readonly key: string;

  constructor(key: string, issues: string) {
    super(
      `The checkpoint "${key}" in the state bucket is not a messaging-asset checkpoint (${issues}); fix it, or delete it to start again as POLL_FIRST_RUN says`,
    );
    this.name = 'CheckpointFormatError';
    this.key = key;
  }
}

/**
 * Checks a stored value and returns it as a checkpoint; throws {@link CheckpointFormatError} otherwise.
 *
 * @example
 * const checkpoint = parseCheckpoint((await store.get(key))?.value, key);
 */
export function parseCheckpoint(value: unknown, key: string): MessagingAssetCheckpoint {
  const parsed = checkpointSchema().safeParse(value);
  if (!parsed.success)
    throw new CheckpointFormatError(key, z.prettifyError(parsed.error).replace(/\n/g, ' '));
  return parsed.data;
}
