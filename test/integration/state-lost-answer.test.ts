/**
 * Conditional state writes whose answer is lost on the way back, on moto behind ../helpers/s3-proxy.ts:
 * S3 carried the write out, the client saw a reset connection, the SDK sent the same request again and
 * S3 refused the repeat (412, the object is no longer what the condition named). A sole writer must
 * still learn that its write took effect, and a write that met another writer's value must still be
 * refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { claimIngest, type IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { isDone, parseCheckpoint } from '../../packages/bridge/src/polling/checkpoint.ts';
import {
  MESSAGING_ASSETS_CHECKPOINT,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { StateConflictError } from '../../packages/bridge/src/state/errors.ts';
import { leaseKey } from '../../packages/bridge/src/state/keys.ts';
import { acquireLease, releaseLease, renewLease } from '../../packages/bridge/src/state/lease.ts';
import { startSimulator } from '../../packages/simulator/src/index.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { drainQueue } from '../helpers/polling.ts';
import { type ProxiedRequest, proxiedStateBucket } from '../helpers/s3-proxy.ts';

/** The SDK's first send of a request (`amz-sdk-request: attempt=1; max=3`), not its retries. */
function firstAttempt(request: ProxiedRequest): boolean {
  return String(request.headers['amz-sdk-request']).startsWith('attempt=1;');
}

const conditionalPut = (request: ProxiedRequest) =>
  request.method === 'PUT' &&
  (request.headers['if-match'] !== undefined || request.headers['if-none-match'] !== undefined);

const conditionalDelete = (request: ProxiedRequest) =>
  request.method === 'DELETE' && request.headers['if-match'] !== undefined;

