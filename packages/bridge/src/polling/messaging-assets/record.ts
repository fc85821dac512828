/**
 * The record-progress stage of the messaging-asset poller: the checkpoint, written with conditional
 * writes (a crash between the publish and the write sends the same page again on the next run, with
 * identical event ids). Before a page is fetched its assets go to `inFlight`; after it is published,
 * the ledger learns of the accepted confirmations and the checkpoint records the page.
 */
import type { ConfirmationRecorder } from '../../confirmations/ports.ts';
import { errorSummary, type Log } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import { StateConflictError, type StateStore } from '../../state/index.ts';
import {
  advanceCheckpoint,
  type InFlightEntry,
  type MessagingAssetCheckpoint,
  type RetryEntry,
  storedCheckpoint,
} from '../checkpoint.ts';
import { applyIsolatingPoison } from '../poison.ts';
import type { PagePublished } from './publish.ts';
import type { Fetched } from './types.ts';

/** Writes the checkpoint with conditional writes on the ETag it last read or wrote. */
export class CheckpointWriter {
  readonly #store: StateStore;
  readonly #key: string;
  #etag: string | undefined;

  constructor(store: StateStore, key: string, etag: string | undefined) {
    this.#store = store;
    this.#key = key;
    this.#etag = etag;
  }

  async save(checkpoint: MessagingAssetCheckpoint): Promise<void> {
    const value = storedCheckpoint(checkpoint);
    if (this.#etag === undefined) {
      const created = await this.#store.create(this.#key, value);
      if (!created.created) throw new StateConflictError(this.#key, 'another run created it meanwhile');
      this.#etag = created.etag;
    } else {
      this.#etag = (await this.#store.update(this.#key, value, this.#etag)).etag;
    }
  }
}

/** The checkpoint with `assets` added to `inFlight`, saved when that changed it. */
export async function recordInFlight(
  writer: CheckpointWriter,
  checkpoint: MessagingAssetCheckpoint,
  assets: readonly MessagingAssetSummary[],
): Promise<MessagingAssetCheckpoint> {
  const known = new Set(checkpoint.inFlight.map((entry) => entry.id));
  const added = assets.filter((asset) => !known.has(asset.id)).map(inFlightEntryOf);
  if (added.length === 0) return checkpoint;
  const recorded = { ...checkpoint, inFlight: [...checkpoint.inFlight, ...added] };
  await writer.save(recorded);
  return recorded;
}

function inFlightEntryOf(asset: MessagingAssetSummary): InFlightEntry {
  return {
    id: asset.id,
    ...(Number.isSafeInteger(asset.createdAt) ? { createdAt: asset.createdAt } : {}),
    ...(typeof asset.primaryKey === 'string' ? { primaryKey: asset.primaryKey } : {}),
  };
}

/** When the checkpoint advances, and how many retry entries it keeps. */
export interface AdvanceOptions {
  now: Date;
  maxRetry?: number;
}

/**
 * Records one published page: the ledger learns of the accepted confirmations, then the checkpoint
 * moves past the page and is written. An asset the ledger cannot apply for a reason of its own
 * (../poison.ts, `isItemFault`) goes to the retry list like any poison asset, and is passed without
 * the ledger at the failure limit. Hands on the checkpoint, the retry entries dropped because the
 * list was full, and the assets the ledger failed on.
 */
export async function recordPage(
  sinks: { writer: CheckpointWriter; confirmations: ConfirmationRecorder | undefined; logger: Log },
  before: MessagingAssetCheckpoint,
  page: {
    published: PagePublished;
    successes: ReadonlyArray<Extract<Fetched, { ok: true }>>;
    gone: number[];
    /** Consecutive failed runs of an asset before this one. */
    failedRuns: (id: number) => number;
    failureLimit: number;
  },
  advance: () => AdvanceOptions,
): Promise<{ checkpoint: MessagingAssetCheckpoint; abandoned: RetryEntry[]; ledgerFailed: number }> {
  const { accepted, recorded } = page.published;
  // The ledger learns of the accepted confirmations before the checkpoint moves: when the store
  // fails, the run stops here and the next run sends these assets again (same ids; the ledger
  // applies a fact once).
  const ledger = await applyToLedger(sinks, page);
  const notApplied = new Set(ledger.map((item) => item.asset.id));
  const advanced = advanceCheckpoint(
    before,
    {
      emitted: [...accepted].filter((id) => !notApplied.has(id)),
      failed: [...recorded.map((item) => ({ asset: item.asset, reason: item.reason })), ...ledger],
      gone: page.gone,
    },
    advance(),
  );
  await sinks.writer.save(advanced.checkpoint);
  return { checkpoint: advanced.checkpoint, abandoned: advanced.abandoned, ledgerFailed: ledger.length };
}

/**
 * The accepted assets told to the ledger; hands on the assets it failed on for their own reason,
 * below the failure limit, for the retry list (those at the limit are logged and passed).
 */
async function applyToLedger(
  sinks: { confirmations: ConfirmationRecorder | undefined; logger: Log },
  page: {
    published: PagePublished;
    successes: ReadonlyArray<Extract<Fetched, { ok: true }>>;
    failedRuns: (id: number) => number;
    failureLimit: number;
  },
): Promise<Array<{ asset: MessagingAssetSummary; reason: string }>> {
  const { confirmations, logger } = sinks;
  if (confirmations === undefined) return [];
  const applied = await applyIsolatingPoison(
    page.successes.filter((item) => page.published.accepted.has(item.asset.id)),
    (items) => confirmations.recordMessagingAssets(items.map((item) => item.event)),
    (item) => page.failedRuns(item.asset.id) + 1,
    page.failureLimit,
  );
  for (const { item, error, failedRuns } of applied.passed) {
    logger.error(
      'The confirmation ledger could not apply a messaging asset on consecutive runs; passed without the ledger (its event was sent)',
      { messagingAssetId: item.asset.id, failedRuns, reason: errorSummary(error) },
    );
  }
  return applied.failed.map(({ item, error, failedRuns }) => {
    const reason = `the confirmation ledger could not apply it: ${errorSummary(error)}`;
    logger.warn(
      'The confirmation ledger could not apply a messaging asset; it is tried again on the next run',
      {
        messagingAssetId: item.asset.id,
        failedRuns,
        failureLimit: page.failureLimit,
        reason,
      },
    );
    return { asset: item.asset, reason };
  });
}

/** Retry entries dropped because the list was full, logged. */
export function logAbandoned(logger: Log, abandoned: readonly RetryEntry[]): void {
  for (const entry of abandoned) {
    logger.error(
      'Messaging asset left the retry list because it is full; a later whole read of the listing (or the audit) takes it as new again',
      { messagingAssetId: entry.id, attempts: entry.attempts, lastError: entry.lastError },
    );
  }
}

/**
 * What the run left unrecorded when it ends alive (a stop, SQS not accepting) stays new: the retry
 * entries no longer listed are dropped and `inFlight` is cleared.
 */
export async function closeRun(
  writer: CheckpointWriter,
  checkpoint: MessagingAssetCheckpoint,
  gone: number[],
  advance: () => AdvanceOptions,
): Promise<MessagingAssetCheckpoint> {
  if (gone.length === 0 && checkpoint.inFlight.length === 0) return checkpoint;
  const closed = advanceCheckpoint(
    { ...checkpoint, inFlight: [] },
    { emitted: [], failed: [], gone },
    advance(),
  ).checkpoint;
  await writer.save(closed);
  return closed;
}
