/**
 * Two deliveries of one object write at the same time, on the running local stack. The stack's own
 * runtime never runs two ingest invocations at once, so the deliveries are direct invocations of the
 * stack's ingest handler with one S3 event, as when S3 invokes the function directly and delivers the
 * notification twice. Only the state bucket's conditional writes, reached through the stack's S3
 * endpoint, can keep the two apart. The PDS is a simulator of the test's own, so its state can be
 * counted; its gathering uploads are slowed so that both deliveries are in flight together.
 */
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../packages/local/src/gateway/index.ts';
import { createLocalHandlers } from '../../packages/local/src/handlers.ts';
import { LOCAL_FUNCTION_TIMEOUTS_MS } from '../../packages/local/src/resources.ts';
import { s3NotificationEvent, s3NotificationRecord } from '../../packages/local/src/s3-notifications.ts';
import { type RunningLocalStack, startLocalStack } from '../../packages/local/src/stack.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';

/** Not the drop bucket: the stack would announce the write itself, as another write (its own sequencer). */
const BUCKET = 'pds-bridge-local-direct-drops';
const KEY = 'incoming/twice delivered.csv';
const CSV = 'primaryKey__,name,category\r\n0614141777799,Twice Tea,BEVERAGE\r\n';

let sim: RunningSimulator;
let stack: RunningLocalStack;
let s3: S3Client;
const activity: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ faults: { latencyMs: 50, pathPrefix: '/api/v1/gatherings' } });
  stack = await startLocalStack({
    awsPort: 0,
    apiPort: 0,
    pds: { baseUrl: sim.url, username: sim.username, password: sim.password },
    // The delivery that loses the race warns that it is left for a retry; that is the expected outcome.
    logLevel: 'ERROR',
    log: (line) => activity.push(line),
  });
  s3 = new S3Client({
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
    forcePathStyle: true,
  });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await stack?.stop();
  await sim?.close();
});

describe('the local stack under concurrent deliveries', { timeout: 60_000 }, () => {
  it('imports an object write once when two deliveries of it arrive at the same time in separate invocations', async () => {
    // prepare
    const put = await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: KEY, Body: CSV, ContentType: 'text/csv' }),
    );
    const notification = s3NotificationEvent([
      s3NotificationRecord({
        bucket: BUCKET,
        key: KEY,
        size: Buffer.byteLength(CSV),
        etag: put.ETag ?? '',
        sequencer: '0062E99A88DC407460',
        region: stack.aws.region,
      }),
    ]);
    // A bucket of its own, without the stack's notifications: the ingest must be told it serves it.
    const served = process.env.INGEST_BUCKETS;
    process.env.INGEST_BUCKETS = `${served},${BUCKET}`;
    const { ingest } = createLocalHandlers();
    process.env.INGEST_BUCKETS = served;
    const invoke = () =>
      ingest(
        structuredClone(notification),
        localLambdaContext({
          functionName: 'pds-bridge-local-ingest',
          timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.ingest,
        }),
      );
    const gatheringsBefore = sim.state.gatherings.size;

    // act
    const deliveries = await Promise.allSettled([invoke(), invoke()]);

    // assess
    const imported = deliveries.filter(
      (delivery) =>
        delivery.status === 'fulfilled' && (delivery.value as { imported?: number }).imported === 1,
    );
    expect(
      imported,
      `deliveries: ${JSON.stringify(deliveries)}; stack said: ${activity.join(' | ')}`,
    ).toHaveLength(1);
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    expect(sim.state.imports.filter((entry) => entry.path === 'twice delivered.csv')).toHaveLength(1);
  });
});
