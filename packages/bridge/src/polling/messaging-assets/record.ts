/**
 * The record-progress stage of the messaging-asset poller: the checkpoint, written with conditional
 * writes (a crash between the publish and the write sends the same page again on the next run, with
 * identical event ids). Before a page is fetched its assets go to `inFlight`; after it is published,
 * the ledger learns of the accepted confirmations and the checkpoint records the page.
 */
import type { ConfirmationRecorder } from '../../confirmations/ports.ts';
import type { Log } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import { StateConflictError, type StateStore } from '../../state/index.ts';
import {
  advanceCheckpoint,
  type InFlightEntry,
  type MessagingAssetCheckpoint,
  type RetryEntry,
  storedCheckpoint,
} from '../checkpoint.ts';
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
 * moves past the page and is written. Hands on the checkpoint and the retry entries dropped because
 * the list was full.
 */
export async function recordPage(
  sinks: { writer: CheckpointWriter; confirmations: ConfirmationRecorder | undefined },
  before: MessagingAssetCheckpoint,
  page: {
    published: PagePublished;
    successes: ReadonlyArray<Extract<Fetched, { ok: true }>>;
    gone: number[];
  },
  advance: () => AdvanceOptions,
): Promise<{ checkpoint: MessagingAssetCheckpoint; abandoned: RetryEntry[] }> {
  const { accepted, recorded } = page.published;
  // The ledger learns of the accepted confirmations before the checkpoint moves: when it fails,
  // the run stops here and the next run sends these assets again (same ids; the ledger applies a
  // fact once).
  await sinks.confirmations?.recordMessagingAssets(
    page.successes.filter((item) => accepted.has(item.asset.id)).map((item) => item.event),
  );
  const advanced = advanceCheckpoint(
    before,
    {
      emitted: [...accepted],
      failed: recorded.map((item) => ({ asset: item.asset, reason: item.reason })),
      gone: page.gone,
    },
    advance(),
  );
  await sinks.writer.save(advanced.checkpoint);
  return { checkpoint: advanced.checkpoint, abandoned: advanced.abandoned };
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
