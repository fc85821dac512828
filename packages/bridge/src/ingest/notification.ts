/**
 * One S3 notification (one SQS message, or one direct invocation) through the ingest: every
 * `ObjectCreated` record in order, filtered, each ingested on its own. A record that fails is kept
 * with its error and the rest still run; the caller reports the outcomes, then fails the message
 * ({@link throwIfAnyFailed}) so SQS delivers it again, when the already finished writes are duplicates.
 */

import { failedEvent } from './events.ts';
import type { FilterDecision } from './filters.ts';
import { type IngestObjectDeps, type IngestOutcome, ingestObject } from './ingest-object.ts';
import type { OncePerBatch } from './once-per-batch.ts';
import {
  type IgnoredS3Record,
  type ObjectWriteEvent,
  type S3Notification,
  unencodableField,
} from './s3-event.ts';

export interface NotificationDeps extends IngestObjectDeps {
  /** The prefix/suffix filter (folder placeholders are always skipped). */
  accepts: (key: string) => FilterDecision;
  /**
   * The drop buckets this ingest serves (`INGEST_BUCKETS`): a write in any other bucket is refused
   * before anything is read (a forged notification could name the state bucket).
   */
  buckets: ReadonlySet<string>;
  /**
   * Shared by the notifications of one invocation (the records of an SQS batch), so each object
   * write is ingested by one of them. Default: none, every notification claims on its own.
   */
  batch?: OncePerBatch;
}

/** What happened to one object write of the notification. */
export type WriteResult =
  | { write: ObjectWriteEvent; kind: 'skipped'; reason: string }
  | { write: ObjectWriteEvent; kind: 'done'; outcome: IngestOutcome }
  | { write: ObjectWriteEvent; kind: 'error'; error: unknown }
  /** Refused as it entered (text that cannot be encoded): a `pds.ingest.failed` event was sent. */
  | { write: ObjectWriteEvent; kind: 'refused'; reason: string };

export interface NotificationReport {
  /** An `s3:TestEvent`: nothing to do. */
  test: boolean;
  /** Records that are not object writes (other event types). */
  ignored: IgnoredS3Record[];
  results: WriteResult[];
}

/**
 * Ingests every write of a parsed notification, in order.
 *
 * @example
 * ```ts
 * const report = await ingestNotification(parseS3NotificationBody(record.body), deps);
 * report.results.forEach(observe);
 * throwIfAnyFailed(report);
 * ```
 */
export async function ingestNotification(
  notification: S3Notification,
  deps: NotificationDeps,
): Promise<NotificationReport> {
  if (notification.kind === 'test') return { test: true, ignored: [], results: [] };
  const results: WriteResult[] = [];
  for (const write of notification.writes) {
    const field = unencodableField(write);
    if (field !== undefined) {
      results.push(await refuseUnencodable(write, field, deps));
      continue;
    }
    if (!deps.buckets.has(write.bucket)) {
      results.push(await refuseForeignBucket(write, deps));
      continue;
    }
    const decision = deps.accepts(write.key);
    if (!decision.accept) {
      results.push({ write, kind: 'skipped', reason: decision.reason });
      continue;
    }
    try {
      const ingest = () => ingestObject(write, deps);
      const outcome = await (deps.batch ? deps.batch.ingest(write, ingest) : ingest());
      results.push({ write, kind: 'done', outcome });
    } catch (error) {
      results.push({ write, kind: 'error', error });
    }
  }
  return { test: false, ignored: notification.ignored, results };
}

/**
 * A write named with text that cannot be encoded fails for good in this receive: retrying cannot
 * change the notification, so it ends with a `pds.ingest.failed` event saying why, not in the DLQ.
 */
async function refuseUnencodable(
  write: ObjectWriteEvent,
  field: string,
  deps: NotificationDeps,
): Promise<WriteResult> {
  const reason = `The S3 notification names this write with text that is not well-formed Unicode (${field} holds a lone UTF-16 surrogate), so no state key or PDS request can be built from it; check what sends to the ingest queue`;
  await deps.events.publish([
    failedEvent(write, { code: 'invalid-notification', reason, retryable: false }, deps.eventSource),
  ]);
  return { write, kind: 'refused', reason };
}

/**
 * A write in a bucket this ingest does not serve fails for good, unread: the notification is not
 * one S3 sent for the drop bucket (or INGEST_BUCKETS is missing a bucket the deployment added).
 */
async function refuseForeignBucket(write: ObjectWriteEvent, deps: NotificationDeps): Promise<WriteResult> {
  const served = [...deps.buckets].map((name) => JSON.stringify(name)).join(', ');
  const reason = `The S3 notification names bucket ${JSON.stringify(write.bucket)}, which this ingest does not serve (INGEST_BUCKETS: ${served}); nothing was read. If the bucket is a drop bucket, add it to INGEST_BUCKETS; otherwise check what sends to the ingest queue`;
  await deps.events.publish([
    failedEvent(write, { code: 'invalid-notification', reason, retryable: false }, deps.eventSource),
  ]);
  return { write, kind: 'refused', reason };
}

/**
 * Throws the error of the failed write (an `AggregateError` when several failed), so the message is
 * delivered again; returns when every write finished.
 */
export function throwIfAnyFailed(report: NotificationReport): void {
  const errors = report.results.flatMap((result) => (result.kind === 'error' ? [result.error] : []));
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    throw new AggregateError(
      errors,
      `${errors.length} object writes of one notification failed; SQS retries them`,
    );
  }
}
