/**
 * Factories for the pollers' tests: a Lambda context, the Lambda SQS event built from received
 * messages, an approved supplier review for the simulator, and a queue drain for integration tests against fauxqs. The PDS and event sink fakes are
 * the shared ones (fake-pds.ts, event-sink.ts).
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import type { NewSupplierReview } from '../../packages/simulator/src/index.ts';

/** An approved review of `primaryKey` as a data pool sends it, for `sim.state.addSupplierReview`. */
export function approvedReview(
  primaryKey: string,
  changes: Partial<NewSupplierReview> = {},
): NewSupplierReview {
  return {
    primaryKey,
    supplierId: '0614141000012',
    channelId: 'gdsn-de',
    supplier: 'Demo Supplier GmbH',
    reviewer: 'Demo Retail DE',
    reviewStatus: 'APPROVED',
    date: 1_767_603_600_000,
    comment: '',
    messagingCreatorType: 'REVIEW',
    ...changes,
  };
}

/** A Lambda context with a fixed remaining time. */
export function lambdaContext(remainingMs = 60_000, requestId = 'req-1'): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'pds-bridge-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pds-bridge-test',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/pds-bridge-test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The SQS event Lambda would deliver for messages received from a queue. */
export function sqsEventFrom(messages: readonly Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: 'AIDATEST',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

/**
 * Receives (and deletes) messages until `expected` arrived or the queue stayed empty `emptyRounds`
 * times in a row; bounded to 200 receives.
 */
export async function drainQueue(
  sqs: SQSClient,
  queueUrl: string,
  options: { expected?: number; emptyRounds?: number; keep?: boolean } = {},
): Promise<Message[]> {
  const expected = options.expected ?? Number.POSITIVE_INFINITY;
  const emptyRounds = options.emptyRounds ?? 2;
  const received: Message[] = [];
  for (
    let empty = 0, rounds = 0;
    received.length < expected && empty < emptyRounds && rounds < 200;
    rounds++
  ) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        WaitTimeSeconds: empty === 0 && received.length === 0 ? 1 : 0,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) {
      empty++;
      continue;
    }
    empty = 0;
    received.push(...messages);
    if (!options.keep) {
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
