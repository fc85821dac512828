/**
 * The publish worker: consumes the internal publication queue (SQS, partial batch responses) and
 * carries out each publication. Logic: lib/publications/worker.ts.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadConfig } from '../lib/config.ts';
import { WORKER_SETTINGS, watchTtlMsOf } from '../lib/publications/config.ts';
import { publicationRecordHandler } from '../lib/publications/worker.ts';
import { eventSinkFor, flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';

const config = loadConfig(process.env, {
  settings: WORKER_SETTINGS,
  require: ['STATE_BUCKET'],
  eventTypes: ['pds.publication.completed', 'pds.publication.failed'],
});
const store = stateStoreFor(config);
const events = eventSinkFor(config);
const processor = new BatchProcessor(EventType.SQS);

export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  logger.addContext(context);
  try {
    const recordHandler = publicationRecordHandler({
      store,
      pds: await pdsClientFor(config),
      events,
      maxAttempts: config.settings.PUBLICATION_MAX_ATTEMPTS,
      watchTtlMs: watchTtlMsOf(config.settings.WATCH_TTL_DAYS),
      log: logger,
      count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
    });
    return await processPartialResponse(event, recordHandler, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  } finally {
    flushMetrics();
  }
}
