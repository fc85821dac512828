/**
 * A Lambda function subscribed to pds-bridge's event queue, with Powertools batch processing: each
 * record is read with the consumer kit, processed once per event id, and a record that fails is
 * reported as a batch item failure, so only it comes back (set `FunctionResponseTypes:
 * [ReportBatchItemFailures]` on the event source mapping). docs/consumers.md walks through it.
 *
 * Environment: DEDUP_BUCKET, a bucket the function may read, write and delete in (the processed event
 * ids, expired by a lifecycle rule on `pds-events/processed/`), plus s3:GetObject on the bridge's
 * state bucket for claim-checked events.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  type BridgeEvent,
  createEventReader,
  Deduplicator,
  type EventReader,
  s3DedupStore,
  s3PayloadFetcher,
} from 'pds-bridge/consumer';

const logger = new Logger({ serviceName: 'pds-events-consumer' });

/** What this consumer does with each event. Throwing makes the record a batch item failure. */
export async function handleEvent(event: BridgeEvent): Promise<void> {
  switch (event.type) {
    case 'pds.ingest.completed':
      logger.info('file ingested', { id: event.id, gatheringKey: event.data.gatheringKey });
      break;
    case 'pds.ingest.failed':
      logger.warn('file not ingested', {
        id: event.id,
        code: event.data.code,
        retryable: event.data.retryable,
      });
      break;
    default:
      logger.info('event', { id: event.id, type: event.type, subject: event.subject });
  }
}

export interface ConsumerHandlerOptions {
  reader: EventReader<BridgeEvent>;
  dedup: Deduplicator;
  handle: (event: BridgeEvent) => Promise<void>;
}

/** The Lambda handler: one kit reader, one deduplicator, Powertools' partial batch response. */
export function createConsumerHandler(options: ConsumerHandlerOptions) {
  const processor = new BatchProcessor(EventType.SQS);
  const processRecord = async (record: SQSRecord): Promise<void> => {
    // A ConsumerError (unreadable message, invalid data, duplicate-in-progress) fails this record only.
    const event = await options.reader.read(record);
    await options.dedup.once(event, () => options.handle(event));
  };
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    processPartialResponse(event, processRecord, processor, { context });
}

// No wildcard DNS in front of a local emulator: bucket names go in the path.
const s3 = new S3Client({
  forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL),
});

export const handler = createConsumerHandler({
  reader: createEventReader({
    payloads: s3PayloadFetcher(s3),
    // Claim-checked events are followed only into the bridge's state bucket (its claim-check/ prefix).
    claimCheck: { buckets: [process.env.STATE_BUCKET ?? ''] },
  }),
  dedup: new Deduplicator({ store: s3DedupStore({ client: s3, bucket: process.env.DEDUP_BUCKET ?? '' }) }),
  handle: handleEvent,
});
