import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectTaggingCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ObjectSourceError } from '../../packages/bridge/src/ingest/errors.ts';
import { S3ObjectSource, S3ObjectTagger } from '../../packages/bridge/src/ingest/s3/adapters.ts';
import { mergeTags } from '../../packages/bridge/src/ingest/tags.ts';
import { s3Error } from '../helpers/s3-conditional-mock.ts';

const client = new S3Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const s3 = mockClient(client);
const METADATA = { httpStatusCode: 200, attempts: 1, totalRetryDelay: 0 };

afterEach(() => s3.reset());

function body(text: string): GetObjectCommandOutput['Body'] {
  return Readable.from([Buffer.from(text)]) as unknown as GetObjectCommandOutput['Body'];
}

async function read(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('S3ObjectSource', () => {
  it('reads exactly the announced version of a versioned object', async () => {
    s3.on(GetObjectCommand).resolves({
      $metadata: METADATA,
      Body: body('abc'),
      ContentLength: 3,
      ContentType: 'text/csv',
    });

    const opened = await new S3ObjectSource(client).open({
      bucket: 'drops',
      key: 'a b.csv',
      versionId: 'v1',
      etag: 'e1',
    });

    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Key: 'a b.csv',
      VersionId: 'v1',
    });
    expect(opened.size).toBe(3);
    expect(opened.contentType).toBe('text/csv');
    expect(await read(opened.stream)).toBe('abc');
  });

  it('reads an unversioned object only while it still has the announced ETag', async () => {
    s3.on(GetObjectCommand).resolves({ $metadata: METADATA, Body: body(''), ContentLength: 0 });

    await new S3ObjectSource(client).open({ bucket: 'drops', key: 'k', etag: '9b2c' });

    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Key: 'k',
      IfMatch: '"9b2c"',
    });
  });

  it.each([
    ['NoSuchKey', 404, 'gone', false],
    ['NoSuchVersion', 404, 'gone', false],
    ['PreconditionFailed', 412, 'superseded', false],
    ['InvalidObjectState', 403, 'archived', false],
    ['AccessDenied', 403, 'unavailable', true],
    ['SlowDown', 503, 'unavailable', true],
    ['InternalError', 500, 'unavailable', true],
  ])('maps %s (%i) to %s, retryable %s', async (name, status, problem, retryable) => {
    s3.on(GetObjectCommand).rejects(s3Error(name, status));
    // The key is still there: a 403 is a real denial.
    s3.on(ListObjectsV2Command).resolves({ $metadata: METADATA, Contents: [{ Key: 'k' }] });

    const error = await new S3ObjectSource(client)
      .open({ bucket: 'drops', key: 'k', etag: 'e' })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ObjectSourceError);
    expect(error).toMatchObject({ problem, retryable, bucket: 'drops', key: 'k' });
    expect((error as Error).message).toContain(name);
  });
});

describe('S3ObjectSource answered 403 (ListBucket narrowed by s3:prefix)', () => {
  it('reports a key no longer listed as gone, having listed exactly that key', async () => {
    // prepare: another key starts with it, and is not it
    s3.on(GetObjectCommand).rejects(s3Error('AccessDenied', 403));
    s3.on(ListObjectsV2Command).resolves({ $metadata: METADATA, Contents: [{ Key: 'in/k.csv.bak' }] });

    // act
    const error = await new S3ObjectSource(client)
      .open({ bucket: 'drops', key: 'in/k.csv', versionId: 'v1' })
      .catch((e: unknown) => e);

    // assess
    expect(error).toMatchObject({ problem: 'gone', retryable: false });
    expect(s3.commandCalls(ListObjectsV2Command)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Prefix: 'in/k.csv',
      MaxKeys: 1,
    });
  });

  it('names the missing ListBucket grant when the listing is denied too', async () => {
    // prepare
    s3.on(GetObjectCommand).rejects(s3Error('AccessDenied', 403));
    s3.on(ListObjectsV2Command).rejects(s3Error('AccessDenied', 403));

    // act
    const error = await new S3ObjectSource(client)
      .open({ bucket: 'drops', key: 'in/k.csv' })
      .catch((e: unknown) => e);

    // assess
    expect(error).toMatchObject({ problem: 'unavailable', retryable: true });
    expect((error as Error).message).toContain(
      'grant s3:ListBucket on the bucket drops with a StringLike s3:prefix condition covering the ingest prefix',
    );
  });
});

