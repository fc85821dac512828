/**
 * Logs and counts what one notification did. Metrics (namespace PdsBridge): `IngestCompleted`,
 * `IngestFailed` (permanent failures, superseded writes and writes refused as they entered
 * included), `IngestDuplicate`, `IngestSkipped` (filtered writes, other event types, S3 test events), `IngestRetried` (writes left for SQS to
 * retry), `IngestBytes` (bytes streamed to the PDS), `IngestTagFailed` (finished writes whose object
 * could not be tagged), `IngestPdsRetried` (PDS steps repeated within the invocation after a transient
 * answer, counted by ./delivery.ts as they happen). `PdsRetries` is counted by the PDS client.
 */
import type { Log, Metrics } from '../core/index.ts';
import { IngestInProgressError, isRetryable } from './errors.ts';
import type { NotificationReport, WriteResult } from './notification.ts';

/**
 * Logs every write's result with its correlation ids (bucket, key, gatheringKey) and adds the metrics.
 *
 * @example
 * ```ts
 * reportNotification(report, { log: logger, metrics });
 * ```
 */
export function reportNotification(report: NotificationReport, sinks: { log: Log; metrics: Metrics }): void {
  const { log, metrics } = sinks;
  if (report.test) {
    log.info('S3 test event received; nothing to ingest');
    metrics.addMetric('IngestSkipped', 'Count', 1);
  }
  for (const record of report.ignored) {
    log.info('Ignored an S3 record that is not an object write', { ...record });
    metrics.addMetric('IngestSkipped', 'Count', 1);
  }
  for (const result of report.results) reportWrite(result, log, metrics);
}

function reportWrite(result: WriteResult, log: Log, metrics: Metrics): void {
  const ids = {
    bucket: result.write.bucket,
    s3Key: result.write.key,
    ...(result.write.versionId ? { versionId: result.write.versionId } : {}),
  };
  if (result.kind === 'skipped') {
    log.info('Skipped a dropped object', { ...ids, reason: result.reason });
    metrics.addMetric('IngestSkipped', 'Count', 1);
    return;
  }
  if (result.kind === 'refused') {
    log.warn('Refused an object write; a pds.ingest.failed event was sent', {
      ...ids,
      reason: result.reason,
    });
    metrics.addMetric('IngestFailed', 'Count', 1);
    return;
  }
  if (result.kind === 'error') {
    const error = result.error;
    log.warn('Ingest left for SQS to retry', {
      ...ids,
      retryable: isRetryable(error),
      inProgressElsewhere: error instanceof IngestInProgressError,
      ...(error instanceof IngestInProgressError && error.leaseUntil !== undefined
        ? { retryAfter: new Date(error.leaseUntil).toISOString() }
        : {}),
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    metrics.addMetric('IngestRetried', 'Count', 1);
    return;
  }
  const { outcome } = result;
  if (outcome.status !== 'duplicate' && outcome.tag && !outcome.tag.tagged) {
    metrics.addMetric('IngestTagFailed', 'Count', 1);
  }
  switch (outcome.status) {
    case 'imported':
      log.info('Ingested a dropped object', {
        ...ids,
        gatheringKey: outcome.gatheringKey,
        entries: outcome.entries,
        importsStarted: outcome.importsStarted,
        bytesUploaded: outcome.bytesUploaded,
        resumed: outcome.resumed,
        ...(outcome.tag && !outcome.tag.tagged ? { tagNotWritten: outcome.tag.reason } : {}),
      });
      metrics.addMetric('IngestCompleted', 'Count', 1);
      metrics.addMetric('IngestBytes', 'Bytes', outcome.bytesUploaded);
      return;
    case 'failed':
    case 'superseded':
      log.warn('Ingest failed permanently; a pds.ingest.failed event was sent', {
        ...ids,
        outcome: outcome.status,
        reason: outcome.reason,
        ...(outcome.pdsStatus !== undefined ? { pdsStatus: outcome.pdsStatus } : {}),
        ...(outcome.tag && !outcome.tag.tagged ? { tagNotWritten: outcome.tag.reason } : {}),
      });
      metrics.addMetric('IngestFailed', 'Count', 1);
      return;
    case 'duplicate':
      log.info('Duplicate notification of an object write already finished', {
        ...ids,
        previous: outcome.previous,
        progressKey: outcome.progressKey,
      });
      metrics.addMetric('IngestDuplicate', 'Count', 1);
      return;
  }
}
