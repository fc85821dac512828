/**
 * The three poller handlers as Lambda runs them: configuration from the environment, adapters from
 * packages/bridge/src/lambda/adapters.ts, against the simulator and fauxqs. The fan-out goes through a real fauxqs queue and
 * the worker receives those messages as a Lambda SQS event.
 */
import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CloudEvent, eventId } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody } from '../../packages/bridge/src/events/sqs/index.ts';
import { parseCheckpoint, storedCheckpoint } from '../../packages/bridge/src/polling/checkpoint.ts';
import { checkpointKey } from '../../packages/bridge/src/polling/keys.ts';
import { readAuditRecord } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { acquireLease, releaseLease } from '../../packages/bridge/src/state/lease.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { setEnv } from '../helpers/env.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { approvedReview, drainQueue, lambdaContext, sqsEventFrom } from '../helpers/polling.ts';

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

const BUCKET = 'poller-state';
const KEYS = Array.from({ length: 45 }, (_, index) => `ITEM-${String(index).padStart(3, '0')}`);
const DAY = 86_400_000;

let aws: AwsEmulator;
let sim: RunningSimulator;
let store: S3StateStore;
let restoreEnv: () => void;
let pollMessagingAssets: Handler;
let pollSupplierReviews: Handler;
/** The handlers' Powertools metrics, imported after the environment (which disables their output) is set. */
let metrics: typeof import('../../packages/bridge/src/lambda/adapters.ts')['metrics'];
let worker: (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  aws = await startAwsEmulator({
    buckets: [BUCKET],
    queues: [
      'asset-events',
      'review-events',
      'confirmation-events',
      { name: 'review-poll', dlq: { name: 'review-poll-dlq', maxReceiveCount: 3 }, visibilityTimeout: 1 },
    ],
  });
  sim = await startSimulator({ reviewDelayMs: 20 });
  for (const key of KEYS) {
    sim.state.addSupplierReview(
      approvedReview(key),
      `<catalogueItemConfirmationMessage><note>${key}</note></catalogueItemConfirmationMessage>`,
    );
  }
  restoreEnv = setEnv({
    ...aws.env,
    PDS_BASE_URL: sim.url,
    PDS_USERNAME: sim.username,
    PDS_PASSWORD: sim.password,
    STATE_BUCKET: BUCKET,
    MESSAGING_ASSET_EVENTS_QUEUE_URL: aws.queueUrls['asset-events'],
    SUPPLIER_REVIEW_EVENTS_QUEUE_URL: aws.queueUrls['review-events'],
    CONFIRMATION_EVENTS_QUEUE_URL: aws.queueUrls['confirmation-events'],
    REVIEW_POLL_QUEUE_URL: aws.queueUrls['review-poll'],
    POLL_FIRST_RUN: 'backlog',
    POLL_CONCURRENCY: '4',
    POLL_REVIEWS_INLINE_MAX: '10',
    POLL_REVIEWS_CHUNK_SIZE: '20',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  store = new S3StateStore({ client: aws.s3, bucket: BUCKET });
  metrics = (await import('../../packages/bridge/src/lambda/adapters.ts')).metrics;
  pollMessagingAssets = (await import('../../packages/bridge/functions/poll-messaging-assets.ts'))
    .handler as Handler;
  pollSupplierReviews = (await import('../../packages/bridge/functions/poll-supplier-reviews.ts'))
    .handler as Handler;
  worker = (await import('../../packages/bridge/functions/poll-supplier-reviews-worker.ts'))
    .handler as typeof worker;
});

afterAll(async () => {
  restoreEnv?.();
  await sim?.close();
  await aws?.close();
});

async function eventsIn(queue: string): Promise<CloudEvent[]> {
  const messages = await drainQueue(aws.sqs, aws.queueUrls[queue] as string);
  return Promise.all(
    messages.map(async (message) =>
      JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, aws.s3)),
    ),
  );
}

