/**
 * The publish-worker function, built from one configuration: it carries out the publications the
 * HTTP API (packages/bridge/src/api) queued on the internal publication queue. The adapters are built once per
 * factory call and reused by every invocation.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type Environment, loadConfig } from '../config/index.ts';
import { ConfirmationLedger } from '../confirmations/ledger.ts';
import { deadlineMs, retentionMs } from '../confirmations/settings.ts';
import { continuingTrace } from '../core/index.ts';
import { eventSinkFor, logger, metrics, pdsClientFor, stateStoreFor } from '../lambda/adapters.ts';
import type { InvocationHandler } from '../lambda/handler.ts';
import { PUBLICATION_EVENT_TYPES, WORKER_SETTINGS, watchTtlMsOf } from './settings.ts';
import { publicationRecordHandler } from './worker.ts';

/**
 * The publish-worker function: carries out each publication of the internal queue; partial batch
 * responses.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createPublishWorkerHandler(process.env), { coldStartMetric: false });
 * ```
 */
export function createPublishWorkerHandler(env: Environment): InvocationHandler<SQSEvent, SQSBatchResponse> {
  const config = loadConfig(env, {
    settings: WORKER_SETTINGS,
    require: ['STATE_BUCKET'],
    eventTypes: PUBLICATION_EVENT_TYPES,
  });
  const store = stateStoreFor(config);
  const events = eventSinkFor(config);
  const confirmations = new ConfirmationLedger({
    store,
    sink: events,
    deadlineMs: deadlineMs(config.settings),
    retentionMs: retentionMs(config.settings.CONFIRMATION_RETENTION_DAYS),
    log: logger,
    metrics,
  });
  const processor = new BatchProcessor(EventType.SQS);
  return async (event, context) => {
    const recordHandler = publicationRecordHandler({
      store,
      pds: await pdsClientFor(config),
      events,
      confirmations,
      maxAttempts: config.settings.PUBLICATION_MAX_ATTEMPTS,
      watchTtlMs: watchTtlMsOf(config.settings.WATCH_TTL_DAYS),
      log: logger,
      metrics,
    });
    // Each publication continues the trace of the request that queued it.
    return await processPartialResponse(event, continuingTrace(recordHandler), processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };
}
