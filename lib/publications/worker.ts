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
import { type EventSink, type PublicationFailureCode, pdsFailureCode } from '../events/index.ts';
import { type PdsClient, PdsError, PdsHttpError } from '../pds/index.ts';
import { publicationKey, StateConflictError, type StateStore, watch } from '../state/index.ts';
import { PublicationNotFoundError, PublicationRetryError } from './errors.ts';
import { publicationOutcomeEvent } from './events.ts';
import { parsePublicationMessage } from './queue.ts';
import { type PublicationErrorView, type PublicationRecord, readPublication } from './records.ts';

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
  const { store, pds } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? silentLog;
  const key = publicationKey(publicationId);
  let record!: PublicationRecord;
  let etag = '';
  const save = async (next: PublicationRecord) => {
    ({ etag } = await store.update(key, next, etag));
    record = next;
  };

  let conflict: StateConflictError | undefined;
  for (let read = 1; ; read++) {
    const entry = await readPublication(store, publicationId);
    if (!entry) throw new PublicationNotFoundError(publicationId);
    ({ value: record, etag } = entry);
    // Only the api's mark leaves a record queued; anything else that moved it is another delivery
    // at work, which this one must not join (two would create two selections).
    if (conflict && record.status !== 'queued') throw conflict;
    if (record.notifiedAt !== undefined) return 'already-done';
    if (record.status === 'published' || record.status === 'failed') {
      // The outcome was recorded but the event may not have gone out: finish that part only.
      await notify(deps, record, now);
      await save({ ...record, notifiedAt: now().toISOString() });
      return record.status;
    }
    try {
      await save({
        ...record,
        status: 'publishing',
        attempts: record.attempts + 1,
        updatedAt: now().toISOString(),
      });
      break;
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
  try {
    if (record.selectionId === undefined) {
      const selection = await pds.createSelection(record.request.primaryKeys);
      await save({
        ...record,
        selectionId: selection.selectionId,
        numberOfItems: selection.numberOfItems,
        updatedAt: now().toISOString(),
      });
      log.info('Selection created', { publicationId, selectionId: selection.selectionId });
    }
    await pds.publish({
      selectionId: record.selectionId as string,
      destinations: record.request.destinations,
    });
  } catch (error) {
    if (!(error instanceof PdsError)) throw error;
    const at = now().toISOString();
    if (error.retryable && receiveCount < deps.maxAttempts) {
      const failure = failureOf(error, at);
      deps.metrics?.addMetric('PublicationRetries', 'Count', 1);
      log.warn('Publication attempt failed; it will be retried', {
        publicationId,
        selectionId: record.selectionId,
        attempt: receiveCount,
        maxAttempts: deps.maxAttempts,
        reason: error.message,
      });
      // Best effort: the retry does not depend on it, it only shows progress on GET /publications/{id}.
      await save({ ...record, lastError: failure, updatedAt: at }).catch(() => undefined);
      throw new PublicationRetryError(publicationId, receiveCount, error);
    }
    const failure = { code: finalFailureCode(error), ...failureOf(error, at) };
    const { lastError: _lastError, ...rest } = record;
    await save({ ...rest, status: 'failed', failedAt: at, updatedAt: at, error: failure });
    deps.metrics?.addMetric('PublicationsFailed', 'Count', 1);
    log.error('Publication failed', { publicationId, selectionId: record.selectionId, ...failure });
    await notify(deps, record, now);
    await save({ ...record, notifiedAt: now().toISOString() });
    return 'failed';
  }

  const at = now().toISOString();
  const { lastError: _lastError, ...rest } = record;
  await save({ ...rest, status: 'published', publishedAt: at, updatedAt: at });
  deps.metrics?.addMetric('PublicationsPublished', 'Count', 1);
  log.info('Publication published', {
    publicationId,
    selectionId: record.selectionId,
    numberOfItems: record.numberOfItems,
  });
  await notify(deps, record, now);
  await save({ ...record, notifiedAt: now().toISOString() });
  return 'published';
}

/** Watches the keys of a published record and emits its event; emits the failed event otherwise. */
async function notify(deps: WorkerDependencies, record: PublicationRecord, now: () => Date): Promise<void> {
  if (record.status === 'published') {
    await watch(deps.store, record.request.primaryKeys, {
      ttlMs: deps.watchTtlMs,
      source: `publication:${record.publicationId}`,
      now: now(),
    });
    // Before the completed event: a consumer that reacts to it finds the entries there.
    await deps.confirmations?.recordPublication({
      publicationId: record.publicationId,
      publishedAt: record.publishedAt ?? record.updatedAt,
      primaryKeys: record.request.primaryKeys,
      destinations: record.request.destinations,
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