describe('poll-messaging-assets handler', () => {
  it('emits the backlog to the messaging-asset queue, and skips while another run holds the lease', async () => {
    // act
    const report = await pollMessagingAssets({}, lambdaContext(60_000, 'run-a'));
    const lease = await acquireLease(store, 'poll-messaging-assets', 60_000, 'someone-else');
    const skipped = await pollMessagingAssets({}, lambdaContext(60_000, 'run-b'));
    if (lease) await releaseLease(store, lease);
    const events = await eventsIn('asset-events');

    // assess: 3 demo assets plus one per seeded review
    expect(report).toMatchObject({ emitted: 48, failed: 0 });
    expect(skipped).toEqual({ skipped: true, heldBy: 'someone-else' });
    expect(events).toHaveLength(48);
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['pds.messaging-asset.received']));
  });
});

const MESSAGING_ASSETS_CHECKPOINT = checkpointKey('messaging-assets');

describe('poll-messaging-assets audit mode', () => {
  it('audits when the schedule says {"mode": "audit"}: counts AuditGapsFound and emits the gap with its original id', async () => {
    // prepare: the backlog is emitted (previous test); delete one emitted id from the record
    const entry = await store.get(MESSAGING_ASSETS_CHECKPOINT);
    const checkpoint = parseCheckpoint(entry?.value, MESSAGING_ASSETS_CHECKPOINT);
    checkpoint.emitted.delete(2);
    await store.update(MESSAGING_ASSETS_CHECKPOINT, storedCheckpoint(checkpoint), entry?.etag as string);
    const recorded = vi.spyOn(metrics, 'addMetric');
    try {
      // act
      const report = await pollMessagingAssets({ mode: 'audit' }, lambdaContext(60_000, 'run-audit'));
      const events = await eventsIn('asset-events');

      // assess
      expect(report).toMatchObject({ compared: true, gaps: 1, gapIds: [2], applied: true, gapsEmitted: 1 });
      expect(recorded.mock.calls).toContainEqual(['AuditGapsFound', 'Count', 1]);
      expect(events.map((event) => event.id)).toEqual([eventId('pds.messaging-asset.received', [2])]);
      // The audit's last report is in the state bucket, for `pds bridge status` and the console.
      const audit = await readAuditRecord(store);
      expect(audit?.lastRun.ok).toBe(true);
      expect(audit?.lastReport).toMatchObject({ compared: true, gaps: 1, gapIds: [2], gapsEmitted: 1 });
      expect(audit?.lastReport?.at).toBe(audit?.lastRun.endedAt);
    } finally {
      recorded.mockRestore();
    }
  });

  it("records an audit that failed, keeping the last completed audit's findings", async () => {
    // prepare: the previous test's audit completed; the PDS refuses the next listing
    const before = await readAuditRecord(store);
    sim.failNext(1, {
      kind: 'status',
      status: 500,
      method: 'GET',
      pathPrefix: '/api/v1/messaging/messagingassets',
    });

    // act
    const failed = await pollMessagingAssets({ mode: 'audit' }, lambdaContext(60_000, 'run-audit-2')).catch(
      (error: unknown) => error,
    );
    const audit = await readAuditRecord(store);

    // assess
    expect(failed).toBeInstanceOf(Error);
    expect(audit?.lastRun).toMatchObject({ ok: false, error: expect.stringContaining('500') });
    expect((audit?.lastRun.startedAt ?? '') >= (before?.lastRun.endedAt ?? '~')).toBe(true);
    expect(audit?.lastReport).toEqual(before?.lastReport);
  });
});

