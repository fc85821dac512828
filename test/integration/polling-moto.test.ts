/**
 * The pollers' checkpoint and lease on an S3 that enforces conditional writes (moto), with the PDS
 * simulator and moto's SQS for the events: the checkpoint and the review fingerprints move only after
 * SQS accepted the events, overlapping runs are excluded by the lease, and a run killed part way is
 * resumed by the next one without losing or renaming anything.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { CloudEvent, EventSink } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody, SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { parseCheckpoint } from '../../packages/bridge/src/polling/checkpoint.ts';
import { runExclusive } from '../../packages/bridge/src/polling/exclusive.ts';
import {
  MESSAGING_ASSETS_CHECKPOINT,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { pollSupplierReviews } from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import {
  growLayout,
  progressShardOf,
  readProgress,
} from '../../packages/bridge/src/polling/supplier-reviews/review-progress.ts';
import { acquireLease } from '../../packages/bridge/src/state/lease.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { approvedReview, drainQueue } from '../helpers/polling.ts';

const XML = '<catalogueItemConfirmationMessage><note>moto</note></catalogueItemConfirmationMessage>';
const DAY = 86_400_000;

describeOnMoto('the pollers on S3 conditional writes', () => {
  let aws: MotoServer;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    aws = await startMoto();
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((resource) => resource.close()));
  });

  afterAll(async () => {
    await aws?.close();
  });

  interface World {
    sim: RunningSimulator;
    pds: ClosablePdsClient;
    store: S3StateStore;
    queueUrl: string;
    /** A publisher to the test's queue; `missingQueue` sends to a queue that does not exist. */
    sink(options?: { missingQueue?: boolean }): SqsEventPublisher;
    received(): Promise<CloudEvent[]>;
  }

  async function world(): Promise<World> {
    const sim = await startSimulator({ reviewDelayMs: 20 });
    const pds = createPdsClient({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: sim.password },
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
    open.push(pds, sim);
    const name = `p-${randomUUID().slice(0, 8)}`;
    await aws.createBucket(name);
    const queueUrl = await createQueue(aws, name);
    return {
      sim,
      pds,
      store: new S3StateStore({ client: aws.s3, bucket: name }),
      queueUrl,
      sink: (options = {}) =>
        new SqsEventPublisher({
          sqs: aws.sqs,
          queueUrl: () => (options.missingQueue ? `${queueUrl}-missing` : queueUrl),
          claimCheck: { s3: aws.s3, bucket: name },
          baseDelayMs: 1,
          maxAttempts: 2,
        }),
      async received() {
        const messages = await drainQueue(aws.sqs, queueUrl);
        return Promise.all(
          messages.map(async (message) =>
            JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, aws.s3)),
          ),
        );
      },
    };
  }

  async function storedCheckpoint(store: S3StateStore) {
    const entry = await store.get(MESSAGING_ASSETS_CHECKPOINT);
    return entry === undefined ? undefined : parseCheckpoint(entry.value, MESSAGING_ASSETS_CHECKPOINT);
  }

  const assetIdsOf = (events: CloudEvent[]) =>
    events
      .map((event) => (event.type === 'pds.messaging-asset.received' ? event.data.messagingAssetId : -1))
      .sort((a, b) => a - b);

  it('moves the messaging-asset checkpoint only after SQS accepted the events', async () => {
    // prepare: the demo backlog plus 5 assets; a first run whose queue does not exist
    const w = await world();
    for (let index = 0; index < 5; index++) w.sim.state.addMessagingAsset({ xml: XML });
    const options = { firstRun: 'backlog' as const, pageSize: 3 };

    // act
    const refused = await pollMessagingAssets(
      { pds: w.pds, store: w.store, sink: w.sink({ missingQueue: true }) },
      options,
    );
    const afterRefused = await storedCheckpoint(w.store);
    const accepted = await pollMessagingAssets({ pds: w.pds, store: w.store, sink: w.sink() }, options);
    const again = await pollMessagingAssets({ pds: w.pds, store: w.store, sink: w.sink() }, options);
    const events = await w.received();

    // assess
    expect(refused).toMatchObject({ stopped: 'publish-failed', emitted: 0, unpublished: 3 });
    expect(afterRefused).toMatchObject({ highestId: null, retry: [] });
    expect(afterRefused?.emitted.size).toBe(0);
    expect(accepted).toMatchObject({ emitted: 8, remaining: 0 });
    expect(again.emitted).toBe(0);
    expect(assetIdsOf(events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await storedCheckpoint(w.store))?.highestId).toBe(8);
  });

  it('records review fingerprints only after SQS accepted the events', async () => {
    // prepare
    const w = await world();
    const keys = ['MOTO-1', 'MOTO-2'];
    for (const primaryKey of keys) {
      w.sim.state.addSupplierReview(approvedReview(primaryKey), XML);
    }
    await watch(w.store, keys, { ttlMs: 30 * DAY, source: 'operator' });

    // act
    const refused = await pollSupplierReviews(
      { pds: w.pds, store: w.store, sink: w.sink({ missingQueue: true }) },
      { runId: 'run-refused' },
    );
    const seenAfterRefused = (await readProgress(w.store, ['MOTO-1'])).get('MOTO-1')?.seen;
    const accepted = await pollSupplierReviews(
      { pds: w.pds, store: w.store, sink: w.sink() },
      { runId: 'run-ok' },
    );
    const again = await pollSupplierReviews(
      { pds: w.pds, store: w.store, sink: w.sink() },
      { runId: 'run-again' },
    );
    const events = await w.received();

    // assess
    expect(refused).toMatchObject({
      mode: 'inline',
      keysFailed: 2,
      reviewsEmitted: 0,
      reviewsEmittedAsFailed: 0,
    });
    expect(seenAfterRefused).toEqual([]);
    expect(accepted).toMatchObject({ keysFailed: 0, reviewsEmitted: 2 });
    expect(again).toMatchObject({ keysFailed: 0, reviewsEmitted: 0 });
    expect(events.map((event) => event.subject).sort()).toEqual(['item/MOTO-1', 'item/MOTO-2']);
    expect((await readProgress(w.store, ['MOTO-1'])).get('MOTO-1')?.seen).toHaveLength(1);
  });

  it('carries the review progress of the 64-shard layout over when the layout grows, emitting nothing again', async () => {
    // prepare: reviews emitted and recorded in the 64 shards, then the layout grows (as for a watch
    // list of 40,000 keys) and one key gets a new review
    const w = await world();
    const keys = ['MOTO-1', 'MOTO-2', 'MOTO-3'];
    for (const primaryKey of keys) w.sim.state.addSupplierReview(approvedReview(primaryKey), XML);
    await watch(w.store, keys, { ttlMs: 30 * DAY, source: 'operator' });
    const deps = { pds: w.pds, store: w.store, sink: w.sink() };
    const before = await pollSupplierReviews(deps, { runId: 'run-64-shards' });
    const legacyShard = `review-progress/${String(progressShardOf('MOTO-2')).padStart(2, '0')}.json`;
    const legacy = await w.store.get<{ keys: Record<string, unknown> }>(legacyShard);
    await growLayout(w.store, 40_000);
    w.sim.state.addSupplierReview(approvedReview('MOTO-2'), XML);

    // act
    const after = await pollSupplierReviews(deps, { runId: 'run-grown' });
    const again = await pollSupplierReviews(deps, { runId: 'run-grown-again' });
    const events = await w.received();

    // assess
    expect(Object.keys(legacy?.value.keys ?? {})).toContain('MOTO-2');
    expect(before).toMatchObject({ keysFailed: 0, reviewsEmitted: 3 });
    expect(after).toMatchObject({ keysFailed: 0, reviewsEmitted: 1 });
    expect(again).toMatchObject({ keysFailed: 0, reviewsEmitted: 0 });
    expect(events).toHaveLength(4);
    expect(new Set(events.map((event) => event.id)).size).toBe(4);
    const moved = await w.store.get<{ keys: Record<string, { seen: string[] }> }>(
      `review-progress/L9/${progressShardOf('MOTO-2', 9)}.json`,
    );
    expect(moved?.value.keys['MOTO-2']?.seen).toHaveLength(2);
  });

  it('lets a run that starts while another holds the lease skip, for both pollers', async () => {
    // prepare: a first run that is held inside its publish until the second has tried
    const w = await world();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const publishing = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const inner = w.sink();
    const slowSink: EventSink = {
      async publish(events) {
        entered();
        await held;
        await inner.publish(events);
      },
    };
    const lease = { ttlMs: 60_000 };

    // act
    const first = runExclusive(w.store, { name: 'poll-messaging-assets', owner: 'run-a', ...lease }, () =>
      pollMessagingAssets({ pds: w.pds, store: w.store, sink: slowSink }, { firstRun: 'backlog' }),
    );
    await publishing;
    const overlapping = await runExclusive(
      w.store,
      { name: 'poll-messaging-assets', owner: 'run-b', ...lease },
      () => pollMessagingAssets({ pds: w.pds, store: w.store, sink: inner }, { firstRun: 'backlog' }),
    );
    const reviewsWhileHeld = await runExclusive(
      w.store,
      { name: 'poll-supplier-reviews', owner: 'run-c', ...lease },
      async () => {
        const blocked = await runExclusive(
          w.store,
          { name: 'poll-supplier-reviews', owner: 'run-d', ...lease },
          () => pollSupplierReviews({ pds: w.pds, store: w.store, sink: inner }, { runId: 'run-d' }),
        );
        return blocked;
      },
    );
    release();
    const done = await first;
    const events = await w.received();

    // assess
    expect(overlapping).toMatchObject({ ran: false, heldBy: 'run-a' });
    expect(reviewsWhileHeld).toMatchObject({ ran: true, value: { ran: false, heldBy: 'run-c' } });
    expect(done).toMatchObject({ ran: true, value: { emitted: 3 } });
    expect(assetIdsOf(events)).toEqual([1, 2, 3]);
  });

  it('resumes a run killed after its first page: the next run emits the rest, under the same ids', async () => {
    // prepare: 7 assets in pages of 3; the first run dies while publishing its second page, leaving
    // its lease behind (as a killed Lambda does)
    const w = await world();
    for (let index = 0; index < 4; index++) w.sim.state.addMessagingAsset({ xml: XML });
    const start = Date.now();
    const killedLease = await acquireLease(w.store, 'poll-messaging-assets', 60_000, 'killed-run', {
      now: () => start,
    });
    const inner = w.sink();
    let publishes = 0;
    const dying: EventSink = {
      async publish(events) {
        await inner.publish(events);
        publishes++;
        if (publishes === 2) throw new Error('Runtime exited: the invocation was killed');
      },
    };
    const options = { firstRun: 'backlog' as const, pageSize: 3 };

    // act
    const killed = await pollMessagingAssets({ pds: w.pds, store: w.store, sink: dying }, options).catch(
      (error: unknown) => error,
    );
    const afterKill = await storedCheckpoint(w.store);
    const whileLeaseHeld = await runExclusive(
      w.store,
      { name: 'poll-messaging-assets', owner: 'next-run', ttlMs: 60_000, now: () => start + 1_000 },
      () => pollMessagingAssets({ pds: w.pds, store: w.store, sink: inner }, options),
    );
    const afterExpiry = await runExclusive(
      w.store,
      { name: 'poll-messaging-assets', owner: 'later-run', ttlMs: 60_000, now: () => start + 61_000 },
      () => pollMessagingAssets({ pds: w.pds, store: w.store, sink: inner }, options),
    );
    const events = await w.received();

    // assess
    expect(killedLease).toBeDefined();
    expect(killed).toBeInstanceOf(Error);
    expect(afterKill?.highestId).toBe(3);
    expect(whileLeaseHeld).toMatchObject({ ran: false, heldBy: 'killed-run' });
    expect(afterExpiry).toMatchObject({ ran: true, value: { emitted: 4, remaining: 0 } });
    // The second page went out before the kill and again after it, with identical ids.
    const ids = new Map(events.map((event) => [event.id, event]));
    expect(assetIdsOf([...ids.values()])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(assetIdsOf(events)).toEqual([1, 2, 3, 4, 4, 5, 5, 6, 6, 7]);
    expect((await storedCheckpoint(w.store))?.highestId).toBe(7);
  });
});

async function createQueue(aws: MotoServer, name: string): Promise<string> {
  const created = await aws.sqs.send(new CreateQueueCommand({ QueueName: name }));
  if (!created.QueueUrl) throw new Error(`moto did not create the queue ${name}`);
  return created.QueueUrl;
}
