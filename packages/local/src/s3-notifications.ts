/**
 * S3 event notifications as S3 sends them to an SQS queue for `s3:ObjectCreated:*`: the record shape
 * (event version 2.1), object keys URL-encoded the way S3 encodes them, and a sequencer that grows with
 * every write. The local stack builds these for objects dropped into the emulator, which sends no
 * notifications itself; tests build them through test/helpers/s3-events.ts.
 */
import type { S3Event, S3EventRecord } from 'aws-lambda';

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

/** What one notification record says about one object write. */
export interface S3NotificationInput {
  bucket: string;
  /** The decoded key; the builder encodes it. */
  key: string;
  size: number;
  /** The object's ETag, quoted or not (notifications carry it unquoted). */
  etag: string;
  /** Orders writes of the same key; see {@link S3Sequencer}. */
  sequencer: string;
  versionId?: string;
  /** Default `ObjectCreated:Put`; `ObjectCreated:CompleteMultipartUpload` for multipart uploads. */
  eventName?: string;
  /** Default `us-east-1`. */
  region?: string;
  /** Default now. */
  eventTime?: Date;
  /** The notification configuration's id; default `pds-bridge-ingest`. */
  configurationId?: string;
  /** Who wrote the object; default `AWS:AIDAEXAMPLE`. */
  principalId?: string;
  /** Default `127.0.0.1`. */
  sourceIp?: string;
  /** `x-amz-request-id` of the write; default a fixed example value. */
  requestId?: string;
}

/**
 * One S3 event notification record, shaped like the ones S3 sends.
 *
 * @example
 * ```ts
 * const record = s3NotificationRecord({ bucket: 'drops', key: 'in/Q1 items.csv', size: 12, etag: '"9b2c…"', sequencer });
 * record.s3.object.key; // 'in/Q1+items.csv'
 * ```
 */
export function s3NotificationRecord(input: S3NotificationInput): S3EventRecord {
  const region = input.region ?? 'us-east-1';
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: region,
    eventTime: (input.eventTime ?? new Date()).toISOString(),
    eventName: input.eventName ?? 'ObjectCreated:Put',
    userIdentity: { principalId: input.principalId ?? 'AWS:AIDAEXAMPLE' },
    requestParameters: { sourceIPAddress: input.sourceIp ?? '127.0.0.1' },
    responseElements: {
      'x-amz-request-id': input.requestId ?? 'C3D13FE58DE4C810',
      'x-amz-id-2': 'FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD',
    },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: input.configurationId ?? 'pds-bridge-ingest',
      bucket: {
        name: input.bucket,
        ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
        arn: `arn:aws:s3:::${input.bucket}`,
      },
      object: {
        key: encodeS3EventKey(input.key),
        size: input.size,
        eTag: input.etag.replace(/^"(.*)"$/, '$1'),
        ...(input.versionId ? { versionId: input.versionId } : {}),
        sequencer: input.sequencer,
      },
    },
  };
}

/**
 * An S3 event: the direct invocation payload and, JSON-encoded, the body of the SQS message S3 sends.
 *
 * @example
 * ```ts
 * await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(s3NotificationEvent([record])) }));
 * ```
 */
export function s3NotificationEvent(records: S3EventRecord[]): S3Event {
  return { Records: records };
}

/**
 * The event name S3 gives a write: multipart uploads have an ETag ending in `-<parts>`.
 *
 * @example
 * ```ts
 * objectCreatedEventName('"d41d8cd98f00b204e9800998ecf8427e-3"'); // 'ObjectCreated:CompleteMultipartUpload'
 * ```
 */
export function objectCreatedEventName(etag: string): string {
  return /-\d+"?$/.test(etag) ? 'ObjectCreated:CompleteMultipartUpload' : 'ObjectCreated:Put';
}

/** Width of a sequencer: S3's are hexadecimal strings of this length in practice. */
const SEQUENCER_DIGITS = 18;

/**
 * Hands out S3-style sequencers: fixed-width upper-case hex that grows with every call and across
 * restarts (it starts from the clock), so comparing two as strings orders the writes, as S3 promises.
 *
 * @example
 * ```ts
 * const sequencer = new S3Sequencer();
 * sequencer.next() < sequencer.next(); // true
 * ```
 */
export class S3Sequencer {
  #last = 0n;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The next sequencer, greater than every one handed out before. */
  next(): string {
    // Milliseconds shifted left leave room for 65 536 writes per millisecond before the clock moves.
    const fromClock = BigInt(this.#now()) << 16n;
    this.#last = fromClock > this.#last ? fromClock : this.#last + 1n;
    return this.#last.toString(16).toUpperCase().padStart(SEQUENCER_DIGITS, '0');
  }
}
