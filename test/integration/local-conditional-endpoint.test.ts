/**
 * The local stack's S3+SQS endpoint (fauxqs behind the conditional endpoint, as `startEmulator`
 * wires them), over HTTP with the AWS SDK: S3's conditional writes hold there, atomically, while
 * everything else passes through unchanged.
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { startConditionalEndpoint } from '../../packages/local/src/conditional-endpoint.ts';
import { useLocalEndpoint } from '../helpers/local-endpoint.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

const local = useLocalEndpoint();

/** A fresh, empty bucket. */
const newBucket = () => local.newBucket('conditional');

async function read(bucket: string, key: string): Promise<string> {
  const object = await local.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

/** The SDK's error name and HTTP status of a failed call. */
async function failureOf(call: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await call;
  } catch (error) {
    const failure = error as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: failure.name, status: failure.$metadata?.httpStatusCode };
  }
  throw new Error('the call succeeded');
}

// Listings in byte order, paged in pages of 7 (fauxqs's order corrected by packages/local/src/fauxqs-listing.ts).
describeStateStoreBehaviour(
  'S3StateStore against the local stack endpoint',
  () => new S3StateStore({ client: local.s3, bucket: newBucket(), listPageSize: 7 }),
  { conditional: true, atomic: true },
);

describe("the local stack's S3 endpoint", () => {
  it('refuses a create over an existing object with 412 PreconditionFailed and keeps the object', async () => {
    // prepare
    const bucket = newBucket();
    await local.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'first', IfNoneMatch: '*' }),
    );

    // act
    const failure = await failureOf(
      local.s3.send(
        new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'second', IfNoneMatch: '*' }),
      ),
    );

    // assess
    expect(failure).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await read(bucket, 'a.json')).toBe('first');
  });

  it('lets exactly one of many simultaneous creates of one key win, and keeps what the winner wrote', async () => {
    // prepare
    const bucket = newBucket();
    const bodies = Array.from({ length: 8 }, (_, i) => `writer ${i}`);

    // act
    const results = await Promise.allSettled(
      bodies.map((body) =>
        local.s3.send(
          new PutObjectCommand({ Bucket: bucket, Key: 'race.json', Body: body, IfNoneMatch: '*' }),
        ),
      ),
    );

    // assess
    const winners = bodies.filter((_, i) => results[i]?.status === 'fulfilled');
    const losers = results.filter((result) => result.status === 'rejected');
    expect(winners).toHaveLength(1);
    for (const loser of losers) expect((loser.reason as Error).name).toBe('PreconditionFailed');
    expect(await read(bucket, 'race.json')).toBe(winners[0]);
  });

  it('writes at the current ETag and refuses a stale one with 412', async () => {
    // prepare
    const bucket = newBucket();
    const first = await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'v1' }));
    const second = await local.s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'v2', IfMatch: first.ETag }),
    );

    // act
    const stale = await failureOf(
      local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'v3', IfMatch: first.ETag })),
    );

    // assess
    expect(second.ETag).not.toBe(first.ETag);
    expect(stale).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await read(bucket, 'a.json')).toBe('v2');
  });

  it('answers 404 NoSuchKey to a write at an ETag of a key that holds nothing, and NoSuchBucket without the bucket', async () => {
    // prepare
    const bucket = newBucket();

    // act
    const noKey = await failureOf(
      local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'gone.json', Body: 'x', IfMatch: '"abc"' })),
    );
    const noBucket = await failureOf(
      local.s3.send(
        new PutObjectCommand({ Bucket: 'no-such-bucket', Key: 'a.json', Body: 'x', IfMatch: '"abc"' }),
      ),
    );

    // assess
    expect(noKey).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(noBucket).toMatchObject({ name: 'NoSuchBucket', status: 404 });
  });

  it('keeps an object whose ETag changed when deleting conditionally, and deletes it at the current ETag', async () => {
    // prepare
    const bucket = newBucket();
    const first = await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'v1' }));
    const second = await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: 'v2' }));

    // act
    const stale = await failureOf(
      local.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'a.json', IfMatch: first.ETag })),
    );
    const kept = await read(bucket, 'a.json');
    await local.s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'a.json', IfMatch: second.ETag }));

    // assess
    expect(stale).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(kept).toBe('v2');
    expect(await failureOf(read(bucket, 'a.json'))).toMatchObject({ name: 'NoSuchKey' });
  });

  it('refuses to complete a multipart upload over an existing key with If-None-Match', async () => {
    // prepare
    const bucket = newBucket();
    await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'big.bin', Body: 'first' }));
    const upload = await local.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'big.bin' }));
    const part = await local.s3.send(
      new UploadPartCommand({
        Bucket: bucket,
        Key: 'big.bin',
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: 'second',
      }),
    );

    // act
    const failure = await failureOf(
      local.s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: bucket,
          Key: 'big.bin',
          UploadId: upload.UploadId,
          MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
          IfNoneMatch: '*',
        }),
      ),
    );

    // assess
    expect(failure).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await read(bucket, 'big.bin')).toBe('first');
  });

  it('passes unconditional objects and SQS messages through unchanged', async () => {
    // prepare
    const bucket = newBucket();
    const body = Buffer.alloc(3 * 1024 * 1024, 'pds-bridge ');
    const queue = local.emulator.server.createQueue('pass-through');
    const queueUrl = `${local.emulator.endpoint}/000000000000/pass-through`;
    const sqs = new SQSClient({
      endpoint: local.emulator.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });

    // act
    await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'in/big file.bin', Body: body }));
    const object = await local.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'in/big file.bin' }));
    const stored = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello' }));
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));
    sqs.destroy();

    // assess
    expect(stored.equals(body)).toBe(true);
    expect(queue.queueName).toBe('pass-through');
    expect(received.Messages?.map((message) => message.Body)).toEqual(['hello']);
  });
});