describeOnMoto('state writes whose answer was lost', () => {
  let aws: MotoServer;
  const open: Array<{ close(): Promise<void> } | { destroy(): void }> = [];

  beforeAll(async () => {
    aws = await startMoto({ queues: ['asset-events'] });
  });

  afterEach(async () => {
    for (const resource of open.splice(0).reverse()) {
      if ('close' in resource) await resource.close();
      else resource.destroy();
    }
  });

  afterAll(async () => {
    await aws?.close();
  });

  /** A fresh bucket, reached through a proxy that loses the answers `loseAnswer` picks. */
  const lossy = (loseAnswer: (request: ProxiedRequest) => boolean) =>
    proxiedStateBucket(aws, { loseAnswer }, open);

  it('reports a create whose answer was lost as created, with the ETag it stored', async () => {
    // prepare
    const { store, direct, proxy } = await lossy((r) => conditionalPut(r) && firstAttempt(r));
    const record = { owner: 'run-1', token: randomUUID() };

    // act
    const created = await store.create('leases/poll.json', record);

    // assess
    const stored = await direct.get('leases/poll.json');
    expect(proxy.lostAnswers).toHaveLength(1);
    expect(stored?.value).toEqual(record);
    expect(created).toEqual({ created: true, etag: stored?.etag });
  });

  it('reports an update whose answer was lost as written, and its ETag serves the next update', async () => {
    // prepare
    const { store, direct, proxy } = await lossy((r) => conditionalPut(r) && firstAttempt(r));
    const first = await direct.create('checkpoints/runs.json', { count: 1 });
    if (!first.created) throw new Error('the first version was not created');

    // act
    const second = await store.update('checkpoints/runs.json', { count: 2 }, first.etag);
    const third = await store.update('checkpoints/runs.json', { count: 3 }, second.etag);

    // assess
    const stored = await direct.get('checkpoints/runs.json');
    expect(proxy.lostAnswers).toHaveLength(2);
    expect(stored).toEqual({ value: { count: 3 }, etag: third.etag });
  });

  it('reports a conditional delete whose answer was lost as done', async () => {
    // prepare
    const { store, direct, proxy } = await lossy((r) => conditionalDelete(r) && firstAttempt(r));
    const held = await direct.create('leases/poll.json', { owner: 'run-1' });
    if (!held.created) throw new Error('the lease was not created');

    // act
    const deleting = store.delete('leases/poll.json', held.etag);

    // assess
    await expect(deleting).resolves.toBeUndefined();
    expect(proxy.lostAnswers).toHaveLength(1);
    expect(await direct.get('leases/poll.json')).toBeUndefined();
  });

  it("still refuses a repeated write that meets another writer's value", async () => {
    // prepare
    const { store, direct, proxy } = await lossy((r) => conditionalPut(r) && firstAttempt(r));
    await direct.create('leases/poll.json', { owner: 'other' });
    const stale = await direct.create('checkpoints/runs.json', { count: 1 });
    if (!stale.created) throw new Error('the first version was not created');
    await direct.update('checkpoints/runs.json', { count: 2, by: 'other' }, stale.etag);

    // act
    const created = await store.create('leases/poll.json', { owner: 'me' });
    const updating = store.update('checkpoints/runs.json', { count: 2, by: 'me' }, stale.etag);

    // assess
    expect(created).toEqual({ created: false });
    await expect(updating).rejects.toBeInstanceOf(StateConflictError);
    expect(proxy.lostAnswers).toHaveLength(2);
    expect((await direct.get('leases/poll.json'))?.value).toEqual({ owner: 'other' });
    expect((await direct.get('checkpoints/runs.json'))?.value).toEqual({ count: 2, by: 'other' });
  });

  it('keeps a lease through acquisition, renewal and release when every write loses its answer once', async () => {
    // prepare
    const { store, direct, proxy } = await lossy(
      (r) => (conditionalPut(r) || conditionalDelete(r)) && firstAttempt(r),
    );
    const TTL = 60_000;

    // act
    const lease = await acquireLease(store, 'poll', TTL, 'run-1', { now: () => 0 });
    const renewed = lease && (await renewLease(store, lease, TTL, { now: () => 30_000 }));
    const released = renewed ? await releaseLease(store, renewed) : false;

    // assess
    expect(lease).toMatchObject({ owner: 'run-1', expiresAt: TTL });
    expect(renewed).toMatchObject({ owner: 'run-1', token: lease?.token, expiresAt: 90_000 });
    expect(released).toBe(true);
    expect(proxy.lostAnswers).toHaveLength(3);
    expect(await direct.get(leaseKey('poll'))).toBeUndefined();
  });

  it('lets a sole ingest delivery claim, advance and finish a write when every write loses its answer once', async () => {
    // prepare
    const { store, direct, proxy } = await lossy((r) => conditionalPut(r) && firstAttempt(r));
    const write = { bucket: 'drops', key: 'in/items.csv', etag: '9b2c', sequencer: '00A1' };

    // act
    const result = await claimIngest(store, write, { owner: 'delivery-1', leaseMs: 600_000 });
    if (result.kind !== 'claimed') throw new Error(`expected a claim, got ${result.kind}`);
    await result.claim.advance({ status: 'uploaded', gatheringKey: 'g-1' });
    await result.claim.advance({ status: 'done', outcome: 'imported', leaseUntil: 0 });
    const again = await claimIngest(store, write, { owner: 'delivery-2', leaseMs: 600_000 });

    // assess
    const stored = await direct.get<IngestProgressRecord>(ingestProgressKey(write));
    expect(result.takenOver).toBe(false);
    // The record's three writes, and the activity index's open and hourly markers, each lost once.
    const lostOn = (prefix: string) =>
      proxy.lostAnswers.filter((request) =>
        new URL(request.url, 'http://s3').pathname.split('/').slice(2).join('/').startsWith(prefix),
      );
    expect(lostOn('ingest/')).toHaveLength(3);
    expect(lostOn('activity-index/')).toHaveLength(2);
    expect(proxy.lostAnswers).toHaveLength(5);
    expect(stored?.value).toMatchObject({ owner: 'delivery-1', attempts: 1, status: 'done' });
    expect(again).toMatchObject({ kind: 'finished', record: { outcome: 'imported' } });
  });

  it('lets the messaging-asset poller, sole writer of its checkpoint, finish when every checkpoint write loses its answer once', async () => {
    // prepare: the simulator's demo backlog (3 assets), checkpoint writes per page of 2 and per run
    const { store, direct, proxy } = await lossy(
      (r) => r.url.includes(MESSAGING_ASSETS_CHECKPOINT) && conditionalPut(r) && firstAttempt(r),
    );
    const sim = await startSimulator();
    const pds = createPdsClient({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: sim.password },
    });
    open.push(sim, pds);
    const queueUrl = aws.queueUrls['asset-events'] ?? '';
    const sink = new SqsEventPublisher({ sqs: aws.sqs, queueUrl: () => queueUrl, baseDelayMs: 1 });
    const deps = { pds, store, sink };
    const options = { firstRun: 'backlog' as const, pageSize: 2 };

    // act
    const first = await pollMessagingAssets(deps, options);
    const again = await pollMessagingAssets(deps, options);

    // assess
    const events = (await drainQueue(aws.sqs, queueUrl)).map(
      (message) => JSON.parse(message.Body ?? '') as CloudEvent<'pds.messaging-asset.received'>,
    );
    const stored = await direct.get<unknown>(MESSAGING_ASSETS_CHECKPOINT);
    const checkpoint = parseCheckpoint(stored?.value, MESSAGING_ASSETS_CHECKPOINT);
    // Both pages' writes of the first run and the end-of-run writes (the listing read, the second
    // run's too) each lost their answer once.
    expect(proxy.lostAnswers.length).toBeGreaterThanOrEqual(2);
    expect(first).toMatchObject({ emitted: 3, failed: 0, remaining: 0 });
    expect(again.emitted).toBe(0);
    expect(events.map((event) => event.data.messagingAssetId).sort()).toEqual([1, 2, 3]);
    expect([1, 2, 3].map((id) => isDone(checkpoint, id))).toEqual([true, true, true]);
    expect(checkpoint).toMatchObject({ highestId: 3, retry: [] });
  });
});
