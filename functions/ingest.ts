/**
 * λ ingest: S3 drop notifications from the ingest queue (or a plain S3 event, invoked directly) are
 * streamed into the PDS and imported exactly once. Logic: lib/ingest.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, S3Event, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { s3Client, sqsClient } from '../lib/aws.ts';
import { loadConfig } from '../lib/config.ts';
import {
  INGEST_EVENT_TYPES,
  INGEST_SETTINGS,
  type IngestSummary,
  ingestOptionsFrom,
  ingestS3Event,
  ingestSqsBody,
  inProgressUntil,
  type NotificationDeps,
  OncePerBatch,
  S3ObjectSource,
  S3ObjectTagger,
} from '../lib/ingest/index.ts';
import { delayFailedRecords, QueueUrlLookup } from '../lib/retry-delay.ts';
import { eventSinkFor, flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';

const config = loadConfig(process.env, {
  require: ['STATE_BUCKET'],
  eventTypes: INGEST_EVENT_TYPES,
  settings: INGEST_SETTINGS,
});
const options = ingestOptionsFrom(config.settings);
const store = stateStoreFor(config);
const events = eventSinkFor(config);
const source = new S3ObjectSource(s3Client());
const tagger = options.tagObjects ? new S3ObjectTagger(s3Client()) : undefined;
const processor = new BatchProcessor(EventType.SQS);
const queues = new QueueUrlLookup(sqsClient());
let leaseChecked = false;

/** SQS event: partial batch response; direct S3 event: counts, or the error of a write to retry. */
export async function handler(
  event: SQSEvent | S3Event,
  context: Context,
): Promise<SQSBatchResponse | IngestSummary> {
  logger.addContext(context);
  metrics.captureColdStartMetric();
  checkLease(context);
  try {
    const pds = await pdsClientFor(config);
    // Records of one batch run concurrently; two of them may carry the same write.
    const batch = new OncePerBatch();
    const deps = (owner: string): NotificationDeps => ({
      pds,
      store,
      events,
      source,
      ...(tagger ? { tagger } : {}),
      accepts: options.accepts,
      leaseMs: options.leaseMs,
      owner,
      batch,
      retry: { ...options.stepRetry, remainingMs: () => context.getRemainingTimeInMillis() },
    });
    if (!isSqsEvent(event)) {
      return await ingestS3Event(event, deps(context.awsRequestId), { log: logger, metrics });
    }
    // Records that only wait for another delivery's claim come back when its lease ends.
    const waitUntil = new Map<string, number>();
    const response = await processPartialResponse(
      event,
      (record: SQSRecord) => {
        const log = logger.createChild({ persistentKeys: { messageId: record.messageId } });
        return ingestSqsBody(
          record.body,
          { ...deps(`${context.awsRequestId}/${record.messageId}`), log },
          { log, metrics },
        ).catch((error: unknown) => {
          const until = inProgressUntil(error);
          if (until !== undefined) waitUntil.set(record.messageId, until);
          throw error;
        });
      },
      processor,
      { context, throwOnFullBatchFailure: false },
    );
    // The queue's visibility timeout is 6 × the function timeout; failed records come back sooner.
    await delayFailedRecords(event, response, {
      sqs: sqsClient(),
      queues,
      policy: options.redelivery,
      notBefore: (record) => waitUntil.get(record.messageId),
    }).catch((error: unknown) =>
      logger.warn('Could not shorten the retry delay of failed records', { error }),
    );
    return response;
  } finally {
    flushMetrics();
  }
}

function isSqsEvent(event: SQSEvent | S3Event): event is SQSEvent {
  return event.Records?.[0]?.eventSource === 'aws:sqs';
}

/** A lease shorter than the invocation could let a second delivery take over a live one. */
function checkLease(context: Context): void {
  if (leaseChecked) return;
  leaseChecked = true;
  const remainingMs = context.getRemainingTimeInMillis?.() ?? 0;
  if (remainingMs >= options.leaseMs) {
    logger.warn('INGEST_LEASE_SECONDS is not above the function timeout; raise it', {
      leaseMs: options.leaseMs,
      remainingMs,
    });
  }
}