describe('the poller heartbeat', () => {
  it('counts PollRunSucceeded for a run that completed, never for a skipped or failed one', async () => {
    // prepare
    const recorded = vi.spyOn(metrics, 'addMetric');
    const heartbeats = () => recorded.mock.calls.filter(([name]) => name === 'PollRunSucceeded');
    try {
      // act: a completed run, a run that meets another's lease, a run the PDS refuses
      await pollMessagingAssets({}, lambdaContext(60_000, 'run-ok'));
      const afterCompleted = heartbeats().length;
      const lease = await acquireLease(store, 'poll-messaging-assets', 60_000, 'someone-else');
      await pollMessagingAssets({}, lambdaContext(60_000, 'run-skipped'));
      if (lease) await releaseLease(store, lease);
      // A 500 on the listing, which the client does not retry (packages/bridge/src/pds/retry.ts): exactly this one
      // scripted fault is used up, none is left queued for the requests of later tests.
      sim.failNext(1, {
        kind: 'status',
        status: 500,
        method: 'GET',
        pathPrefix: '/api/v1/messaging/messagingassets',
      });
      const failed = await pollMessagingAssets({}, lambdaContext(60_000, 'run-failed')).catch((e) => e);

      // assess
      expect(afterCompleted).toBe(1);
      expect(heartbeats()).toEqual([['PollRunSucceeded', 'Count', 1]]);
      expect(failed).toBeInstanceOf(Error);
      expect(recorded.mock.calls).toContainEqual(['CheckpointAgeSeconds', 'Seconds', 0]);
    } finally {
      recorded.mockRestore();
    }
  });
});

describe('poll-supplier-reviews handler and its worker', () => {
  it('fans a large watch list out through the queue; the worker emits each review once and reports a failed chunk', async () => {
    // prepare
    await watch(store, [...KEYS, 'UNKNOWN-KEY'], { ttlMs: 30 * DAY, source: 'operator' });
    const fanOutUrl = aws.queueUrls['review-poll'] as string;

    // act: the scheduled run sends chunks
    const scheduled = await pollSupplierReviews({}, lambdaContext(60_000, 'run-c'));
    const chunks = await drainQueue(aws.sqs, fanOutUrl, { expected: 3, keep: true });

    // act: Lambda delivers them to the worker; one key's listing fails once
    sim.failNext(1, {
      kind: 'status',
      status: 500,
      method: 'GET',
      pathPrefix: '/api/v1/supplierreviews/ITEM-007',
    });
    const response = await worker(
      sqsEventFrom(chunks, aws.queueArns['review-poll'] as string),
      lambdaContext(),
    );
    const failedIds = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const chunk of chunks.filter((message) => !failedIds.has(message.MessageId ?? ''))) {
      await aws.sqs.send(
        new DeleteMessageCommand({ QueueUrl: fanOutUrl, ReceiptHandle: chunk.ReceiptHandle }),
      );
    }
    // act: SQS delivers the failed chunk again after its visibility timeout
    const redelivered = await drainQueue(aws.sqs, fanOutUrl, { expected: 1, emptyRounds: 4, keep: true });
    const retry = await worker(
      sqsEventFrom(redelivered, aws.queueArns['review-poll'] as string),
      lambdaContext(),
    );
    const events = await eventsIn('review-events');

    // assess
    // The deadline check rides on the scheduled run: nothing was published through the bridge here.
    expect(scheduled).toEqual({
      mode: 'fan-out',
      watched: 46,
      chunks: 3,
      confirmationsDue: 0,
      confirmationsOverdue: 0,
      confirmationsExpired: 0,
    });
    expect(chunks).toHaveLength(3);
    const failedChunk = chunks.find((message) => failedIds.has(message.MessageId ?? ''));
    expect(response.batchItemFailures).toHaveLength(1);
    expect(failedChunk?.Body).toContain('ITEM-007');
    expect(redelivered.map((message) => message.MessageId)).toEqual([failedChunk?.MessageId]);
    expect(retry.batchItemFailures).toEqual([]);
    expect(events.map((event) => event.subject).sort()).toEqual(KEYS.map((key) => `item/${key}`));
    expect(new Set(events.map((event) => event.id)).size).toBe(KEYS.length);
  });

  it('refuses a message that is not a chunk as a batch item failure', async () => {
    // prepare
    const [message] = sqsEventFrom(
      [{ MessageId: 'bogus', Body: '{"hello":"world"}', ReceiptHandle: 'r' }],
      'arn',
    ).Records;

    // act
    const response = await worker({ Records: [message] }, lambdaContext());

    // assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'bogus' }]);
  });
});
