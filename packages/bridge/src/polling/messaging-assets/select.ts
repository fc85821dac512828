/**
 * The select stage of the messaging-asset poller: what is new. Reads the listing (or its new part,
 * ../listing.ts) against the checkpoint and hands on the candidates of this run (new assets and those
 * waiting for a retry), the retry entries no longer listed, and what the read cost. Also the step
 * before it: the assets a dead run left in flight, counted as one failed run each.
 */
import type { Log } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import { advanceCheckpoint, isDone, type MessagingAssetCheckpoint, type RetryEntry } from '../checkpoint.ts';
import { IdCollector } from '../id-ranges.ts';
import { type ListingPagingMode, type ListingRead, readListing } from '../listing.ts';
import type { MessagingAssetPollDeps } from './types.ts';

/** What a read of the listing picked for this run. */
export interface ListingSelection {
  /** New assets and those waiting for a retry, ascending by id, each once. */
  candidates: MessagingAssetSummary[];
  /** New assets seen beyond `maxAssetsPerRun`: left for later runs (the listing position stays before them). */
  beyondLimit: number;
  /** `createdAt` of the oldest of those. */
  oldestBeyondLimit: number | undefined;
  /** Retry entries whose asset a whole read no longer found. */
  gone: RetryEntry[];
  /** Ids a first run `now` or a carried-over floor recorded as done without an event. */
  recordedAsDone: number;
  read: ListingRead;
}

/**
 * Streams the listing (or its new part, listing.ts) and keeps only what this run will work on: at
 * most `maxAssetsPerRun` new assets plus the retry list, never the listing itself. A first run `now`
 * and a carried-over version-1 floor record what they find as done here (see checkpoint.ts).
 */
export async function selectFromListing(
  pds: MessagingAssetPollDeps['pds'],
  checkpoint: MessagingAssetCheckpoint,
  options: { firstRunNow: boolean; paging: ListingPagingMode; limit: number; maxAssetsPerRun: number },
): Promise<ListingSelection> {
  const retryById = new Map(checkpoint.retry.map((entry) => [entry.id, entry]));
  const { legacyFloor } = checkpoint;
  const picked = new Map<number, MessagingAssetSummary>();
  const listedRetry = new Set<number>();
  let beyondLimit = 0;
  let oldestBeyondLimit: number | undefined;
  // Ids recorded as done without an event, merged in batches: the listing may come in any order.
  const done = new IdCollector(checkpoint.emitted);
  const visit = (asset: MessagingAssetSummary): void => {
    const { id } = asset;
    if (retryById.has(id)) {
      listedRetry.add(id);
      picked.set(id, asset);
    } else if (options.firstRunNow || (legacyFloor !== null && id <= legacyFloor)) {
      done.add(id);
    } else if (!checkpoint.emitted.has(id) && !picked.has(id)) {
      if (picked.size < options.maxAssetsPerRun + listedRetry.size) {
        picked.set(id, asset);
      } else {
        beyondLimit += 1;
        if (Number.isSafeInteger(asset.createdAt)) {
          oldestBeyondLimit = Math.min(oldestBeyondLimit ?? asset.createdAt, asset.createdAt);
        }
      }
    }
  };
  const read = await readListing(
    pds,
    checkpoint.listing,
    { paging: options.paging, limit: options.limit },
    visit,
    () => {
      // A paged read fell back to a whole one, which sees the same entries again.
      beyondLimit = 0;
      oldestBeyondLimit = undefined;
    },
  );
  done.flush();
  const recordedAsDone = done.added;
  const gone: RetryEntry[] = [];
  for (const entry of checkpoint.retry) {
    if (listedRetry.has(entry.id)) continue;
    if (read.whole) gone.push(entry);
    else picked.set(entry.id, summaryOfRetry(entry)); // behind the position: fetched by its id
  }
  const candidates = [...picked.values()].sort((a, b) => a.id - b.id);
  return { candidates, beyondLimit, oldestBeyondLimit, gone, recordedAsDone, read };
}

/** What the listing said about an asset waiting for a retry, as it was recorded. */
export function summaryOfRetry(entry: RetryEntry): MessagingAssetSummary {
  return {
    id: entry.id,
    createdAt: entry.createdAt ?? Number.NaN,
    contentType: 'application/xml',
    ...(entry.primaryKey === undefined ? {} : { primaryKey: entry.primaryKey }),
  };
}

/**
 * The checkpoint with each asset the last run left in flight counted as one failed run: that run
 * died while handling them.
 */
export function countInterrupted(
  checkpoint: MessagingAssetCheckpoint,
  now: Date,
  logger: Log,
): MessagingAssetCheckpoint {
  const interrupted = checkpoint.inFlight.filter((entry) => !isDone(checkpoint, entry.id));
  logger.error(
    'The last run stopped while handling messaging assets (out of memory, a timeout or a crash); each counts one failed run',
    { messagingAssetIds: interrupted.map((entry) => entry.id) },
  );
  const failed = interrupted.map((entry) => ({
    asset: summaryOfRetry({ ...entry, attempts: 0, firstFailedAt: '', lastError: '' }),
    reason:
      'POLL_INTERRUPTED: the run stopped (out of memory, a timeout or a crash) while handling this asset',
    interrupted: true,
  }));
  const advanced = advanceCheckpoint(checkpoint, { emitted: [], failed }, { now });
  return { ...advanced.checkpoint, inFlight: [] };
}

/** The listing's fallback to a whole read, and the retry entries it dropped, logged. */
export function logSelection(selection: ListingSelection, logger: Log): void {
  const { gone, read } = selection;
  if (read.fellBack) {
    logger.info('Paged read of the messaging-asset listing fell back to the whole listing', {
      reason: read.fellBack,
      paging: read.listing.paging,
    });
  }
  for (const entry of gone) {
    logger.info('Messaging asset waiting for a retry is no longer listed; dropped', {
      messagingAssetId: entry.id,
      attempts: entry.attempts,
    });
  }
}

/** `createdAt` of the oldest asset still to emit, listed this run or beyond its limit. */
export function oldestPending(
  selection: ListingSelection,
  checkpoint: MessagingAssetCheckpoint,
): number | undefined {
  const pendingCreatedAt = selection.candidates
    .filter((asset) => !checkpoint.emitted.has(asset.id) && Number.isSafeInteger(asset.createdAt))
    .map((asset) => asset.createdAt);
  const oldest = [...pendingCreatedAt, selection.oldestBeyondLimit ?? Number.POSITIVE_INFINITY].reduce(
    (min, at) => Math.min(min, at),
    Number.POSITIVE_INFINITY,
  );
  return Number.isFinite(oldest) ? oldest : undefined;
}
