/**
 * An S3 client whose object calls are answered by an in-memory bucket that enforces S3's conditional
 * writes the way S3 does (no emulator does): PutObject with If-None-Match `*` or If-Match, DeleteObject
 * with If-Match, failing with the errors the SDK raises (`PreconditionFailed` 412, `NoSuchKey` 404,
 * `ConditionalRequestConflict` 409). ETags are the MD5 of the body, as S3 gives for single-part uploads.
 *
 * `conflictsToInject` makes the next conditional PutObjects fail with 409 before touching the bucket.
 *
 * @example
 * ```ts
 * const s3 = mockConditionalS3();
 * const store = new S3StateStore({ client: s3.client, bucket: 'state' });
 * s3.injectConflicts(2); // the next two conditional puts answer 409
 * ```
 */
import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';

export interface ConditionalS3Mock {
  client: S3Client;
  stub: AwsClientStub<S3Client>;
  /** Bodies and ETags by key. */
  objects: Map<string, { body: string; etag: string; contentType: string | undefined; lastModified?: Date }>;
  /** The next `count` conditional PutObjects answer 409 ConditionalRequestConflict. */
  injectConflicts(count: number): void;
}

const METADATA = { attempts: 1, totalRetryDelay: 0 };

/** An S3 error shaped as the SDK shapes a service error. */
export function s3Error(name: string, status: number, message = name): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { ...METADATA, httpStatusCode: status },
    message,
  });
}

function bodyText(body: unknown): string {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new TypeError('the conditional S3 mock accepts string or byte bodies only');
}

/** Creates the mock; `bucket` is the only bucket that exists (others answer NoSuchBucket). */
export function mockConditionalS3(bucket = 'state'): ConditionalS3Mock {
  const client = new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const stub = mockClient(client);
  const objects: ConditionalS3Mock['objects'] = new Map();
  let conflicts = 0;
  const checkBucket = (name: string | undefined) => {
    if (name !== bucket) throw s3Error('NoSuchBucket', 404, 'The specified bucket does not exist');
  };

  stub.on(GetObjectCommand).callsFake(async (input) => {
    checkBucket(input.Bucket);
    const stored = objects.get(input.Key ?? '');
    if (!stored) {
      throw new NoSuchKey({
        $metadata: { ...METADATA, httpStatusCode: 404 },
        message: 'The specified key does not exist.',
      });
    }
    const body = { transformToString: async () => stored.body } as unknown as GetObjectCommandOutput['Body'];
    return {
      $metadata: { ...METADATA, httpStatusCode: 200 },
      ETag: stored.etag,
      Body: body,
      ContentType: stored.contentType,
    };
  });

  stub.on(PutObjectCommand).callsFake(async (input) => {
    checkBucket(input.Bucket);
    const key = input.Key ?? '';
    const conditional = input.IfMatch !== undefined || input.IfNoneMatch !== undefined;
    if (conditional && conflicts > 0) {
      conflicts -= 1;
      throw s3Error('ConditionalRequestConflict', 409, 'A conflicting operation occurred.');
    }
    const stored = objects.get(key);
    if (input.IfNoneMatch === '*' && stored) throw s3Error('PreconditionFailed', 412);
    if (input.IfMatch !== undefined) {
      if (!stored) {
        throw new NoSuchKey({
          $metadata: { ...METADATA, httpStatusCode: 404 },
          message: 'The specified key does not exist.',
        });
      }
      if (stored.etag !== input.IfMatch) throw s3Error('PreconditionFailed', 412);
    }
    const body = bodyText(input.Body);
    const etag = `"${createHash('md5').update(body).digest('hex')}"`;
    objects.set(key, { body, etag, contentType: input.ContentType, lastModified: new Date() });
    return { $metadata: { ...METADATA, httpStatusCode: 200 }, ETag: etag };
  });

  stub.on(DeleteObjectCommand).callsFake(async (input) => {
    checkBucket(input.Bucket);
    const key = input.Key ?? '';
    const stored = objects.get(key);
    if (input.IfMatch !== undefined) {
      if (!stored) {
        throw new NoSuchKey({
          $metadata: { ...METADATA, httpStatusCode: 404 },
          message: 'The specified key does not exist.',
        });
      }
      if (stored.etag !== input.IfMatch) throw s3Error('PreconditionFailed', 412);
    }
    objects.delete(key);
    return { $metadata: { ...METADATA, httpStatusCode: 204 } };
  });

  stub.on(ListObjectsV2Command).callsFake(async (input) => {
    checkBucket(input.Bucket);
    const prefix = input.Prefix ?? '';
    // As S3 does: byte order; the listing resumes after StartAfter, or after the last key of the
    // previous page (the continuation token, which takes precedence).
    const after = input.ContinuationToken ?? input.StartAfter;
    const all = [...objects.keys()]
      .filter((key) => key.startsWith(prefix))
      .filter((key) => after === undefined || Buffer.compare(Buffer.from(key), Buffer.from(after)) > 0)
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const page = all.slice(0, input.MaxKeys ?? 1000);
    const truncated = page.length < all.length;
    return {
      $metadata: { ...METADATA, httpStatusCode: 200 },
      Contents: page.map((Key) => ({
        Key,
        ETag: objects.get(Key)?.etag,
        LastModified: objects.get(Key)?.lastModified,
      })),
      KeyCount: page.length,
      IsTruncated: truncated,
      ...(truncated ? { NextContinuationToken: page.at(-1) } : {}),
    };
  });

  return {
    client,
    stub,
    objects,
    injectConflicts(count) {
      conflicts = count;
    },
  };
}
