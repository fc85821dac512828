/**
 * The publish worker: carries out one queued publication — create the selection, publish it, record
 * the outcome, put the keys on the supplier-review watch list, emit `pds.publication.completed` — or
 * records why it failed and emits `pds.publication.failed`.
 *
 * Idempotent by publication id, because SQS delivers at least once:
 * - a publication that is published or failed and whose event went out is acknowledged at once;
 * - the selection id is recorded BEFORE publishing, so a retry publishes the same selection instead
 *   of creating a second one (`createSelection` runs only while no selection id is recorded);
 * - every record change is conditional (If-Match): a duplicate delivery racing this one loses its
 *   write and is retried later, when the record says what is already done;
 * - the event, the watch list and the confirmation ledger's entries come after the outcome is
 *   recorded and before `notifiedAt` is, so a crash in between repeats them (same event ids:
 *   consumers drop the duplicates; the ledger applies a publication once).
 *
 * Transient PDS failures (`PdsError.retryable`: 429, 5xx, timeouts, network) are thrown, so SQS
 * delivers the message again after the visibility timeout; the transport never repeats a POST that
 * may have reached the PDS, so this is the retry for selections and publications. At the
 * `maxAttempts`-th delivery (SQS `ApproximateReceiveCount`), or at once for a permanent failure (4xx),
 * the publication is recorded as failed and the message acknowledged.
 *
 * What cannot be made exactly-once: when the PDS answered 503 to a publish that it had nevertheless
 * carried out (a gateway timeout), the retry publishes the same selection again. The PDS offers no
 * idempotency key for publications (docs/operations.md).
 */

import type { SQSRecord } from 'aws-lambda';
import type { ConfirmationRecorder } from '../confirmations/ports.ts';
import { type Log, type Metrics, silentLog } from '../core/index.ts';
import type { PublicationFailureCode } from '../events/data/index.ts';
import { type EventSink, pdsFailureCode } from '../events/index.ts';
import { type PdsClient, PdsError, PdsHttpError } from '../pds/index.ts';
import { timeMarkerKey, writeActivityMarker } from '../state/activity-index.ts';
import { StateConflictError, type StateStore } from '../state/index.ts';
import { watch } from '../state/watch-list.ts';
import { PublicationNotFoundError, PublicationRetryError } from './errors.ts';
import { publicationOutcomeEvent } from './events.ts';
import { publicationKey } from './keys.ts';
import { parsePublicationMessage } from './queue.ts';
import {
  notifiedAtTime,
  PUBLICATION_ACTIVITY,
  type PublicationErrorView,
  type PublicationRecord,
  readPublication,
} from './records.ts';

export interface WorkerDependencies {
  store: StateStore;
  pds: PdsClient;
  events: EventSink;
  /** The confirmation ledger: a published record's (key, channel) pairs become AWAITING entries. */
  confirmations?: ConfirmationRecorder;
  /** Deliveries before a transient failure becomes final (PUBLICATION_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** How long published keys stay on the watch list (WATCH_TTL_DAYS). */
  watchTtlMs: number;
  now?: () => Date;
  log?: Log;
  /** Counts what happened (PublicationsAccepted, ApiErrors, …); the Powertools Metrics fits. */
  metrics?: Metrics;
}

/** What one delivery achieved. */
export type PublicationOutcome = 'published' | 'failed' | 'already-done';

/** Reads of the record before the first transition gives up on conflicts (and SQS delivers again). */
const START_READS = 3;

function failureOf(error: PdsError, at: string): PublicationErrorView {
  return {
    reason: error.message,
    ...(error instanceof PdsHttpError ? { pdsStatus: error.status } : {}),
    retryable: error.retryable,
    at,
  };
}

/** The failure code of a publication that ends with `error`: a transient one ends only at the last attempt. */
function finalFailureCode(error: PdsError): PublicationFailureCode {
  return error.retryable ? 'attempts-exhausted' : pdsFailureCode(error);
}

/**
 * Carries out one publication (one delivery of its message); see the module comment.
 *
 * @example
 * ```ts
 * await processPublication(deps, '7d3f0a52-…', 1); // 'published'
 * ```
 */
export async function processPublication(
  deps: WorkerDependencies,
  publicationId: string,
  receiveCount: number,
): Promise<PublicationOutcome> {
  const delivery = new Delivery(deps, publicationId, receiveCount);
  const done = await startPublishing(delivery);
  if (done !== undefined) return done;
  try {
    await selectAndPublish(delivery);
  } catch (error) {
    if (!(error instanceof PdsError)) throw error;
    if (error.retryable && receiveCount < deps.maxAttempts) return retryLater(delivery, error);
    return recordFailed(delivery, error);
  }
  return recordPublished(delivery);
}

