/**
 * A local stand-in for Lambda's SQS event source mapping: long-polls a queue, hands batches to a
 * handler as an `SQSEvent`, deletes what succeeded and leaves the rest to come back after the
 * visibility timeout (and, through the queue's redrive policy, to its dead-letter queue).
 *
 * Semantics follow Lambda's with `ReportBatchItemFailures`: a handler that throws fails the whole
 * batch; one that returns `{ batchItemFailures: [{ itemIdentifier }] }` fails only those messages.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { sleep } from '@pds-bridge/bridge/core';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';

export type SqsHandler = (event: SQSEvent, context: Context) => unknown;

export interface SqsEventSourceOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** The queue's ARN, as Lambda puts it in `eventSourceARN`. */
  queueArn: string;
  handler: SqsHandler;
  /** Builds a fresh context per invocation (a new deadline each time). */
  context: () => Context;
  /** Messages per invocation; Lambda's default is 10. */
  batchSize?: number;
  /** Long-poll wait per receive, in seconds; default 1 so that stopping is quick. */
  waitTimeSeconds?: number;
  region?: string;
  /** Told about every invocation that failed as a whole, for the local stack's log. */
  onError?: (error: unknown) => void;
}

export interface RunningEventSource {
  /** Stops polling after the current batch; resolves once it is done. */
  stop(): Promise<void>;
}

/** Lambda's SQS record shape for one received message. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId
        ? { MessageDeduplicationId: attributes.MessageDeduplicationId }
        : {}),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        {
          dataType: value.DataType ?? 'String',
          ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
          ...(value.BinaryValue !== undefined
            ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
            : {}),
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

/** The message ids a handler result reports as failed; every id when the handler threw. */
function failedIds(result: unknown): Set<string> {
  const failures = (result as { batchItemFailures?: Array<{ itemIdentifier?: string }> } | undefined)
    ?.batchItemFailures;
  return new Set((failures ?? []).map((failure) => failure.itemIdentifier ?? ''));
}

/**
 * Starts delivering the queue's messages to the handler until `stop()`.
 *
 * @example
 * ```ts
 * const source = startSqsEventSource({ sqs, queueUrl, queueArn, handler, context: () => localLambdaContext() });
 * await source.stop();
 * ```
 */
export function startSqsEventSource(options: SqsEventSourceOptions): RunningEventSource {
  const region = options.region ?? 'us-east-1';
  const abort = new AbortController();
  let stopped = false;

  async function deliverOnce(): Promise<void> {
    const received = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: options.batchSize ?? 10,
        WaitTimeSeconds: options.waitTimeSeconds ?? 1,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
      { abortSignal: abort.signal },
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return;
    const event: SQSEvent = {
      Records: messages.map((message) => toSqsRecord(message, options.queueArn, region)),
    };
    let failed: Set<string>;
    try {
      failed = failedIds(await options.handler(event, options.context()));
    } catch (error) {
      options.onError?.(error);
      failed = new Set(messages.map((message) => message.MessageId ?? ''));
    }
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length > 0) {
      await options.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: done.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
  }

  const loop = (async () => {
    while (!stopped) {
      try {
        await deliverOnce();
      } catch (error) {
        if (stopped) break;
        options.onError?.(error);
        // The emulator went away or refused: back off instead of spinning.
        await sleep(500);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      abort.abort();
      await loop;
    },
  };
}
