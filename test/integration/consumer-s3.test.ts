/**
 * The consumer kit's S3 payload fetcher against the local emulator: what the bridge's claim-check
 * stored comes back whole, and a pointer to an object that is gone is named as such.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPayloadPointer } from '../../packages/bridge/src/events/claim-check.ts';
import { serializeEvent } from '../../packages/bridge/src/events/index.ts';
import { createEventReader, s3PayloadFetcher } from '../../packages/consumer/src/index.ts';
import { consumerTestEvents } from '../helpers/consumer-events.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';

describe('s3PayloadFetcher against fauxqs', () => {
  let aws: AwsEmulator;
  const { large } = consumerTestEvents();

  beforeAll(async () => {
    aws = await startAwsEmulator({ buckets: ['bridge-state'] });
  });

  afterAll(async () => {
    await aws?.close();
  });

  it('reads the stored event whole', async () => {
    // prepare
    const key = `claim-check/${large.id}.json`;
    await aws.s3.send(
      new PutObjectCommand({ Bucket: 'bridge-state', Key: key, Body: serializeEvent(large) }),
    );
    const reader = createEventReader({
      payloads: s3PayloadFetcher(aws.s3),
      claimCheck: { buckets: ['bridge-state'] },
    });

    // act
    const event = await reader.read({
      MessageId: 'm-1',
      Body: formatPayloadPointer({ s3BucketName: 'bridge-state', s3Key: key }),
      MessageAttributes: { ExtendedPayloadSize: { DataType: 'Number', StringValue: '300000' } },
    });

    // assess
    expect(event).toMatchObject({ id: large.id, type: large.type, data: large.data });
  });

  it('names a pointer to an object that is gone claim-check-missing, not retryable', async () => {
    // prepare
    const reader = createEventReader({
      payloads: s3PayloadFetcher(aws.s3),
      claimCheck: { buckets: ['bridge-state'] },
    });

    // act
    const failure = await reader
      .read({
        MessageId: 'm-2',
        Body: formatPayloadPointer({ s3BucketName: 'bridge-state', s3Key: 'claim-check/gone.json' }),
        MessageAttributes: { ExtendedPayloadSize: { DataType: 'Number', StringValue: '300000' } },
      })
      .catch((caught: unknown) => caught);

    // assess
    expect(failure).toMatchObject({ code: 'claim-check-missing', retryable: false, messageId: 'm-2' });
    expect((failure as Error).message).toMatch(/s3:\/\/bridge-state\/claim-check\/gone\.json does not exist/);
  });
});
