import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CloudEvent, createEvent } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody, SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { parseMessagingAssetSafely } from '../../packages/bridge/src/xml/index.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const FIXTURE_NAMES = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'];
const BUCKET = 'pds-state';

let server: FauxqsServer;
let sqs: SQSClient;
let s3: S3Client;

beforeAll(async () => {
  server = await startFauxqs({ port: 0, logger: false });
  const common = {
    region: 'us-east-1',
    endpoint: server.address,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  sqs = new SQSClient(common);
  s3 = new S3Client({ ...common, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  sqs?.destroy();
  s3?.destroy();
  await server?.stop();
});

async function createQueue(name: string, fifo = false): Promise<string> {
  const created = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      ...(fifo ? { Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false' } } : {}),
    }),
  );
  if (!created.QueueUrl) throw new Error(`queue ${name} was not created`);
  return created.QueueUrl;
}

/** Receives and deletes messages until `expected` arrived or the queue stays empty three times. */
async function drain(queueUrl: string, expected: number): Promise<Message[]> {
  const received: Message[] = [];
  for (let empty = 0, rounds = 0; received.length < expected && empty < 3 && rounds < 50; rounds++) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'],
        WaitTimeSeconds: 1,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) empty++;
    received.push(...messages);
    if (messages.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((message, index) => ({
            Id: `d${index}`,
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
  }
  return received;
}

function messagingAssetEvent(id: number, xml: string): CloudEvent<'pds.messaging-asset.received'> {
  const parsed = parseMessagingAssetSafely(xml);
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${id}`,
    idParts: [id],
    data: parsed.ok
      ? { messagingAssetId: id, document: parsed.document, ...(parsed.cic ? { cic: parsed.cic } : {}) }
      : { messagingAssetId: id, parseError: parsed.error, rawXml: xml },
  });
}

describe('SqsEventPublisher against the S3+SQS emulator', () => {
  it('delivers every event with its body and type and id attributes', async () => {
    // prepare
    const queueUrl = await createQueue('pds-events');
    const sink = new SqsEventPublisher({ sqs, queueUrl: () => queueUrl });
    const xmls = FIXTURE_NAMES.map((name) => readFileSync(path.join(fixtures, name), 'utf8'));
    const events = Array.from({ length: 25 }, (_, index) =>
      messagingAssetEvent(index + 1, index === 24 ? '<broken>' : (xmls[index % xmls.length] as string)),
    );

    // act
    await sink.publish(events);
    const received = await drain(queueUrl, events.length);

    // assess
    expect(received).toHaveLength(25);
    const byId = new Map(received.map((message) => [message.MessageAttributes?.id?.StringValue, message]));
    for (const event of events) {
      const message = byId.get(event.id);
      expect(message?.MessageAttributes?.type?.StringValue).toBe('pds.messaging-asset.received');
      expect(JSON.parse(message?.Body ?? '')).toEqual(event);
    }
    const review = JSON.parse(
      byId.get(events[1]?.id)?.Body ?? '',
    ) as CloudEvent<'pds.messaging-asset.received'>;
    expect(review.data.cic?.[0]?.statuses[1]?.descriptions[0]?.text).toBe(
      'Bild fehlt für die Variante "0,5 l" & Mehrwegpfand.',
    );
    const broken = JSON.parse(
      byId.get(events[24]?.id)?.Body ?? '',
    ) as CloudEvent<'pds.messaging-asset.received'>;
    expect(broken.data.parseError?.code).toBe('MALFORMED');
  });

  it('sends an oversized event through the claim-check and reads it back', async () => {
    // prepare
    const queueUrl = await createQueue('pds-events-large');
    const sink = new SqsEventPublisher({
      sqs,
      queueUrl: () => queueUrl,
      claimCheck: { s3, bucket: BUCKET },
    });
    const big = createEvent({
      type: 'pds.messaging-asset.received',
      subject: 'messaging-asset/9001',
      idParts: [9001],
      data: {
        messagingAssetId: 9001,
        parseError: { name: 'XmlParseError', message: 'too large for the example' },
        rawXml: `<r>${'GTIN 00614141123452 '.repeat(20_000)}</r>`,
      },
    });

    // act
    await sink.publish([big]);
    const [message] = await drain(queueUrl, 1);

    // assess
    expect(message?.Body).toBe(
      `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"${BUCKET}","s3Key":"claim-check/${big.id}.json"}]`,
    );
    expect(message?.MessageAttributes?.ExtendedPayloadSize).toMatchObject({
      DataType: 'Number',
      StringValue: String(Buffer.byteLength(JSON.stringify(big))),
    });
    expect(message?.MessageAttributes?.id?.StringValue).toBe(big.id);
    const body = await resolveEventBody(message?.Body ?? '', message?.MessageAttributes, s3);
    expect(JSON.parse(body)).toEqual(big);
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `claim-check/${big.id}.json` }));
    expect(await object.Body?.transformToString()).toBe(JSON.stringify(big));
  });

  it('delivers an event whose data holds characters SQS refuses, and it reads back equal', async () => {
    // prepare: U+FFFE and U+FFFF (not XML characters, but a PDS may still send them), a control
    // character, a lone surrogate and an emoji (above U+FFFF), in the data and in the subject
    const queueUrl = await createQueue('pds-events-awkward');
    const sink = new SqsEventPublisher({ sqs, queueUrl: () => queueUrl });
    const awkward = 'a\uFFFEb\uFFFFc\u0001d\uD800e😀f';
    const asset = createEvent({
      type: 'pds.messaging-asset.received',
      subject: 'messaging-asset/77',
      idParts: [77],
      data: {
        messagingAssetId: 77,
        parseError: { name: 'XmlParseError', message: `unexpected ${awkward}` },
        rawXml: `<r>${awkward}</r>`,
      },
    });
    const ingest = createEvent({
      type: 'pds.ingest.failed',
      subject: 's3://drops/incoming/😀 items.csv',
      idParts: ['drops', 'incoming/😀 items.csv'],
      data: {
        bucket: 'drops',
        key: 'incoming/😀 items.csv',
        code: 'rejected',
        reason: 'refused by the test',
        retryable: false,
      },
    });

    // act
    await sink.publish([asset, ingest]);
    const received = await drain(queueUrl, 2);

    // assess
    const byId = new Map(received.map((message) => [message.MessageAttributes?.id?.StringValue, message]));
    expect(JSON.parse(byId.get(asset.id)?.Body ?? '')).toEqual(asset);
    expect(JSON.parse(byId.get(ingest.id)?.Body ?? '')).toEqual(ingest);
  });

  it('delivers a claim-checked event whose data holds characters SQS refuses', async () => {
    // prepare
    const queueUrl = await createQueue('pds-events-awkward-large');
    const sink = new SqsEventPublisher({ sqs, queueUrl: () => queueUrl, claimCheck: { s3, bucket: BUCKET } });
    const big = createEvent({
      type: 'pds.messaging-asset.received',
      subject: 'messaging-asset/9002',
      idParts: [9002],
      data: {
        messagingAssetId: 9002,
        parseError: { name: 'XmlParseError', message: 'too large for the example' },
        rawXml: `<r>${'GTIN \uFFFE 😀 '.repeat(30_000)}</r>`,
      },
    });

    // act
    await sink.publish([big]);
    const [message] = await drain(queueUrl, 1);

    // assess
    expect(message?.MessageAttributes?.ExtendedPayloadSize).toBeDefined();
    const body = await resolveEventBody(message?.Body ?? '', message?.MessageAttributes, s3);
    expect(JSON.parse(body)).toEqual(big);
  });

  it('groups FIFO messages by subject and lets SQS drop a resent event by its id', async () => {
    // prepare
    const queueUrl = await createQueue('pds-events.fifo', true);
    const sink = new SqsEventPublisher({ sqs, queueUrl: () => queueUrl });
    const events = [1, 2, 3].map((id) => messagingAssetEvent(id, '<note/>'));

    // act: the second publish is what a run that crashed before its checkpoint would send again
    await sink.publish(events);
    await sink.publish(events);
    const received = await drain(queueUrl, 6);

    // assess
    expect(received.map((message) => message.MessageAttributes?.id?.StringValue).sort()).toEqual(
      events.map((event) => event.id).sort(),
    );
    for (const message of received) {
      const event = JSON.parse(message.Body ?? '') as CloudEvent;
      expect(message.Attributes?.MessageGroupId).toBe(event.subject);
      expect(message.Attributes?.MessageDeduplicationId).toBe(event.id);
    }
  });
});