describe('the conditional endpoint in front of an emulator that misbehaves', () => {
  it('still carries out the next write of a key after the answer to the previous one was cut short', async () => {
    // prepare
    let requests = 0;
    const upstream = http.createServer((request, response) => {
      requests += 1;
      request.resume();
      if (requests === 1) {
        response.writeHead(200, { 'content-length': '100' });
        // Headers and the first bytes out, then the connection dies before the promised 100 bytes.
        response.write('cut', () => response.socket?.destroy());
        return;
      }
      response.writeHead(200, { etag: '"e2"' }).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const front = await startConditionalEndpoint({
      upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      port: 0,
    });

    // act
    const first = await fetch(`${front.endpoint}/state/a.json`, { method: 'PUT', body: 'v1' })
      .then((response) => response.text())
      .catch((error: unknown) => error);
    const second = await fetch(`${front.endpoint}/state/a.json`, { method: 'PUT', body: 'v2' });
    await front.close();
    await new Promise((resolve) => upstream.close(resolve));

    // assess
    expect(first).toBeInstanceOf(Error); // the client sees its answer cut short too
    expect(second.status).toBe(200);
    expect(second.headers.get('etag')).toBe('"e2"');
  });

  it('answers 500 InternalError in S3 XML, naming the fix, when the emulator does not answer', async () => {
    // prepare
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((resolve) => gone.close(resolve));
    const front = await startConditionalEndpoint({ upstream: `http://127.0.0.1:${port}`, port: 0 });

    // act
    const answer = await fetch(`${front.endpoint}/state/a.json`, {
      method: 'PUT',
      body: 'v1',
      headers: { 'if-none-match': '*' },
    });
    const body = await answer.text();
    await front.close();

    // assess
    expect(answer.status).toBe(500);
    expect(body).toContain('<Code>InternalError</Code>');
    expect(body).toContain('restart the stack');
  });
});

describe('browsers', () => {
  /** A raw request to the emulator with the given headers: its status and whether the object survived. */
  async function deleteFrom(headers: Record<string, string>): Promise<{ status: number; survived: boolean }> {
    const bucket = newBucket();
    await local.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'k', Body: 'kept' }));
    const url = new URL(`${local.emulator.endpoint}/${bucket}/k`);
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'DELETE', headers },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end();
    });
    const survived = await read(bucket, 'k').then(
      (text) => text === 'kept',
      () => false,
    );
    return { status, survived };
  }

  it('refuses a request from a web page (a foreign Origin, or Sec-Fetch-Site cross-site) and changes nothing', async () => {
    // act
    const fromPage = await deleteFrom({ origin: 'https://attacker.example' });
    const crossSite = await deleteFrom({ 'sec-fetch-site': 'cross-site' });
    const tool = await deleteFrom({});

    // assess
    expect(fromPage).toEqual({ status: 403, survived: true });
    expect(crossSite).toEqual({ status: 403, survived: true });
    expect(tool).toEqual({ status: 204, survived: false });
  });
});
