import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  GetQueueUrlCommand,
  QueueDoesNotExist,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetAwsClients, s3Client, sqsClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { setEnv } from '../helpers/env.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';

let aws: AwsEmulator;
let restore = () => {};

beforeAll(async () => {
  aws = await startAwsEmulator({
    buckets: ['drops'],
    queues: ['events', { name: 'work', dlq: { name: 'work-dlq', maxReceiveCount: 2 }, visibilityTimeout: 0 }],
  });
  restore = setEnv({ ...aws.env, AWS_ENDPOINT_URL_S3: undefined, AWS_ENDPOINT_URL_SQS: undefined });
  resetAwsClients();
});

afterAll(async () => {
  resetAwsClients();
  restore();
  await aws?.close();
});

describe("the Lambda runtime's AWS clients pointed at an emulator through the environment alone", () => {
  it('reach S3 through AWS_ENDPOINT_URL', async () => {
    // act
    await s3Client().send(
      new PutObjectCommand({ Bucket: 'drops', Key: 'in/a b.csv', Body: 'primaryKey__\n1\n' }),
    );
    const object = await aws.s3.send(new GetObjectCommand({ Bucket: 'drops', Key: 'in/a b.csv' }));

    // assess
    expect(await object.Body?.transformToString()).toBe('primaryKey__\n1\n');
  });

  it('deliver to a queue URL whose host does not resolve, without warning', async () => {
    // prepare: the emulator's own URL names the host sqs.<region>.localhost
    const warn = vi.spyOn(console, 'warn');
    const { QueueUrl } = await sqsClient().send(new GetQueueUrlCommand({ QueueName: 'events' }));

    // act
    await sqsClient().send(
      new SendMessageCommand({ QueueUrl, MessageBody: '{"type":"pds.ingest.completed"}' }),
    );
    const received = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.queueUrls.events }));

    // assess
    expect(new URL(QueueUrl ?? '').hostname).not.toBe('127.0.0.1');
    expect(received.Messages?.[0]?.Body).toBe('{"type":"pds.ingest.completed"}');
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('send batches with every character of their bodies kept, and name a missing queue with its typed error', async () => {
    // prepare: quotes, backslashes, characters JSON escapes, text beyond Latin-1 (packages/bridge/src/lambda/aws-clients.ts picks the JSON codec)
    const bodies = ['{"a":"\\"quoted\\" \\\\ back"}', 'tab\tline\nend', 'Grüße – 東京 ✓'];
    const missing = (aws.queueUrls.events ?? '').replace(/events$/, 'no-such-queue');

    // act
    const sent = await sqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: aws.queueUrls.events,
        Entries: bodies.map((MessageBody, index) => ({ Id: `m${index}`, MessageBody })),
      }),
    );
    const received = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: aws.queueUrls.events, MaxNumberOfMessages: 10 }),
    );
    const refused = await sqsClient()
      .send(new SendMessageCommand({ QueueUrl: missing, MessageBody: 'x' }))
      .catch((error: unknown) => error);

    // assess
    expect(sent.Successful).toHaveLength(3);
    expect(received.Messages?.map((message) => message.Body).sort()).toEqual([...bodies].sort());
    expect(refused).toBeInstanceOf(QueueDoesNotExist);
  });
});

describe('startAwsEmulator', () => {
  it('wires the dead-letter queue and message attributes', async () => {
    // prepare
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls.work,
        MessageBody: 'poison',
        MessageAttributes: { type: { DataType: 'String', StringValue: 'pds.ingest.failed' } },
      }),
    );

    // act: receive without deleting until the redrive policy moves it
    const receipts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const batch = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: aws.queueUrls.work }));
      receipts.push(batch.Messages?.length ?? 0);
    }
    const dead = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: aws.queueUrls['work-dlq'], MessageAttributeNames: ['All'] }),
    );

    // assess
    expect(receipts).toEqual([1, 1, 0]);
    expect(dead.Messages?.[0]?.Body).toBe('poison');
    expect(dead.Messages?.[0]?.MessageAttributes?.type?.StringValue).toBe('pds.ingest.failed');
  });
});
