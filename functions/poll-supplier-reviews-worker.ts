/**
 * λ poll-supplier-reviews-worker, fed by the review fan-out queue (REVIEW_POLL_QUEUE_URL): polls the
 * watched keys of each chunk the scheduled poll-supplier-reviews run sent. A chunk with a failed key
 * is reported as a batch item failure, so SQS delivers it again and finally to its DLQ; keys already
 * handled are not emitted twice (their fingerprints are recorded). Logic: lib/polling.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { loadConfig } from '../lib/config.ts';
import { recordReviewMetrics } from '../lib/polling/metrics.ts';
import { parseReviewKeyChunk } from '../lib/polling/review-queue.ts';
import { reviewChunkFailure, runWindow } from '../lib/polling/run.ts';
import { REVIEW_POLL_SETTINGS } from '../lib/polling/settings.ts';
import { pollReviewKeys } from '../lib/polling/supplier-reviews.ts';
import { eventSinkFor, flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';

const config = loadConfig(process.env, {
  require: ['STATE_BUCKET'],
  eventTypes: ['pds.supplier-review.received'],
  settings: REVIEW_POLL_SETTINGS,
});
const store = stateStoreFor(config);
const sink = eventSinkFor(config);
const processor = new BatchProcessor(EventType.SQS);

/** Partial batch response: the message ids of chunks that were not handled completely. */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  metrics.captureColdStartMetric();
  const { deadline } = runWindow(context);
  try {
    const pds = await pdsClientFor(config);
    return await processPartialResponse(
      event,
      async (record: SQSRecord) => {
        const chunk = parseReviewKeyChunk(record.body);
        const log = logger.createChild({
          persistentKeys: { messageId: record.messageId, runId: chunk.runId },
        });
        const report = await pollReviewKeys({ pds, store, sink, logger: log }, chunk.keys, {
          concurrency: config.settings.POLL_CONCURRENCY,
          failureLimit: config.settings.POLL_FAILURE_LIMIT,
          deadline,
        });
        recordReviewMetrics(metrics, report);
        log.info('Review chunk polled', { ...report });
        const failure = reviewChunkFailure(report);
        if (failure) throw failure;
      },
      processor,
      // One chunk after the other: POLL_CONCURRENCY bounds the whole invocation, not each chunk. A
      // batch whose every chunk failed is answered like any other partial failure, not thrown.
      { context, processInParallel: false, throwOnFullBatchFailure: false },
    );
  } finally {
    flushMetrics();
  }
}
