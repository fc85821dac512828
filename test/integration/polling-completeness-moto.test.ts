/**
 * Completeness of the messaging-asset poller without a window (issue 20), on moto's S3 and SQS and the
 * PDS simulator, with the listing whole (the simulator's default) and paged (`pageMessagingAssets`):
 * assets that appear late or out of order at any distance below the newest are emitted once with
 * their own ids; a version-1 checkpoint is carried over; the audit finds a gap planted by deleting an
 * emitted id from the record and emits it again with its original id; a run with nothing new reads
 * only the end of a paged listing.
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CloudEvent, eventId } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody, SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { parseCheckpoint, storedCheckpoint } from '../../packages/bridge/src/polling/checkpoint.ts';
import {
  auditMessagingAssets,
  MESSAGING_ASSETS_CHECKPOINT,
  type MessagingAssetPollOptions,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { startSimulator } from '../../packages/simulator/src/index.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { drainQueue } from '../helpers/polling.ts';

const XML = '<catalogueItemConfirmationMessage><note>late</note></catalogueItemConfirmationMessage>';
const LIST_PATH = '/api/v1/messaging/messagingassets/';

describeOnMoto('messaging assets: completeness without a window, on moto and the simulator', () => {
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

  async function world(paged: boolean) {
    const sim = await startSimulator({ demoData: false, pageMessagingAssets: paged });
    const pds: ClosablePdsClient = createPdsClient({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: sim.password },
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    });
    open.push(pds, sim);
    const name = `c-${randomUUID().slice(0, 8)}`;
    await aws.createBucket(name);
    const created = await aws.sqs.send(new CreateQueueCommand({ QueueName: name }));
    const queueUrl = created.QueueUrl as string;
    const store = new S3StateStore({ client: aws.s3, bucket: name });
    const sink = new SqsEventPublisher({
      sqs: aws.sqs,
      queueUrl: () => queueUrl,
      claimCheck: { s3: aws.s3, bucket: name },
      baseDelayMs: 1,
      maxAttempts: 2,
    });
    const deps = { pds, store, sink };
    const listRequests = () => sim.requestLog.filter((entry) => entry.path.split('?')[0] === LIST_PATH);
    return {
      sim,
      store,
      deps,
      listRequests,
      add: (ids: number[]) => {
        for (const id of ids) sim.state.addMessagingAsset({ xml: XML, id, createdAt: Date.now() - 60_000 });
      },
      poll: (options: MessagingAssetPollOptions = {}) =>
        pollMessagingAssets(deps, { listingPageLimit: 50, pageSize: 100, concurrency: 8, ...options }),
      async received(): Promise<CloudEvent[]> {
        const messages = await drainQueue(aws.sqs, queueUrl);
        return Promise.all(
          messages.map(async (message) =>
            JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, aws.s3)),
          ),
        );
      },
      async checkpoint() {
        const entry = await store.get(MESSAGING_ASSETS_CHECKPOINT);
        return parseCheckpoint(entry?.value, MESSAGING_ASSETS_CHECKPOINT);
      },
    };
  }

  const idsOf = (events: CloudEvent[]) =>
    events
      .map((event) => (event.data as { messagingAssetId: number }).messagingAssetId)
      .sort((a, b) => a - b);

  for (const paged of [false, true]) {
    describe(paged ? 'listing paged by limit/offset' : 'listing whole (no paging)', () => {
      it('emits late and out-of-order assets at any distance below the newest, once each, with their own ids', async () => {
        // prepare: 1..150 with holes; a first run emits what is there
        const w = await world(paged);
        const holes = [1, 2, 57, 100, 133, 149];
        w.add(Array.from({ length: 150 }, (_, index) => index + 1).filter((id) => !holes.includes(id)));
        await w.poll({ firstRun: 'backlog' });
        await w.received();

        // act: newer ones arrive, and the holes fill in, lowest last, between runs
        w.add([450, 151]);
        await w.poll();
        w.add([149, 100]);
        await w.poll();
        w.add([57, 133, 2, 1]);
        const last = await w.poll();
        const quiet = await w.poll();
        const events = await w.received();

        // assess
        expect(idsOf(events)).toEqual([1, 2, 57, 100, 133, 149, 151, 450]);
        for (const event of events) {
          expect(event.id).toBe(
            eventId('pds.messaging-asset.received', [
              (event.data as { messagingAssetId: number }).messagingAssetId,
            ]),
          );
        }
        expect(last.emitted).toBe(4);
        expect(quiet.emitted).toBe(0);
        const checkpoint = await w.checkpoint();
        expect([...checkpoint.emitted.ranges()]).toEqual([
          [1, 151],
          [450, 450],
        ]);
        expect(checkpoint.listing.paging).toBe(paged ? 'honoured' : 'ignored');
      });

      it('reads only the end of the listing on a run with nothing new where the PDS pages it', async () => {
        // prepare
        const w = await world(paged);
        w.add(Array.from({ length: 300 }, (_, index) => index + 1));
        await w.poll({ firstRun: 'now' });
        await w.poll();
        w.sim.requestLog.length = 0;

        // act
        const quiet = await w.poll();
        w.add([301, 302]);
        const two = await w.poll();

        // assess: paged, one request of one entry (the overlap); whole, the listing every time
        expect(quiet).toMatchObject({ emitted: 0, listingRequests: 1, listed: paged ? 0 : 300 });
        expect(two).toMatchObject({ emitted: 2, listed: paged ? 2 : 302 });
        expect(w.listRequests().length).toBe(paged ? 3 : 2);
        if (paged) expect(w.listRequests()[0]?.path).toContain('offset=299');
      });
    });
  }

  it('carries a version-1 checkpoint over: nothing at or below its floor again, late and retried assets emitted', async () => {
    // prepare: 1..50 listed; the old checkpoint says floor 40, 42 seen, 45 waiting for a retry
    const w = await world(true);
    w.add(Array.from({ length: 50 }, (_, index) => index + 1));
    await w.store.create(MESSAGING_ASSETS_CHECKPOINT, {
      version: 1,
      floor: 40,
      highestId: 42,
      seen: [42],
      retry: [{ id: 45, attempts: 1, firstFailedAt: '2026-05-04T10:00:00.000Z', lastError: '503' }],
      updatedAt: '2026-05-04T10:00:00.000Z',
    });

    // act
    const carried = await w.poll();
    w.add([0]); // below the old floor, never listed before
    const late = await w.poll();
    const events = await w.received();

    // assess
    expect(carried).toMatchObject({ recordedAsDone: 40, emitted: 9 });
    expect(late.emitted).toBe(1);
    expect(idsOf(events)).toEqual([0, 41, 43, 44, 45, 46, 47, 48, 49, 50]);
    const checkpoint = await w.checkpoint();
    expect(checkpoint.legacyFloor).toBeNull();
    expect([...checkpoint.emitted.ranges()]).toEqual([[0, 50]]);
  });

  it('audit: finds a gap planted by deleting an emitted id from the record, and emits it again with its original id', async () => {
    // prepare: 1..120 emitted; 77 is deleted from the record; 5 is no longer listed (a stray)
    const w = await world(true);
    w.add(Array.from({ length: 120 }, (_, index) => index + 1));
    await w.poll({ firstRun: 'backlog' });
    const original = (await w.received()).find((event) => event.subject === 'messaging-asset/77');
    const entry = await w.store.get(MESSAGING_ASSETS_CHECKPOINT);
    const planted = parseCheckpoint(entry?.value, MESSAGING_ASSETS_CHECKPOINT);
    planted.emitted.delete(77);
    await w.store.update(MESSAGING_ASSETS_CHECKPOINT, storedCheckpoint(planted), entry?.etag as string);

    // act: a paged run cannot see 77 (it is behind the position); the audit reads the whole listing
    const paged = await w.poll();
    w.sim.state.deleteMessagingAsset(5);
    const report = await auditMessagingAssets(w.deps, { apply: false });
    const applied = await auditMessagingAssets(w.deps, { apply: true });
    const after = await auditMessagingAssets(w.deps, { apply: false });
    const events = await w.received();

    // assess
    expect(paged.emitted).toBe(0);
    expect(report).toMatchObject({ gaps: 1, gapIds: [77], strays: 1, strayIds: [5], applied: false });
    expect(applied).toMatchObject({ gaps: 1, applied: true, gapsEmitted: 1 });
    expect(after).toMatchObject({ gaps: 0, strays: 1 });
    expect(events).toHaveLength(1);
    expect(events[0]?.id).toBe(original?.id);
    expect(events[0]?.id).toBe(eventId('pds.messaging-asset.received', [77]));
  });
});
