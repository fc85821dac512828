/**
 * The queues' ages as a deployed stage reads them (packages/cli/src/ops/cloudwatch/queue-ages.ts):
 * CloudWatch's ApproximateAgeOfOldestMessage per queue name, the latest one-minute maximum, against
 * moto's CloudWatch on 127.0.0.1. The figures are put there as SQS would publish them; the queues
 * themselves are never received from.
 */
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { statusText } from '../../packages/cli/src/commands/bridge-text.ts';
import { CloudWatchQueueAges } from '../../packages/cli/src/ops/cloudwatch/queue-ages.ts';
import { SqsOperatorQueues } from '../../packages/cli/src/ops/sqs/queues.ts';
import { bridgeStatus } from '../../packages/cli/src/ops/status.ts';
import { FAKE_CREDENTIALS } from '../helpers/fauxqs.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';

describeOnMoto('queue ages from CloudWatch', () => {
  let aws: MotoServer;
  let cloudwatch: CloudWatchClient;
  const now = Date.now();
  const minute = (ago: number) => new Date(Math.floor((now - ago * 60_000) / 60_000) * 60_000);

  beforeAll(async () => {
    aws = await startMoto({
      buckets: ['state'],
      queues: [
        { name: 'pds-bridge-prod-ingest', dlq: { name: 'pds-bridge-prod-ingest-dlq', maxReceiveCount: 3 } },
      ],
    });
    cloudwatch = new CloudWatchClient({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
    });
    const point = (queue: string, ago: number, seconds: number) => ({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Dimensions: [{ Name: 'QueueName', Value: queue }],
      Timestamp: minute(ago),
      Value: seconds,
      Unit: 'Seconds' as const,
    });
    await cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'AWS/SQS',
        MetricData: [
          point('pds-bridge-prod-ingest', 3, 40),
          point('pds-bridge-prod-ingest', 1, 95),
          point('pds-bridge-prod-ingest-dlq', 2, 7_200),
          // Older than the window: not a recent figure.
          point('pds-bridge-prod-publications', 40, 12),
        ],
      }),
    );
  });

  afterAll(async () => {
    cloudwatch?.destroy();
    await aws?.close();
  });

  it("gives each queue's latest age in the window, and none for a queue without a recent figure", async () => {
    // prepare
    const source = new CloudWatchQueueAges({ cloudwatch, now: () => now });

    // act
    const ages = await source.ages([
      'pds-bridge-prod-ingest',
      'pds-bridge-prod-ingest-dlq',
      'pds-bridge-prod-publications',
      'pds-bridge-prod-events',
    ]);

    // assess
    expect(ages.get('pds-bridge-prod-ingest')).toEqual({ seconds: 95, at: minute(1).toISOString() });
    expect(ages.get('pds-bridge-prod-ingest-dlq')).toEqual({ seconds: 7_200, at: minute(2).toISOString() });
    expect(ages.has('pds-bridge-prod-publications')).toBe(false);
    expect(ages.has('pds-bridge-prod-events')).toBe(false);
    expect(source.label).toContain('CloudWatch AWS/SQS ApproximateAgeOfOldestMessage');
  });

  it('pds bridge status shows each queue and DLQ with its age and where the age came from', async () => {
    // prepare
    const queues = new SqsOperatorQueues({ sqs: aws.sqs });
    const store = new S3StateStore({ client: aws.s3, bucket: 'state' });
    const queueAges = new CloudWatchQueueAges({ cloudwatch, now: () => now });

    // act
    const status = await bridgeStatus(store, queues, { stage: 'prod', stateBucket: 'state', now, queueAges });
    const text = statusText(status);

    // assess
    const ingest = status.queues.find((queue) => queue.role === 'ingest');
    expect(ingest?.age?.seconds).toBe(95);
    expect(ingest?.deadLetter?.age?.seconds).toBe(7_200);
    expect(status.queueAges).toEqual({ source: queueAges.label, available: true });
    expect(text).toMatch(
      /pds-bridge-prod-ingest +0 +0 +1 min 35 s +pds-bridge-prod-ingest-dlq +0 +120 min 00 s\n/,
    );
    expect(text).toContain(queueAges.label);
  });

  it('says why there are no ages when CloudWatch refuses, and still gives the depths', async () => {
    // prepare: a CloudWatch endpoint that cannot be reached (a closed port on 127.0.0.1)
    const refusing = new CloudWatchClient({
      endpoint: 'http://127.0.0.1:9',
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
      maxAttempts: 1,
    });
    const queues = new SqsOperatorQueues({ sqs: aws.sqs });
    const store = new S3StateStore({ client: aws.s3, bucket: 'state' });
    try {
      // act
      const status = await bridgeStatus(store, queues, {
        stage: 'prod',
        stateBucket: 'state',
        now,
        queueAges: new CloudWatchQueueAges({ cloudwatch: refusing }),
      });

      // assess
      expect(status.queueAges.error).toMatch(/ECONNREFUSED|connect/);
      const ingest = status.queues.find((queue) => queue.role === 'ingest');
      expect(ingest).toMatchObject({ exists: true, visible: 0 });
      expect(ingest?.age).toBeUndefined();
      expect(statusText(status)).toContain('could not be read');
    } finally {
      refusing.destroy();
    }
  });
});
