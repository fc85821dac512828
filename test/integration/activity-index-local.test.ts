/**
 * The activity index behind `pds bridge status` and `replay` on the local stack's S3 endpoint
 * (fauxqs behind the conditional endpoint), over HTTP with the AWS SDK.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type RunningEmulator, startEmulator } from '../../packages/local/src/emulator.ts';
import { describeActivityIndex } from '../helpers/activity-index-suite.ts';

let emulator: RunningEmulator;
let s3: S3Client;
let buckets = 0;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, region: 'us-east-1' });
  s3 = new S3Client({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    forcePathStyle: true,
  });
});

afterAll(async () => {
  s3?.destroy();
  await emulator?.stop();
});

describeActivityIndex('activity index on the local stack endpoint (pages of 3 keys)', () => {
  const bucket = `activity-${++buckets}`;
  emulator.server.createBucket(bucket);
  return new S3StateStore({ client: s3, bucket, listPageSize: 3 });
});
