/**
 * λ poll-supplier-reviews, invoked by its EventBridge Scheduler schedule: new supplier reviews of
 * watched items become `pds.supplier-review.received` events. A small watch list is polled here; a
 * large one is sent in chunks to poll-supplier-reviews-worker. Logic: lib/polling.
 */
import type { Context } from 'aws-lambda';
import { sqsClient } from '../lib/aws.ts';
import { loadConfig } from '../lib/config.ts';
import { runExclusive } from '../lib/polling/exclusive.ts';
import { recordScheduledReviewMetrics } from '../lib/polling/metrics.ts';
import { SqsReviewKeyQueue } from '../lib/polling/review-queue.ts';
import { reviewChunkFailure, runWindow } from '../lib/polling/run.ts';
import { REVIEW_POLL_SETTINGS } from '../lib/polling/settings.ts';
import { pollSupplierReviews, type ScheduledReviewPollReport } from '../lib/polling/supplier-reviews.ts';
import { eventSinkFor, flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';

const config = loadConfig(process.env, {
  require: ['STATE_BUCKET'],
  eventTypes: ['pds.supplier-review.received'],
  settings: REVIEW_POLL_SETTINGS,
});
const store = stateStoreFor(config);
const sink = eventSinkFor(config);
const queueUrl = config.settings.REVIEW_POLL_QUEUE_URL;
const queue = queueUrl ? new SqsReviewKeyQueue({ sqs: sqsClient(), queueUrl }) : undefined;

/** The run's report, or `{ skipped: true }` when another run holds the lease. */
export async function handler(
  _event: unknown,
  context: Context,
): Promise<ScheduledReviewPollReport | { skipped: true; heldBy: string | undefined }> {
  logger.addContext(context);
  metrics.captureColdStartMetric();
  const { deadline, leaseTtlMs } = runWindow(context);
  try {
    const pds = await pdsClientFor(config);
    const result = await runExclusive(
      store,
      { name: 'poll-supplier-reviews', ttlMs: leaseTtlMs, owner: context.awsRequestId },
      () =>
        pollSupplierReviews(
          { pds, store, sink, logger },
          {
            runId: context.awsRequestId,
            concurrency: config.settings.POLL_CONCURRENCY,
            failureLimit: config.settings.POLL_FAILURE_LIMIT,
            inlineMax: config.settings.POLL_REVIEWS_INLINE_MAX,
            chunkSize: config.settings.POLL_REVIEWS_CHUNK_SIZE,
            deadline,
            ...(queue ? { queue } : {}),
          },
        ),
    );
    if (!result.ran) {
      logger.info('Another supplier-review poll holds the lease; skipping this run', { ...result });
      metrics.addMetric('RunsSkipped', 'Count', 1);
      return { skipped: true, heldBy: result.heldBy };
    }
    const report = result.value;
    recordScheduledReviewMetrics(metrics, report);
    logger.info('Supplier-review poll finished', { ...report });
    // Inline failures are retried by the next scheduled run; failing the invocation makes them visible.
    const failure = report.mode === 'inline' ? reviewChunkFailure(report) : undefined;
    if (failure) throw failure;
    return report;
  } finally {
    flushMetrics();
  }
}