/** One delivery's view of its publication: the record as last read or written, and its ETag. */
class Delivery {
  readonly deps: WorkerDependencies;
  readonly publicationId: string;
  readonly receiveCount: number;
  readonly now: () => Date;
  readonly log: Log;
  readonly #key: string;
  record!: PublicationRecord;
  #etag = '';

  constructor(deps: WorkerDependencies, publicationId: string, receiveCount: number) {
    this.deps = deps;
    this.publicationId = publicationId;
    this.receiveCount = receiveCount;
    this.now = deps.now ?? (() => new Date());
    this.log = deps.log ?? silentLog;
    this.#key = publicationKey(publicationId);
  }

  /** Reads the record again; throws when it does not exist. */
  async read(): Promise<void> {
    const entry = await readPublication(this.deps.store, this.publicationId);
    if (!entry) throw new PublicationNotFoundError(this.publicationId);
    this.record = entry.value;
    this.#etag = entry.etag;
  }

  /** Writes `next` if the record is still as last read or written (`StateConflictError` if not). */
  async save(next: PublicationRecord): Promise<void> {
    // The activity index (packages/bridge/src/state/activity-index.ts): the marker replay finds a notified record by,
    // before the record, whenever the hour it is found under is new.
    const at = notifiedAtTime(next);
    if (at !== undefined && at !== (this.record && notifiedAtTime(this.record))) {
      await writeActivityMarker(
        this.deps.store,
        timeMarkerKey(PUBLICATION_ACTIVITY, this.#key, at),
        this.#key,
        this.now().getTime(),
      );
    }
    this.#etag = (await this.deps.store.update(this.#key, next, this.#etag)).etag;
    this.record = next;
  }

  /** Sends the outcome's event (and, once published, the watch list and ledger entries), then records it did. */
  async notifyOnce(): Promise<void> {
    await notify(this.deps, this.record, this.now);
    await this.save({ ...this.record, notifiedAt: this.now().toISOString() });
  }
}

/**
 * Moves the record to `publishing` (one more attempt); `undefined` when that is done and the work
 * goes on, or the outcome of an earlier delivery that already decided it.
 */
async function startPublishing(delivery: Delivery): Promise<PublicationOutcome | undefined> {
  let conflict: StateConflictError | undefined;
  for (let read = 1; ; read++) {
    await delivery.read();
    const { record } = delivery;
    // Only the api's mark leaves a record queued; anything else that moved it is another delivery
    // at work, which this one must not join (two would create two selections).
    if (conflict && record.status !== 'queued') throw conflict;
    if (record.notifiedAt !== undefined) return 'already-done';
    if (record.status === 'published' || record.status === 'failed') {
      // The outcome was recorded but the event may not have gone out: finish that part only.
      await delivery.notifyOnce();
      return record.status;
    }
    try {
      await delivery.save({
        ...record,
        status: 'publishing',
        attempts: record.attempts + 1,
        updatedAt: delivery.now().toISOString(),
      });
      return undefined;
    } catch (error) {
      // The message often arrives while the api is still marking the record queued (submit.ts): that
      // write moves the ETag without changing anything the worker needs, so read again rather than
      // wait for the visibility timeout.
      if (!(error instanceof StateConflictError) || record.status !== 'queued' || read >= START_READS) {
        throw error;
      }
      conflict = error;
    }
  }
}

/** Creates the selection unless one is recorded (recording it before publishing), then publishes it. */
async function selectAndPublish(delivery: Delivery): Promise<void> {
  const { pds } = delivery.deps;
  if (delivery.record.selectionId === undefined) {
    const selection = await pds.createSelection(delivery.record.request.primaryKeys);
    await delivery.save({
      ...delivery.record,
      selectionId: selection.selectionId,
      numberOfItems: selection.numberOfItems,
      updatedAt: delivery.now().toISOString(),
    });
    delivery.log.info('Selection created', {
      publicationId: delivery.publicationId,
      selectionId: selection.selectionId,
    });
  }
  await pds.publish({
    selectionId: delivery.record.selectionId as string,
    destinations: delivery.record.request.destinations,
  });
}

/** A transient failure before the last attempt: noted on the record, and thrown for SQS to deliver again. */
async function retryLater(delivery: Delivery, error: PdsError): Promise<never> {
  const { deps, record, publicationId, receiveCount } = delivery;
  const at = delivery.now().toISOString();
  const failure = failureOf(error, at);
  deps.metrics?.addMetric('PublicationRetries', 'Count', 1);
  delivery.log.warn('Publication attempt failed; it will be retried', {
    publicationId,
    selectionId: record.selectionId,
    attempt: receiveCount,
    maxAttempts: deps.maxAttempts,
    reason: error.message,
  });
  // Best effort: the retry does not depend on it, it only shows progress on GET /publications/{id}.
  await delivery.save({ ...record, lastError: failure, updatedAt: at }).catch(() => undefined);
  throw new PublicationRetryError(publicationId, receiveCount, error);
}

/** A permanent failure, or a transient one at the last attempt: recorded as failed, then notified. */
async function recordFailed(delivery: Delivery, error: PdsError): Promise<'failed'> {
  const at = delivery.now().toISOString();
  const failure = { code: finalFailureCode(error), ...failureOf(error, at) };
  const { lastError: _lastError, ...rest } = delivery.record;
  await delivery.save({ ...rest, status: 'failed', failedAt: at, updatedAt: at, error: failure });
  delivery.deps.metrics?.addMetric('PublicationsFailed', 'Count', 1);
  delivery.log.error('Publication failed', {
    publicationId: delivery.publicationId,
    selectionId: delivery.record.selectionId,
    ...failure,
  });
  await delivery.notifyOnce();
  return 'failed';
}

/** The publish went through: recorded as published, then notified. */
async function recordPublished(delivery: Delivery): Promise<'published'> {
  const at = delivery.now().toISOString();
  const { lastError: _lastError, ...rest } = delivery.record;
  await delivery.save({ ...rest, status: 'published', publishedAt: at, updatedAt: at });
  delivery.deps.metrics?.addMetric('PublicationsPublished', 'Count', 1);
  delivery.log.info('Publication published', {
    publicationId: delivery.publicationId,
    selectionId: delivery.record.selectionId,
    numberOfItems: delivery.record.numberOfItems,
  });
  await delivery.notifyOnce();
  return 'published';
}

/** Watches the keys of a published record and emits its event; emits the failed event otherwise. */
async function notify(deps: WorkerDependencies, record: PublicationRecord, now: () => Date): Promise<void> {
  if (record.status === 'published') {
    // The ledger entries before the watch: the review poller polls only watched keys, so an answer
    // it finds at once (a recipient that answers within seconds) always has its entry to apply to.
    // Before the completed event too: a consumer that reacts to it finds the entries there.
    await deps.confirmations?.recordPublication({
      publicationId: record.publicationId,
      publishedAt: record.publishedAt ?? record.updatedAt,
      // Recorded before the request reached the PDS: an answer written meanwhile counts for it.
      requestedAt: record.createdAt,
      primaryKeys: record.request.primaryKeys,
      destinations: record.request.destinations,
    });
    await watch(deps.store, record.request.primaryKeys, {
      ttlMs: deps.watchTtlMs,
      source: `publication:${record.publicationId}`,
      now: now(),
    });
  }
  const event = publicationOutcomeEvent(record);
  if (event) await deps.events.publish([event]);
}

/**
 * The per-record function for the Powertools `BatchProcessor`: reads the message and the SQS receive
 * count, then {@link processPublication}. A throw marks only this message as failed (partial batch response).
 *
 * @example
 * ```ts
 * const recordHandler = publicationRecordHandler(deps);
 * await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), { context });
 * ```
 */
export function publicationRecordHandler(
  deps: WorkerDependencies,
): (record: SQSRecord) => Promise<PublicationOutcome> {
  const log = deps.log ?? silentLog;
  return async (record) => {
    const parsedCount = Number.parseInt(record.attributes?.ApproximateReceiveCount ?? '1', 10);
    const receiveCount = Number.isFinite(parsedCount) && parsedCount > 0 ? parsedCount : 1;
    let publicationId: string | undefined;
    try {
      ({ publicationId } = parsePublicationMessage(record.body));
      return await processPublication(deps, publicationId, receiveCount);
    } catch (error) {
      // Transient PDS failures were logged where they happened; anything else is unexpected here.
      if (!(error instanceof PublicationRetryError)) {
        log.error('Publication message failed; SQS delivers it again (then the DLQ)', {
          messageId: record.messageId,
          publicationId,
          receiveCount,
          error: (error as Error).message ?? String(error),
        });
      }
      throw error;
    }
  };
}
