/**
 * The claim primitive, leases, the watch list and the ingest claim on moto: S3StateStore over HTTP against an S3 that
 * enforces If-None-Match and If-Match. moto checks and writes without a lock, so the store reaches it
 * through ../helpers/s3-proxy.ts, which passes conditional writes of one key one at a time, as S3 does;
 * the suites' racing cases then prove the conditional paths instead of depending on luck.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeClaimBehaviour } from '../helpers/claim-suite.ts';
import { describeIngestClaimBehaviour } from '../helpers/ingest-claim-suite.ts';
import { describeLeaseBehaviour } from '../helpers/lease-suite.ts';
import { describeOnMoto, type MotoServer, motoS3Client, startMoto } from '../helpers/moto.ts';
import { type S3Proxy, startS3Proxy } from '../helpers/s3-proxy.ts';
import { describeWatchListBehaviour } from '../helpers/watch-list-suite.ts';

describeOnMoto('state claims over HTTP', () => {
  let aws: MotoServer;
  let proxy: S3Proxy;
  let client: S3Client;
  let buckets = 0;

  beforeAll(async () => {
    aws = await startMoto();
    proxy = await startS3Proxy(aws.endpoint, { atomicConditionalWrites: true });
    client = motoS3Client(proxy.endpoint, aws.region);
  });

  afterAll(async () => {
    client?.destroy();
    await proxy?.close();
    await aws?.close();
  });

  /** An empty store: a fresh bucket, reached through the atomic proxy. */
  const freshStore = async () => {
    const bucket = `state-${++buckets}`;
    await aws.createBucket(bucket);
    return new S3StateStore({ client, bucket });
  };

  describeClaimBehaviour('claims on S3StateStore against moto', freshStore);
  describeLeaseBehaviour('leases on S3StateStore against moto', freshStore);
  describeWatchListBehaviour('watch list on S3StateStore against moto', freshStore);
  describeIngestClaimBehaviour('claimIngest on S3StateStore against moto', freshStore);
});
