/**
 * Factories for the events the ingest function receives: S3 event notification records (keys
 * URL-encoded the way S3 encodes them), S3 events, the `s3:TestEvent`, and SQS records and events
 * carrying them, as Lambda delivers them.
 *
 * @example
 * ```ts
 * const event = sqsEvent([sqsRecord(s3Event([s3Record({ bucket: 'drops', key: 'in/Q1 items.csv', size: 12 })]))]);
 * const response = await handler(event, lambdaContext());
 * ```
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Context, S3EventRecord, SQSEvent, SQSRecord } from 'aws-lambda';
import {
  encodeS3EventKey,
  s3NotificationEvent,
  s3NotificationRecord,
} from '../../packages/local/src/s3-notifications.ts';

export { encodeS3EventKey };

export interface S3RecordInput {
  bucket: string;
  /** The decoded key; the factory encodes it. */
  key: string;
  size: number;
  /** Unquoted; defaults to a hash of bucket and key. */
  etag?: string;
  versionId?: string;
  /** Defaults to a fresh, increasing hex value (each call is a new write). */
  sequencer?: string;
  /** Defaults to `ObjectCreated:Put`. */
  eventName?: string;
  region?: string;
}

let sequence = 0x1000;

/** One S3 event notification record, shaped like the ones S3 sends (packages/local/src/s3-notifications.ts). */
export function s3Record(input: S3RecordInput): S3EventRecord {
  sequence += 1;
  return s3NotificationRecord({
    ...input,
    etag: input.etag ?? createHash('md5').update(`${input.bucket}/${input.key}`).digest('hex'),
    sequencer: input.sequencer ?? `00${sequence.toString(16).toUpperCase().padStart(14, '0')}`,
    sourceIp: '203.0.113.10',
  });
}

/** An S3 event (the direct invocation payload and the SQS message body). */
export const s3Event = s3NotificationEvent;

/** The `s3:TestEvent` S3 sends when a notification is configured. */
export function s3TestEvent(bucket: string): Record<string, string> {
  return {
    Service: 'Amazon S3',
    Event: 's3:TestEvent',
    Time: new Date().toISOString(),
    Bucket: bucket,
    RequestId: '5582815E1AEA5ADF',
    HostId: '8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE',
  };
}

export interface SqsRecordOptions {
  messageId?: string;
  /** ApproximateReceiveCount; default 1. */
  receiveCount?: number;
  queueArn?: string;
}

/** An SQS record as Lambda delivers it; `body` is JSON-encoded unless it is a string already. */
export function sqsRecord(body: unknown, options: SqsRecordOptions = {}): SQSRecord {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const now = String(Date.now());
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `AQEB${randomUUID().replaceAll('-', '')}`,
    body: text,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: now,
      SenderId: 'AIDAIENQZJOLO23YVJ4VO',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(text).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: options.queueArn ?? 'arn:aws:sqs:us-east-1:000000000000:pds-bridge-ingest',
    awsRegion: 'us-east-1',
  };
}

/** An SQS event with the given records. */
export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A Lambda context with the given remaining time. */
export function lambdaContext(overrides: Partial<Context> = {}, remainingMs = 900_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'pds-bridge-test-ingest',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pds-bridge-test-ingest',
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: '/aws/lambda/pds-bridge-test-ingest',
    logStreamName: '2026/01/01/[$LATEST]test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
    ...overrides,
  };
}
