/**
 * The events the consumer tests read, sent the way the bridge sends them: its own SQS publisher
 * (packages/bridge/src/events/sqs/), claim-check included, so consumers are tested against the real wire format.
 */
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import { type CloudEvent, createEvent } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import type { EmulatedAws } from './fauxqs.ts';

/** Characters of the large event's XML: well above the 256 KiB inline limit. */
const LARGE_XML_CHARACTERS = 300_000;

/**
 * Three events: two small ones from the catalogue and a messaging asset whose raw XML makes it too
 * large to send inline, so the bridge claim-checks it. ASCII only, so every language's compact JSON of
 * the data has the same length.
 */
export function consumerTestEvents(): { small: CloudEvent[]; large: CloudEvent } {
  const examples = exampleEvents();
  const small = [examples['pds.ingest.completed'][0], examples['pds.ingest.failed'][0]].filter(
    (event): event is NonNullable<typeof event> => event !== undefined,
  );
  const large = createEvent({
    type: 'pds.messaging-asset.received',
    subject: 'messaging-asset/9001',
    idParts: [9001],
    time: '2026-11-20T09:15:00.000Z',
    data: {
      messagingAssetId: 9001,
      createdAt: 1795166040000,
      parseError: { name: 'XmlParseError', code: 'MALFORMED', message: 'Unclosed root element' },
      rawXml: `<catalogueItemConfirmation>${'x'.repeat(LARGE_XML_CHARACTERS)}`,
    },
  });
  return { small, large };
}

/** Publishes `events` to `queueUrl` with the bridge's publisher, claim-checking into `bucket`. */
export async function publishAsBridge(
  aws: EmulatedAws,
  queueUrl: string,
  bucket: string,
  events: readonly CloudEvent[],
): Promise<void> {
  const publisher = new SqsEventPublisher({
    sqs: aws.sqs,
    queueUrl: () => queueUrl,
    claimCheck: { s3: aws.s3, bucket },
  });
  await publisher.publish(events);
}

/** Receives `count` messages (with their attributes) from `queueUrl`, or fails after 20 receives. */
export async function receiveMessages(aws: EmulatedAws, queueUrl: string, count: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let attempt = 0; messages.length < count && attempt < 20; attempt++) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ['All'],
      }),
    );
    messages.push(...Messages);
  }
  if (messages.length !== count) throw new Error(`received ${messages.length} of ${count} messages`);
  return messages;
}

/** The Lambda SQS record of a received message, as the event source mapping delivers it. */
export function lambdaRecordOf(message: Message, queueArn: string): SQSRecord {
  const messageAttributes: SQSRecord['messageAttributes'] = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    messageAttributes[name] = { dataType: value.DataType ?? 'String', stringValue: value.StringValue };
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAIENQZJOLO23YVJ4VO',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes,
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}
