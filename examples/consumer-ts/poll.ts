/**
 * Reads pds-bridge events from an SQS queue with the AWS SDK and the consumer kit, and prints one JSON
 * line per event (docs/consumers.md).
 *
 *   QUEUE_URL=https://sqs.eu-west-1.amazonaws.com/123456789012/pds-bridge-events node poll.ts
 *
 * `node` strips the types from Node.js 22.18; on an older Node.js 22 compile it first. From a checkout of
 * pds-bridge use `./node_modules/.bin/node examples/consumer-ts/poll.ts` (docs/consumers.md).
 *
 * The kit follows claim-check pointers (large events stored in S3), verifies each envelope and its
 * data, and types the event by `type`. A message is deleted once handled; one that is not a readable
 * event stays in the queue, and the queue's redrive policy moves it to the dead-letter queue. Runs
 * until the queue is empty (MAX_EMPTY_RECEIVES empty receives in a row, default 2).
 *
 * AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3/_SQS) points it at a local emulator; S3 is then addressed
 * path-style.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, type Message, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import {
  type BridgeEvent,
  ConsumerError,
  createEventReader,
  Deduplicator,
  isBridgeEvent,
  MemoryDedupStore,
  s3PayloadFetcher,
  type UnknownEvent,
} from 'pds-bridge/consumer';

const queueUrl = process.env.QUEUE_URL;
if (!queueUrl) {
  console.error('Set QUEUE_URL to the queue pds-bridge sends its events to (EVENTS_QUEUE_URL).');
  process.exit(2);
}
const maxEmptyReceives = Number(process.env.MAX_EMPTY_RECEIVES ?? '2');

const sqs = new SQSClient({});
// No wildcard DNS in front of a local emulator: bucket names go in the path.
const local = Boolean(process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL);
const reader = createEventReader({
  payloads: s3PayloadFetcher(new S3Client({ forcePathStyle: local })),
  // Claim-checked events are followed only into the bridge's state bucket (its claim-check/ prefix).
  claimCheck: { buckets: [process.env.STATE_BUCKET ?? ''] },
  // Newer bridges may add event types; receive them and skip them instead of failing.
  unknownTypes: 'return',
});
// One process: memory is enough. Several consumers on one queue share s3DedupStore instead.
const dedup = new Deduplicator({ store: new MemoryDedupStore() });

/** What this consumer does with each event: here, one JSON line on stdout. */
function handle(event: BridgeEvent | UnknownEvent): void {
  const line: Record<string, unknown> = {
    id: event.id,
    type: event.type,
    subject: event.subject,
    known: isBridgeEvent(event),
    dataBytes: Buffer.byteLength(JSON.stringify(event.data)),
  };
  if (isBridgeEvent(event)) {
    switch (event.type) {
      case 'pds.ingest.failed':
        line.code = event.data.code; // branch on code, never on reason
        break;
      case 'pds.publication.completed':
        line.selectionId = event.data.selectionId;
        break;
      default:
        break;
    }
  }
  console.log(JSON.stringify(line));
}

async function consume(message: Message): Promise<void> {
  try {
    const event = await reader.read(message);
    await dedup.once(event, () => handle(event));
  } catch (error) {
    if (!(error instanceof ConsumerError)) throw error;
    // Left in the queue: retryable problems succeed on a later delivery, the others reach the DLQ.
    console.error(`${error.code}: ${error.message}`);
    return;
  }
  await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
}

let empty = 0;
while (empty < maxEmptyReceives) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      // The claim-check flag (ExtendedPayloadSize) is a message attribute.
      MessageAttributeNames: ['All'],
    }),
  );
  empty = Messages.length === 0 ? empty + 1 : 0;
  for (const message of Messages) await consume(message);
}
sqs.destroy();
