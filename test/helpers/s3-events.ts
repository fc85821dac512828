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
import type { Context, S3Event, S3EventRecord, SQSEvent, SQSRecord } from 'aws-lambda';

/**
 * Encodes an object key as S3 writes it into event notifications: form encoding (space → `+`,
 * `+` → `%2B`, UTF-8 bytes as `%XX`), with `/` left as is.
 *
 * @example
 * ```ts
 * encodeS3EventKey('in/Q1 report+Ä.csv'); // 'in/Q1+report%2B%C3%84.csv'
 * ```
 */
export function encodeS3EventKey(key: string): string {
  return encodeURIComponent(key)
    .replace(/[!'()~*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%2F', '/')
    .replaceAll('%20', '+');
}

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

/** One S3 event notification record, shaped like the ones S3 sends. */
export function s3Record(input: S3RecordInput): S3EventRecord {
  sequence += 1;
  const region = input.region ?? 'us-east-1';
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: region,
    eventTime: new Date().toISOString(),
    eventName: input.eventName ?? 'ObjectCreated:Put',
    userIdentity: { principalId: 'AWS:AIDAEXAMPLE' },
    requestParameters: { sourceIPAddress: '203.0.113.10' },
    responseElements: {
      'x-amz-request-id': 'C3D13FE58DE4C810',
      'x-amz-id-2': 'FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD',
    },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'pds-bridge-ingest',
      bucket: {
        name: input.bucket,
        ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
        arn: `arn:aws:s3:::${input.bucket}`,
      },
      object: {
        key: encodeS3EventKey(input.key),
        size: input.size,
        eTag: input.etag ?? createHash('md5').update(`${input.bucket}/${input.key}`).digest('hex'),
        ...(input.versionId ? { versionId: input.versionId } : {}),
        sequencer: input.sequencer ?? `00${sequence.toString(16).toUpperCase().padStart(14, '0')}`,
      },
    },
  };
}

/** An S3 event (the direct invocation payload and the SQS message body). */
export function s3Event(records: S3EventRecord[]): S3Event {
  return { Records: records };
}

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
