/**
 * What the ingest handler does with one delivered notification (an SQS record body, or a direct S3
 * event), in one place: read it, ingest its writes (./notification.ts), log and count the results,
 * fail it when a write must be retried. The handler only picks the adapters and says how the
 * notification was delivered.
 */

import type { Log, Metrics } from '../core/index.ts';
import { IngestEventError } from './errors.ts';
import {
  ingestNotification,
  type NotificationDeps,
  type NotificationReport,
  throwIfAnyFailed,
} from './notification.ts';
import { reportNotification } from './report.ts';
import { parseS3Event, parseS3NotificationBody, type S3Notification } from './s3-event.ts';

/** Counts of one delivery, the answer of a direct invocation. */
export interface IngestSummary {
  imported: number;
  failed: number;
  duplicate: number;
  skipped: number;
}

export interface DeliverySinks {
  log: Log;
  metrics: Metrics;
}

/**
 * Ingests the S3 notification in an SQS message body.
 *
 * @throws the error of a write SQS should retry, or IngestEventError for an unreadable body (which
 * ends in the DLQ after maxReceiveCount receives)
 * @example
 * ```ts
 * await ingestSqsBody(record.body, { ...deps, owner: `${context.awsRequestId}/${record.messageId}` }, { log, metrics });
 * ```
 */
export function ingestSqsBody(
  body: string,
  deps: NotificationDeps,
  sinks: DeliverySinks,
): Promise<IngestSummary> {
  return ingestDelivery(() => parseS3NotificationBody(body), deps, sinks);
}

/**
 * Ingests a plain S3 event (direct invocation); same contract as {@link ingestSqsBody}.
 */
export function ingestS3Event(
  event: unknown,
  deps: NotificationDeps,
  sinks: DeliverySinks,
): Promise<IngestSummary> {
  return ingestDelivery(() => parseS3Event(event), deps, sinks);
}

async function ingestDelivery(
  read: () => S3Notification,
  deps: NotificationDeps,
  sinks: DeliverySinks,
): Promise<IngestSummary> {
  let notification: S3Notification;
  try {
    notification = read();
  } catch (error) {
    if (error instanceof IngestEventError) {
      sinks.log.error('Unreadable S3 notification; it is retried, then kept in the dead-letter queue', {
        error: error.message,
      });
      sinks.metrics.addMetric('IngestRetried', 'Count', 1);
    }
    throw error;
  }
  const report = await ingestNotification(notification, {
    ...deps,
    log: deps.log ?? sinks.log,
    onStepRetry: (event) => {
      sinks.metrics.addMetric('IngestPdsRetried', 'Count', 1);
      deps.onStepRetry?.(event);
    },
  });
  reportNotification(report, sinks);
  throwIfAnyFailed(report);
  return summarize(report);
}

/** Counts the results of a report. */
export function summarize(report: NotificationReport): IngestSummary {
  const summary: IngestSummary = {
    imported: 0,
    failed: 0,
    duplicate: 0,
    skipped: report.ignored.length + (report.test ? 1 : 0),
  };
  for (const result of report.results) {
    if (result.kind === 'skipped') summary.skipped += 1;
    else if (result.kind === 'refused') summary.failed += 1;
    else if (result.kind === 'done') {
      const { status } = result.outcome;
      if (status === 'imported') summary.imported += 1;
      else if (status === 'duplicate') summary.duplicate += 1;
      else summary.failed += 1;
    }
  }
  return summary;
}
