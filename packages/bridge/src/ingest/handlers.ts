/**
 * The ingest function's work per invocation, built from one configuration: SQS batches of S3
 * notifications (partial batch response, failed records redelivered sooner) or a plain S3 event
 * invoked directly. The adapters are built once per factory call and reused by every invocation.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, S3Event, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type Environment, loadConfig } from '../config/index.ts';
import { eventSinkFor, logger, metrics, pdsClientFor, stateStoreFor } from '../lambda/adapters.ts';
import { s3Client, sqsClient } from '../lambda/aws-clients.ts';
import type { InvocationHandler } from '../lambda/handler.ts';
import { type IngestSummary, ingestS3Event, ingestSqsBody } from './delivery.ts';
import { inProgressUntil } from './errors.ts';
import type { NotificationDeps } from './notification.ts';
import { OncePerBatch } from './once-per-batch.ts';
import { S3ObjectSource, S3ObjectTagger } from './s3/adapters.ts';
import { INGEST_EVENT_TYPES, INGEST_SETTINGS, type IngestOptions, ingestOptionsFrom } from './settings.ts';
import { delayFailedRecords, QueueUrlLookup } from './sqs/retry-delay.ts';

/** What the ingest function answers: a partial batch response, or the counts of a direct S3 event. */
export type IngestResponse = SQSBatchResponse | IngestSummary;

/**
 * Reads the ingest configuration from `env` and returns the invocation handler; throws a
 * ConfigError naming every bad variable.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createIngestHandler(process.env));
 * ```
 */
export function createIngestHandler(env: Environment): InvocationHandler<SQSEvent | S3Event, IngestResponse> {
  const config = loadConfig(env, {
    require: ['STATE_BUCKET', 'INGEST_BUCKETS'],
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
  const checkLease = leaseCheck(options);

  return async (event, context) => {
    checkLease(context);
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
      buckets: options.buckets,
      leaseMs: options.leaseMs,
      importConcurrency: options.importConcurrency,
      checkContent: options.checkContent,
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
  };
}

function isSqsEvent(event: SQSEvent | S3Event): event is SQSEvent {
  return event.Records?.[0]?.eventSource === 'aws:sqs';
}

/** A lease shorter than the invocation could let a second delivery take over a live one. */
function leaseCheck(options: IngestOptions): (context: Context) => void {
  let checked = false;
  return (context) => {
    if (checked) return;
    checked = true;
    const remainingMs = context.getRemainingTimeInMillis?.() ?? 0;
    if (remainingMs >= options.leaseMs) {
      logger.warn('INGEST_LEASE_SECONDS is not above the function timeout; raise it', {
        leaseMs: options.leaseMs,
        remainingMs,
      });
    }
  };
}
