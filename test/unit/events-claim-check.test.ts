import { GetObjectCommand, type GetObjectCommandOutput, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { formatPayloadPointer, parsePayloadPointer } from '../../packages/bridge/src/events/claim-check.ts';
import { ClaimCheckError } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody } from '../../packages/bridge/src/events/sqs/index.ts';

const s3Mock = mockClient(S3Client);
const s3 = new S3Client({ region: 'us-east-1' });

/** An S3 body as the SDK returns it, reduced to the method the reader uses. */
const stored = (text: string) =>
  ({ transformToString: async () => text }) as unknown as GetObjectCommandOutput['Body'];

afterEach(() => s3Mock.reset());

describe('parsePayloadPointer', () => {
  it('reads the pointer it writes, in the extended clients’ format', () => {
    // act
    const body = formatPayloadPointer({ s3BucketName: 'state', s3Key: 'claim-check/x.json' });

    // assess
    expect(body).toBe(
      '["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"state","s3Key":"claim-check/x.json"}]',
    );
    expect(parsePayloadPointer(body)).toEqual({ s3BucketName: 'state', s3Key: 'claim-check/x.json' });
  });

  it('reads the older Java class name and the bare object form', () => {
    expect(
      parsePayloadPointer(
        '["com.amazon.sqs.javamessaging.MessageS3Pointer",{"s3BucketName":"b","s3Key":"k"}]',
      ),
    ).toEqual({ s3BucketName: 'b', s3Key: 'k' });
    expect(parsePayloadPointer('{"s3BucketName":"b","s3Key":"k"}')).toEqual({
      s3BucketName: 'b',
      s3Key: 'k',
    });
  });

  it.each([
    ['a CloudEvent', '{"specversion":"1.0","id":"x"}'],
    ['another class', '["com.example.Pointer",{"s3BucketName":"b","s3Key":"k"}]'],
    [
      'an empty key',
      '["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"b","s3Key":""}]',
    ],
    ['plain text', 'hello'],
    ['broken JSON', '["software.amazon'],
  ])('does not mistake %s for a pointer', (_label, body) => {
    expect(parsePayloadPointer(body)).toBeUndefined();
  });
});

describe('resolveEventBody', () => {
  it('returns an inline body unchanged without touching S3', async () => {
    // act
    const body = await resolveEventBody('{"id":"1"}', { type: { DataType: 'String', StringValue: 't' } }, s3);

    // assess
    expect(body).toBe('{"id":"1"}');
    expect(s3Mock.calls()).toHaveLength(0);
  });

  it('follows a pointer to the stored body', async () => {
    // prepare
    s3Mock
      .on(GetObjectCommand, { Bucket: 'state', Key: 'claim-check/e.json' })
      .resolves({ Body: stored('{"id":"e"}') });
    const pointer = formatPayloadPointer({ s3BucketName: 'state', s3Key: 'claim-check/e.json' });

    // act
    const body = await resolveEventBody(
      pointer,
      { ExtendedPayloadSize: { DataType: 'Number', StringValue: '10' } },
      s3,
    );

    // assess
    expect(body).toBe('{"id":"e"}');
  });

  it('understands Lambda-style attributes and the legacy size attribute', async () => {
    // prepare
    s3Mock.on(GetObjectCommand).resolves({ Body: stored('{"id":"l"}') });
    const pointer = formatPayloadPointer({ s3BucketName: 'state', s3Key: 'k' });

    // act
    const body = await resolveEventBody(
      pointer,
      { SQSLargePayloadSize: { dataType: 'Number', stringValue: '10' } },
      s3,
    );

    // assess
    expect(body).toBe('{"id":"l"}');
  });

  it('refuses a message flagged as offloaded whose body is not a pointer', async () => {
    await expect(
      resolveEventBody('{"id":"1"}', { ExtendedPayloadSize: { DataType: 'Number', StringValue: '10' } }, s3),
    ).rejects.toThrow(/not an S3 pointer/);
  });

  it('says which object could not be read', async () => {
    // prepare
    s3Mock
      .on(GetObjectCommand)
      .rejects(new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }));
    const pointer = formatPayloadPointer({ s3BucketName: 'state', s3Key: 'claim-check/gone.json' });

    // act
    const reading = resolveEventBody(pointer, undefined, s3);

    // assess
    await expect(reading).rejects.toThrow(ClaimCheckError);
    await expect(reading).rejects.toThrow(/s3:\/\/state\/claim-check\/gone\.json.*does not exist/);
  });
});
