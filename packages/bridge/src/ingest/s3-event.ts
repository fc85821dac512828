/**
 * Reading S3 event notifications: the body of an SQS message (S3 → SQS, optionally through SNS) or a
 * plain S3 event (direct invocation), turned into the object writes to ingest.
 *
 * S3 writes the object key URL-encoded the way HTML forms are: a space is `+`, everything else that is
 * not plain ASCII is `%XX` (UTF-8 bytes), so a literal `+` arrives as `%2B`. {@link decodeS3Key} undoes
 * exactly that. `s3:TestEvent` (sent when a notification is configured) and records that are not
 * `ObjectCreated:*` carry no object to ingest; they are reported, not treated as errors.
 */
import { parseJsonOr } from '../core/index.ts';
import { once } from '../core/lazy.ts';
import * as z from '../core/zod.ts';
import { IngestEventError } from './errors.ts';
import type { ObjectWrite } from './keys.ts';

/** One object write announced by an S3 `ObjectCreated:*` record, key decoded. */
export interface ObjectWriteEvent extends ObjectWrite {
  /** The decoded object key. */
  key: string;
  /** Unquoted ETag, as S3 events carry it. */
  etag?: string;
  /** Bytes, as the event states them. */
  size: number;
  /** e.g. `ObjectCreated:Put`. */
  eventName: string;
  eventTime?: string;
}

/** A record that names no object write to ingest (another event type), and why. */
export interface IgnoredS3Record {
  eventName: string;
  bucket?: string;
  key?: string;
  reason: string;
}

/** What one notification holds. */
export type S3Notification =
  /** `s3:TestEvent`: S3 checking that it may send to the queue. */
  | { kind: 'test'; bucket?: string }
  | { kind: 'records'; writes: ObjectWriteEvent[]; ignored: IgnoredS3Record[] };

/** Built on first use (packages/bridge/src/core/lazy.ts). */
const recordSchema = once(() => {
  const text = z.string().check(z.minLength(1));
  return z.looseObject({
    eventSource: z.literal('aws:s3'),
    eventName: text,
    eventTime: z.optional(z.string()),
    s3: z.looseObject({
      bucket: z.looseObject({ name: text }),
      object: z.looseObject({
        key: z.string(),
        size: z.optional(z.number().check(z.int(), z.gte(0))),
        eTag: z.optional(z.string()),
        versionId: z.optional(z.string()),
        sequencer: z.optional(z.string()),
      }),
    }),
  });
});

/**
 * Decodes an S3 event key: `+` is a space, then percent-decoding (UTF-8).
 *
 * @throws IngestEventError when the key is not valid percent-encoding
 * @example
 * ```ts
 * decodeS3Key('incoming/Q1+report%2B%C3%84.csv'); // 'incoming/Q1 report+Ä.csv'
 * ```
 */
export function decodeS3Key(encoded: string): string {
  try {
    return decodeURIComponent(encoded.replaceAll('+', ' '));
  } catch (error) {
    throw new IngestEventError(
      `the object key ${JSON.stringify(encoded.slice(0, 200))} is not valid URL encoding (${(error as Error).message})`,
      { cause: error },
    );
  }
}

/**
 * Reads the body of an SQS message sent by an S3 notification (directly, or wrapped in an SNS
 * notification envelope).
 *
 * @throws IngestEventError when the body is not JSON or not an S3 event notification
 * @example
 * ```ts
 * const notification = parseS3NotificationBody(record.body);
 * if (notification.kind === 'records') for (const write of notification.writes) { ... }
 * ```
 */
export function parseS3NotificationBody(body: string): S3Notification {
  const value = parseJsonOr(
    body,
    (cause) =>
      new IngestEventError(
        `the message body is not JSON (${body.length} characters, starting ${JSON.stringify(body.slice(0, 40))})`,
        { cause },
      ),
  );
  // S3 → SNS → SQS without raw message delivery: the S3 event is the envelope's Message text.
  if (isRecord(value) && value.Type === 'Notification' && typeof value.Message === 'string') {
    return parseS3NotificationBody(value.Message);
  }
  return parseS3Event(value);
}

/**
 * Reads an S3 event object (the direct invocation payload, or a parsed message body).
 *
 * @throws IngestEventError when it is not an S3 event notification
 */
export function parseS3Event(value: unknown): S3Notification {
  if (!isRecord(value)) {
    throw new IngestEventError(`got ${value === null ? 'null' : typeof value} instead of an object`);
  }
  if (value.Event === 's3:TestEvent') {
    return { kind: 'test', ...(typeof value.Bucket === 'string' ? { bucket: value.Bucket } : {}) };
  }
  if (!Array.isArray(value.Records)) {
    throw new IngestEventError(
      `it has no Records array (keys: ${Object.keys(value).slice(0, 10).join(', ') || 'none'})`,
    );
  }
  const writes: ObjectWriteEvent[] = [];
  const ignored: IgnoredS3Record[] = [];
  value.Records.forEach((raw, index) => {
    const parsed = recordSchema().safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.join('.') || '(record)'}: ${issue.message}`)
        .join('; ');
      throw new IngestEventError(`Records[${index}] is not an S3 event record (${issues})`);
    }
    const record = parsed.data;
    const bucket = record.s3.bucket.name;
    const key = decodeS3Key(record.s3.object.key);
    if (!record.eventName.startsWith('ObjectCreated:')) {
      ignored.push({ eventName: record.eventName, bucket, key, reason: 'not an ObjectCreated event' });
      return;
    }
    writes.push(toWrite(record, bucket, key, index));
  });
  return { kind: 'records', writes, ignored };
}

function toWrite(
  record: z.infer<ReturnType<typeof recordSchema>>,
  bucket: string,
  key: string,
  index: number,
): ObjectWriteEvent {
  const object = record.s3.object;
  // A version id of "null" names the unversioned slot, which the next upload overwrites: identify by ETag.
  const versionId = object.versionId && object.versionId !== 'null' ? object.versionId : undefined;
  const etag = object.eTag ? object.eTag.replace(/^"(.*)"$/, '$1') : undefined;
  if (key === '') throw new IngestEventError(`Records[${index}] has an empty object key`);
  if (!versionId && !etag) {
    throw new IngestEventError(
      `Records[${index}] (s3://${bucket}/${key}) has neither s3.object.versionId nor s3.object.eTag, so the write cannot be identified`,
    );
  }
  if (object.size === undefined) {
    throw new IngestEventError(`Records[${index}] (s3://${bucket}/${key}) has no s3.object.size`);
  }
  return {
    bucket,
    key,
    ...(versionId ? { versionId } : {}),
    ...(etag ? { etag } : {}),
    ...(object.sequencer ? { sequencer: object.sequencer } : {}),
    size: object.size,
    eventName: record.eventName,
    ...(record.eventTime ? { eventTime: record.eventTime } : {}),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The field of a write that is not well-formed Unicode (holds a lone UTF-16 surrogate), or undefined.
 * Such text parses as JSON but cannot be encoded as UTF-8: no state key, S3 request or PDS request
 * can be built from it, so the write is refused where it enters (./notification.ts).
 *
 * @example
 * ```ts
 * unencodableField({ bucket: 'drops', key: 'in/a.csv', etag: '\ud800', size: 1, eventName: 'ObjectCreated:Put' }); // 'etag'
 * ```
 */
export function unencodableField(write: ObjectWriteEvent): string | undefined {
  const fields = ['bucket', 'key', 'versionId', 'etag', 'sequencer', 'eventName', 'eventTime'] as const;
  return fields.find((field) => {
    const value = write[field];
    return typeof value === 'string' && !value.isWellFormed();
  });
}
