import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDelaySeconds } from '../../packages/bridge/src/ingest/retry-delay.ts';
import { delayFailedRecords, QueueUrlLookup } from '../../packages/bridge/src/ingest/sqs/retry-delay.ts';
import { toSqsRecord } from '../../packages/local/src/sqs-event-source.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';

describe('retryDelaySeconds', () => {
  it('doubles per receive from the base and stops at the cap', () => {
    const policy = { baseSeconds: 30, maxSeconds: 900 };
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((count) => retryDelaySeconds(count, policy))).toEqual([
      30, 60, 120, 240, 480, 900, 900, 900,
    ]);
    expect(retryDelaySeconds(0, policy)).toBe(30);
  });
});

describe('delayFailedRecords against the S3+SQS emulator', () => {
  let aws: AwsEmulator;

  beforeAll(async () => {
    aws = await startAwsEmulator({ queues: [{ name: 'work', visibilityTimeout: 120 }] });
  });

  afterAll(async () => {
    await aws.close();
  });

  async function receive(waitTimeSeconds: number) {
    const answer = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.queueUrls.work,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    return answer.Messages ?? [];
  }

  it('brings back only the failed message after its short delay, not after the queue timeout', async () => {
    // Prepare
    for (const body of ['ok', 'fails']) {
      await aws.sqs.send(new SendMessageCommand({ QueueUrl: aws.queueUrls.work, MessageBody: body }));
    }
    const messages = await receive(1);
    expect(messages).toHaveLength(2);
    const event: SQSEvent = {
      Records: messages.map((message) => toSqsRecord(message, aws.queueArns.work as string, aws.region)),
    };
    const failed = event.Records.find((record) => record.body === 'fails');

    // Act
    const delayed = await delayFailedRecords(
      event,
      { batchItemFailures: [{ itemIdentifier: failed?.messageId ?? '' }] },
      { sqs: aws.sqs, queues: new QueueUrlLookup(aws.sqs), policy: { baseSeconds: 1, maxSeconds: 5 } },
    );
    const again = await receive(5);

    // Assess
    expect(delayed).toBe(1);
    expect(again.map((message) => message.Body)).toEqual(['fails']);
    expect(again[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
  });

  it('changes nothing when no record failed', async () => {
    const delayed = await delayFailedRecords(
      { Records: [] },
      { batchItemFailures: [] },
      { sqs: aws.sqs, queues: new QueueUrlLookup(aws.sqs) },
    );
    expect(delayed).toBe(0);
  });
});