describe('S3ObjectTagger', () => {
  const tags = { 'pds-gathering-key': 'g-1', 'pds-ingest-outcome': 'imported' };

  it("merges the ingest tags into the version's own tags", async () => {
    s3.on(GetObjectTaggingCommand).resolves({
      $metadata: METADATA,
      TagSet: [
        { Key: 'team', Value: 'buying' },
        { Key: 'pds-ingest-outcome', Value: 'failed' },
      ],
    });
    s3.on(PutObjectTaggingCommand).resolves({ $metadata: METADATA });

    const result = await new S3ObjectTagger(client).tag(
      { bucket: 'drops', key: 'k', versionId: 'v1', etag: 'e' },
      tags,
    );

    expect(result).toEqual({ tagged: true });
    expect(s3.commandCalls(HeadObjectCommand)).toHaveLength(0);
    expect(s3.commandCalls(GetObjectTaggingCommand)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Key: 'k',
      VersionId: 'v1',
    });
    expect(s3.commandCalls(PutObjectTaggingCommand)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Key: 'k',
      VersionId: 'v1',
      Tagging: {
        TagSet: [
          { Key: 'team', Value: 'buying' },
          { Key: 'pds-gathering-key', Value: 'g-1' },
          { Key: 'pds-ingest-outcome', Value: 'imported' },
        ],
      },
    });
  });

  it('checks that an unversioned object is still the announced write before tagging it', async () => {
    s3.on(HeadObjectCommand).rejects(s3Error('PreconditionFailed', 412));

    const result = await new S3ObjectTagger(client).tag({ bucket: 'drops', key: 'k', etag: 'e1' }, tags);

    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'drops',
      Key: 'k',
      IfMatch: '"e1"',
    });
    expect(result).toEqual({ tagged: false, reason: expect.stringContaining('replaced by a newer upload') });
    expect(s3.commandCalls(PutObjectTaggingCommand)).toHaveLength(0);
  });

  it("writes nothing when the owner's tags leave no room within S3's limit of ten", async () => {
    s3.on(HeadObjectCommand).resolves({ $metadata: METADATA });
    s3.on(GetObjectTaggingCommand).resolves({
      $metadata: METADATA,
      TagSet: Array.from({ length: 9 }, (_, i) => ({ Key: `t${i}`, Value: 'v' })),
    });

    const result = await new S3ObjectTagger(client).tag({ bucket: 'drops', key: 'k', etag: 'e1' }, tags);

    expect(result).toEqual({
      tagged: false,
      reason: expect.stringContaining('carries 9 tags of its own and S3 allows 10'),
    });
    expect(s3.commandCalls(PutObjectTaggingCommand)).toHaveLength(0);
  });

  it('reports a refused tagging instead of failing the ingest', async () => {
    s3.on(GetObjectTaggingCommand).resolves({ $metadata: METADATA, TagSet: [] });
    s3.on(PutObjectTaggingCommand).rejects(s3Error('AccessDenied', 403));

    const result = await new S3ObjectTagger(client).tag({ bucket: 'drops', key: 'k', versionId: 'v1' }, tags);

    expect(result).toEqual({ tagged: false, reason: expect.stringContaining('s3:PutObjectTagging') });
  });

  it('throws a retryable error when S3 is unavailable', async () => {
    s3.on(GetObjectTaggingCommand).rejects(s3Error('ServiceUnavailable', 503));

    const error = await new S3ObjectTagger(client)
      .tag({ bucket: 'drops', key: 'k', versionId: 'v1' }, tags)
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'ObjectSourceError', retryable: true });
  });
});

describe('mergeTags', () => {
  it('replaces only the keys it writes and keeps the order of the others', () => {
    expect(
      mergeTags(
        [
          { Key: 'a', Value: '1' },
          { Key: 'b', Value: '2' },
        ],
        { b: '3', c: '4' },
      ),
    ).toEqual([
      { Key: 'a', Value: '1' },
      { Key: 'b', Value: '3' },
      { Key: 'c', Value: '4' },
    ]);
  });
});
