/**
 * Webhook delivery end to end in one process: endpoints in a state store, tasks in a memory queue,
 * signed POSTs to a receiver on 127.0.0.1 with faults. Signatures are checked by the official
 * `standardwebhooks` library (v1) and by Python's `cryptography` (v1a) — never by the signing code.
 */

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type CloudEvent, EVENT_TYPES, eventId } from '../../packages/bridge/src/events/index.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import { endpointDisabledEvent } from '../../packages/bridge/src/webhooks/handlers.ts';
import {
  type DeliveryTask,
  type EndpointDisabled,
  getDelivery,
  listDeliveries,
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
} from '../../packages/bridge/src/webhooks/index.ts';
import { explain, type PublicationExplanation } from '../../packages/cli/src/ops/why.ts';
import { verifyWebhook } from '../../packages/consumer/src/index.ts';
import { dropEvent } from './../helpers/webhook-events.ts';
import { type ReceivedRequest, startTestReceiver, type TestReceiver } from '../helpers/webhook-receiver.ts';

const root = path.resolve(import.meta.dirname, '../..');

function event(n: number, type = 'pds.ingest.completed', subject = `s3://drop/file-${n}.csv`): CloudEvent {
  return dropEvent(n, { type, subject });
}

interface Harness {
  store: MemoryStateStore;
  secrets: MemorySecretStore;
  queue: MemoryDeliveryQueue;
  delivery: WebhookDelivery;
  clock: { now: Date };
  disabled: EndpointDisabled[];
  /** Runs every queued task whose wait has passed on the fake clock, until none is left runnable. */
  drain(maxRounds?: number): Promise<string[]>;
}

function harness(options: { disableAfterMs?: number } = {}): Harness {
  const store = new MemoryStateStore();
  const queue = new MemoryDeliveryQueue();
  const secrets = new MemorySecretStore();
  const clock = { now: new Date() };
  const disabled: EndpointDisabled[] = [];
  const delivery = new WebhookDelivery({
    store,
    secrets,
    queue,
    policy: 'any',
    knownTypes: EVENT_TYPES,
    now: () => clock.now,
    random: () => 0.5,
    timeoutMs: 2000,
    onDisabled: async (each) => {
      disabled.push(each);
    },
    ...options,
  });
  return {
    store,
    secrets,
    queue,
    delivery,
    clock,
    disabled,
    async drain(maxRounds = 50) {
      const outcomes: string[] = [];
      for (let round = 0; round < maxRounds && queue.tasks.length > 0; round++) {
        const batch = queue.tasks.splice(0);
        // The fake clock jumps to the latest wait of the batch (as SQS would make them visible).
        const waitMs = Math.max(...batch.map((each) => each.delaySeconds * 1000));
        clock.now = new Date(clock.now.getTime() + waitMs);
        outcomes.push(...(await Promise.all(batch.map((each) => delivery.deliver(each.task)))));
      }
      return outcomes;
    },
  };
}

function verifyWithPython(request: ReceivedRequest, publicKey: string, now: number): { verified: boolean } {
  const run = spawnSync('python3', [path.join(root, 'examples/webhook-receiver-python/verify.py')], {
    input: JSON.stringify({ body: request.body, headers: request.headers, publicKey, now }),
    encoding: 'utf8',
  });
  return JSON.parse(run.stdout || '{"verified":false}');
}

describe('webhook delivery', () => {
  let receiver: TestReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('delivers a signed CloudEvent that the official library verifies with the secret (v1)', async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint, secret } = await h.delivery.registry.create({ url: receiver.url });

    // act
    await h.delivery.dispatch([event(1)]);
    const outcomes = await h.drain();

    // assess
    expect(outcomes).toEqual(['delivered']);
    const [request] = receiver.received;
    const verified = new Webhook(secret).verify(
      request?.body ?? '',
      request?.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({ id: 'evt-1', type: 'pds.ingest.completed' });
    expect(request?.headers['webhook-id']).toBe('evt-1');
    const record = await getDelivery(h.store, endpoint.id, 'evt-1');
    expect(record).toMatchObject({ status: 'delivered', attempts: [{ attempt: 1, status: 204 }] });
  });

  it('adds a v1a signature that an independent ed25519 verifier (Python cryptography) accepts, and refuses a tampered body', async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    await h.delivery.registry.create({ url: receiver.url });
    const publicKey = await h.delivery.secrets.publicKey();

    // act
    await h.delivery.dispatch([event(2)]);
    await h.drain();

    // assess
    const request = receiver.received[0] as ReceivedRequest;
    expect(request.headers['webhook-signature']).toMatch(/^v1,\S+ v1a,\S+$/);
    const now = Number(request.headers['webhook-timestamp']);
    expect(verifyWithPython(request, publicKey, now)).toMatchObject({ verified: true });
    expect(
      verifyWithPython({ ...request, body: request.body.replace('evt-2', 'evt-3') }, publicKey, now),
    ).toMatchObject({
      verified: false,
    });
  });

  it('examples/webhook-receiver-python/verify.py refuses signatures and keys that are not base64 with a clear answer, never a crash', async () => {
    // prepare
    const headers = {
      'webhook-id': 'evt-1',
      'webhook-timestamp': '1000',
      'webhook-signature': 'v1,%%% v1a,not*base64',
    };
    const run = (input: object) =>
      spawnSync('python3', [path.join(root, 'examples/webhook-receiver-python/verify.py')], {
        input: JSON.stringify({ body: '{}', headers, now: 1000, ...input }),
        encoding: 'utf8',
      });

    // act
    const forged = run({
      secret: 'whsec_c2VjcmV0',
      publicKey: `whpk_${Buffer.alloc(32, 1).toString('base64')}`,
    });
    const badKey = run({ publicKey: 'whpk_???' });

    // assess
    expect(forged.stderr).toBe('');
    expect(JSON.parse(forged.stdout)).toEqual({ verified: false, error: 'no signature matches' });
    expect(badKey.stderr).toBe('');
    expect(JSON.parse(badKey.stdout)).toMatchObject({
      verified: false,
      error: expect.stringMatching(/public key is not base64/),
    });
  });

  it("is verified by the consumer kit's verifyWebhook with the secret (v1) or the public key (v1a), and a tampered or stale one is refused", async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { secret } = await h.delivery.registry.create({ url: receiver.url });
    const publicKey = await h.delivery.secrets.publicKey();
    await h.delivery.dispatch([event(8)]);
    await h.drain();
    const request = receiver.received[0] as ReceivedRequest;
    const headers = request.headers as Record<string, string>;
    const now = new Date(Number(headers['webhook-timestamp']) * 1000);

    // act
    const bySecret = verifyWebhook({ body: request.body, headers, secret, now });
    const byKey = verifyWebhook({ body: request.body, headers, publicKey, now });

    // assess
    expect(bySecret).toMatchObject({ id: 'evt-8' });
    expect(byKey).toMatchObject({ id: 'evt-8' });
    expect(() => verifyWebhook({ body: `${request.body} `, headers, secret, now })).toThrow(/No signature/);
    expect(() =>
      verifyWebhook({ body: request.body, headers, publicKey, now: new Date(now.getTime() + 600_000) }),
    ).toThrow(/tolerance|from now/);
  });

  it('shows in pds bridge why the webhook deliveries of the events a publication emitted', async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    const id = eventId('pds.publication.completed', ['p-1']);
    await h.store.create(publicationKey('p-1'), {
      publicationId: 'p-1',
      status: 'published',
      request: { primaryKeys: ['0401'], destinations: [] },
      bodyHash: 'h',
      requestedBy: 'local',
      createdAt: '2026-12-01T10:00:00.000Z',
      updatedAt: '2026-12-01T10:00:00.000Z',
      attempts: 1,
    });
    await h.delivery.dispatch([{ ...event(50, 'pds.publication.completed', 'publication/p-1'), id }]);
    await h.drain();

    // act
    const answer = (await explain(h.store, {
      kind: 'publication',
      publicationId: 'p-1',
    })) as PublicationExplanation;

    // assess
    expect(answer.events).toEqual([
      {
        type: 'pds.publication.completed',
        id,
        deliveries: [{ endpointId: endpoint.id, status: 'delivered', attempts: 1, lastStatus: 204 }],
      },
    ]);
  });

  it('signs with both secrets during a rotation, so receivers holding either verify', async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint, secret: oldSecret } = await h.delivery.registry.create({ url: receiver.url });
    const { secret: newSecret } = await h.delivery.registry.rotate(endpoint.id, 3_600_000);

    // act
    await h.delivery.dispatch([event(3)]);
    await h.drain();
    h.clock.now = new Date(h.clock.now.getTime() + 3_600_001);
    await h.delivery.dispatch([event(4)]);
    await h.drain();

    // assess
    const [during, after] = receiver.received as [ReceivedRequest, ReceivedRequest];
    const headersOf = (r: ReceivedRequest) => r.headers as Record<string, string>;
    // Verify at the delivery's own time (the fake clock is ahead of the real one).
    expect(() => new Webhook(oldSecret).verify(during.body, headersOf(during))).not.toThrow();
    expect(() => new Webhook(newSecret).verify(during.body, headersOf(during))).not.toThrow();
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(3);
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(after.body).toContain('evt-4');
  });

  it('retries on the schedule, waits at least the Retry-After, and delivers once the endpoint recovers', async () => {
    // prepare
    receiver = await startTestReceiver((_request, index) =>
      index === 0
        ? { status: 503, headers: { 'retry-after': '120' } }
        : index === 1
          ? { status: 500 }
          : { status: 200 },
    );
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });

    // act
    await h.delivery.dispatch([event(5)]);
    const first = await h.delivery.deliver(h.queue.take()[0] as never);
    const retryDelay = h.queue.tasks[0]?.delaySeconds;
    const rest = await h.drain();

    // assess
    expect(first).toBe('retrying');
    expect(retryDelay).toBe(120);
    expect(rest.filter((each) => each !== 'waiting')).toEqual(['retrying', 'delivered']);
    const record = await getDelivery(h.store, endpoint.id, 'evt-5');
    expect(record?.status).toBe('delivered');
    expect(record?.attempts.map((each) => each.status)).toEqual([503, 500, 200]);
    expect(new Set(receiver.received.map((each) => each.headers['webhook-id']))).toEqual(new Set(['evt-5']));
  });

  it('ends a delivery as failed after the last attempt of the schedule, and a failed-only replay sends it again with its id', async () => {
    // prepare
    let healthy = false;
    receiver = await startTestReceiver(() => ({ status: healthy ? 200 : 500 }));
    const h = harness({ disableAfterMs: 30 * 86_400_000 });
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    const offeredAt = h.clock.now.toISOString();
    await h.delivery.dispatch([6, 7].map((n) => dropEvent(n, { time: offeredAt })));
    h.queue.tasks.splice(1); // evt-7 is never attempted: only evt-6 fails
    const outcomes = await h.drain(2000);
    await h.delivery.registry.change(endpoint.id, (r) => ({ ...r, failures: 0 }));

    // act
    healthy = true;
    const replayed = await h.delivery.replay(endpoint.id, {
      since: new Date(offeredAt),
      failedOnly: true,
    });
    await h.drain();

    // assess
    expect(outcomes.filter((each) => each !== 'waiting').at(-1)).toBe('failed');
    expect(outcomes.filter((each) => each === 'retrying')).toHaveLength(9);
    expect(replayed.queued).toEqual(['evt-6', 'evt-7']);
    expect((await getDelivery(h.store, endpoint.id, 'evt-6'))?.status).toBe('delivered');
    expect(receiver.received.at(-1)?.headers['webhook-id']).toMatch(/^evt-[67]$/);
  });

  it('opens the breaker after consecutive failures (tasks wait without spending attempts) and closes it on a success', async () => {
    // prepare
    let healthy = false;
    receiver = await startTestReceiver(() => ({ status: healthy ? 200 : 503 }));
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([1, 2, 3, 4, 5, 6].map((n) => event(10 + n)));

    // act
    const first = await Promise.all(h.queue.take().map((task) => h.delivery.deliver(task)));
    const opened = await h.delivery.registry.get(endpoint.id);
    const postsWhileOpen = receiver.received.length;
    const waiting = await Promise.all(h.queue.take().map((task) => h.delivery.deliver(task)));
    healthy = true;
    await h.drain();

    // assess
    expect(first.filter((each) => each === 'retrying')).toHaveLength(6);
    expect(opened?.failures).toBeGreaterThanOrEqual(5);
    expect(opened?.breakerOpenUntil).toBeDefined();
    expect(waiting.every((each) => each === 'waiting')).toBe(true);
    expect(receiver.received.length).toBeGreaterThanOrEqual(postsWhileOpen);
    const closed = await h.delivery.registry.get(endpoint.id);
    expect(closed?.failures).toBe(0);
    expect(closed?.breakerOpenUntil).toBeUndefined();
    const log = await listDeliveries(h.store, endpoint.id);
    expect(log.map((each) => each.status)).toEqual(Array(6).fill('delivered'));
  });

  it('half-opens an open breaker on a replay: the replayed events go out at once, not after the breaker', async () => {
    // prepare: the breaker opened on 503s; then the endpoint is fixed
    let healthy = false;
    receiver = await startTestReceiver(() => ({ status: healthy ? 200 : 503 }));
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([1, 2, 3, 4, 5].map((n) => event(40 + n)));
    await Promise.all(h.queue.take().map((task) => h.delivery.deliver(task)));
    const opened = await h.delivery.registry.get(endpoint.id);
    h.queue.take(); // the retries, queued to wait for the breaker
    healthy = true;

    // act: replayed, then run at once (the clock does not move)
    const replayed = await h.delivery.replay(endpoint.id, {
      eventIds: [41, 42, 43, 44, 45].map((n) => `evt-${n}`),
      failedOnly: true,
    });
    const outcomes: string[] = [];
    for (let round = 0; round < 3; round++)
      for (const task of h.queue.take().filter((each) => each.replay))
        outcomes.push(await h.delivery.deliver(task));

    // assess
    expect(opened?.breakerOpenUntil).toBeDefined();
    expect(replayed.queued).toHaveLength(5);
    expect(outcomes.filter((each) => each === 'delivered')).toHaveLength(5);
    const after = await h.delivery.registry.get(endpoint.id);
    expect(after).toMatchObject({ failures: 0 });
    expect(after?.breakerOpenUntil).toBeUndefined();
  });

  it('sends each event once to an endpoint recovered by a replay: the tasks that waited for the breaker are not sent again', async () => {
    // prepare: the breaker opened on 503s, the retries wait for it; then the endpoint is fixed
    let healthy = false;
    receiver = await startTestReceiver(() => ({ status: healthy ? 200 : 503 }));
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([1, 2, 3, 4, 5].map((n) => event(50 + n)));
    await Promise.all(h.queue.take().map((task) => h.delivery.deliver(task)));
    const waiting = h.queue.tasks.length;
    healthy = true;
    h.clock.now = new Date(h.clock.now.getTime() + 1000);

    // act: the replay goes out first, then the waiting tasks come due
    await h.delivery.replay(endpoint.id, { eventIds: [51, 52, 53, 54, 55].map((n) => `evt-${n}`) });
    const replays = h.queue.tasks.filter((each) => each.task.replay);
    h.queue.tasks.splice(0, h.queue.tasks.length, ...h.queue.tasks.filter((each) => !each.task.replay));
    const replayed = await Promise.all(replays.map((each) => h.delivery.deliver(each.task)));
    const outcomes = await h.drain();

    // assess
    expect(waiting).toBe(5);
    expect(replayed).toEqual(Array(5).fill('delivered'));
    const answered200 = receiver.received.slice(5).map((each) => each.headers['webhook-id']);
    expect(answered200.sort()).toEqual(['evt-51', 'evt-52', 'evt-53', 'evt-54', 'evt-55']);
    expect(outcomes.filter((each) => each === 'already-delivered')).toHaveLength(5);
    const log = await listDeliveries(h.store, endpoint.id);
    expect(log.map((each) => each.status)).toEqual(Array(5).fill('delivered'));
  });

  it("refuses a replay whose since is older than the delivery log's retention, naming the earliest it takes", async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    const days = (n: number) => new Date(h.clock.now.getTime() - n * 86_400_000);

    // act
    const tooOld = h.delivery.replay(endpoint.id, { since: days(40) });
    const ancient = h.delivery.replay(endpoint.id, { since: new Date('0001-01-01T00:00:00Z') });
    const within = await h.delivery.replay(endpoint.id, { since: days(29) });

    // assess
    await expect(tooOld).rejects.toMatchObject({
      code: 'WEBHOOK_REPLAY_INVALID',
      message: expect.stringContaining(`no earlier than ${days(30).toISOString()}`),
    });
    await expect(ancient).rejects.toMatchObject({ code: 'WEBHOOK_REPLAY_INVALID' });
    expect(within).toEqual({ queued: [], skipped: [] });
  });

  it('replays a long time range page by page: each page bounded, next continues, every event queued once', async () => {
    // prepare: seven events a minute apart, the last two at the same millisecond
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    const at = (minutes: number) => new Date(h.clock.now.getTime() - minutes * 60_000).toISOString();
    const events = [7, 6, 5, 4, 3, 2, 2].map((minutes, n) => dropEvent(80 + n, { time: at(minutes) }));
    await h.delivery.dispatch(events);
    h.queue.take();

    // act
    const pages = [];
    let since: Date | undefined = new Date(h.clock.now.getTime() - 3_600_000);
    while (since) {
      const page = await h.delivery.replay(endpoint.id, { since, limit: 2 });
      pages.push(page);
      since = page.next ? new Date(page.next) : undefined;
    }

    // assess
    expect(pages.map((page) => page.queued.length)).toEqual([2, 2, 3]);
    const queued = pages.flatMap((page) => page.queued);
    expect(queued.sort()).toEqual(events.map((each) => each.id).sort());
    expect(h.queue.tasks).toHaveLength(7);
  });

  it("honours the endpoint's filters in a replay by ids, and says which events it skipped and why", async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({
      url: receiver.url,
      eventTypes: ['pds.publication.completed'],
    });
    await h.delivery.dispatch([event(90), event(91, 'pds.publication.completed', 'pub-91')]);
    h.queue.take();

    // act
    const result = await h.delivery.replay(endpoint.id, { eventIds: ['evt-90', 'evt-91'] });

    // assess
    expect(result.queued).toEqual(['evt-91']);
    expect(result.skipped).toEqual([
      { eventId: 'evt-90', reason: expect.stringMatching(/does not take it \(pds\.ingest\.completed/) },
    ]);
    expect(h.queue.tasks.map((each) => each.task.eventId)).toEqual(['evt-91']);
  });

  it('disables an endpoint that answers 410 Gone, records what it then misses, and a replay after enabling brings it all back', async () => {
    // prepare
    let gone = true;
    receiver = await startTestReceiver(() => ({ status: gone ? 410 : 200 }));
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });

    // act
    await h.delivery.dispatch([event(20)]);
    const outcome = await h.drain();
    await h.delivery.dispatch([event(21)]);
    const afterDisable = h.queue.tasks.length;
    gone = false;
    await h.delivery.registry.enable(endpoint.id);
    const replayed = await h.delivery.replay(endpoint.id, { eventIds: ['evt-20', 'evt-21'] });
    await h.drain();

    // assess
    expect(outcome).toEqual(['disabled']);
    expect(h.disabled).toMatchObject([{ reason: 'gone', endpoint: { id: endpoint.id, status: 'disabled' } }]);
    expect(afterDisable).toBe(0);
    expect(replayed.queued).toEqual(['evt-20', 'evt-21']);
    const ids = receiver.received.slice(1).map((each) => each.headers['webhook-id']);
    expect(ids.sort()).toEqual(['evt-20', 'evt-21']);
  });

  it("never lets a disabled endpoint's token reach another endpoint: its event carries the origin, and only endpoints that ask for pds.webhook.* get it", async () => {
    // prepare: one receiver, three endpoints: a token URL that answers 410, one taking every type,
    // one listing pds.webhook.endpoint-disabled
    receiver = await startTestReceiver((request) => ({
      status: request.url?.includes('tok_') ? 410 : 204,
    }));
    const h = harness();
    const token = 'tok_5ecret9';
    const base = receiver.url.replace('/hook', '');
    await h.delivery.registry.create({ url: `${base}/hooks/${token}?key=${token}` });
    const everyType = await h.delivery.registry.create({ url: `${base}/every` });
    const asked = await h.delivery.registry.create({
      url: `${base}/asked`,
      eventTypes: ['pds.webhook.endpoint-disabled'],
    });

    // act: the disabled endpoint's event is offered to webhooks, as the deployed function's sink does
    await h.delivery.dispatch([event(60)]);
    await h.drain();
    const announced = h.disabled.map((each) => endpointDisabledEvent(each));
    await h.delivery.dispatch(announced);
    await h.drain();

    // assess
    expect(announced).toHaveLength(1);
    expect(announced[0]?.data.url).toBe(new URL(base).origin);
    expect(JSON.stringify(announced)).not.toContain(token);
    const bodies = receiver.received.map((each) => each.body);
    expect(bodies.filter((each) => each.includes(token))).toEqual([]);
    const disabledDeliveries = await Promise.all(
      [everyType, asked].map(({ endpoint }) => getDelivery(h.store, endpoint.id, announced[0]?.id ?? '')),
    );
    expect(disabledDeliveries.map((each) => each?.status)).toEqual([undefined, 'delivered']);
  });

  it('disables an endpoint that keeps failing past disableAfterMs and announces it once', async () => {
    // prepare
    receiver = await startTestReceiver(() => ({ status: 500 }));
    const h = harness({ disableAfterMs: 3_600_000 });
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });

    // act
    await h.delivery.dispatch([event(30)]);
    await h.drain(200);

    // assess
    expect((await h.delivery.registry.get(endpoint.id))?.status).toBe('disabled');
    expect(h.disabled).toHaveLength(1);
    expect(h.disabled[0]?.reason).toBe('failing');
  });

  it('delivers only the event types and subjects an endpoint asked for', async () => {
    // prepare
    receiver = await startTestReceiver();
    const h = harness();
    await h.delivery.registry.create({
      url: receiver.url,
      eventTypes: ['pds.publication.completed'],
      subject: 'pub-*',
    });

    // act
    const queued = await h.delivery.dispatch([
      event(40, 'pds.ingest.completed', 'pub-1'),
      event(41, 'pds.publication.completed', 'pub-2'),
      event(42, 'pds.publication.completed', 'other'),
    ]);
    await h.drain();

    // assess
    expect(queued).toBe(1);
    expect(receiver.received.map((each) => each.headers['webhook-id'])).toEqual(['evt-41']);
  });

  it('refuses at every attempt an http endpoint written under another policy: nothing is sent in clear text, the log says why', async () => {
    // prepare: registered where http is allowed (the local stack's policy), delivered where it is not
    receiver = await startTestReceiver();
    const h = harness();
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    const deployed = new WebhookDelivery({
      store: h.store,
      secrets: h.secrets,
      queue: h.queue,
      policy: 'public',
      knownTypes: EVENT_TYPES,
      random: () => 0.5,
    });
    await deployed.dispatch([event(70)]);

    // act
    const outcome = await deployed.deliver(h.queue.take()[0] as DeliveryTask);

    // assess
    expect(outcome).toBe('retrying');
    expect(receiver.received).toHaveLength(0);
    const record = await getDelivery(h.store, endpoint.id, 'evt-70');
    expect(record?.attempts[0]?.response).toMatch(/is not https; a deployed bridge delivers only over https/);
  });

  it('refuses, when deployed, http URLs and hosts that resolve to private, loopback or metadata addresses', async () => {
    // prepare
    const store = new MemoryStateStore();
    const deployed = new WebhookDelivery({
      store,
      secrets: new MemorySecretStore(),
      queue: new MemoryDeliveryQueue(),
      policy: 'public',
      knownTypes: EVENT_TYPES,
    });

    // act / assess
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://169.254.169.254/latest',
      'https://10.1.2.3/',
      'https://[::1]/',
      'https://localhost/',
    ]) {
      await expect(deployed.registry.create({ url })).rejects.toMatchObject({ code: 'WEBHOOK_URL_REFUSED' });
    }
    await expect(
      deployed.registry.create({ url: 'https://x.example/', eventTypes: ['pds.nope'] }),
    ).rejects.toMatchObject({
      code: 'WEBHOOK_ENDPOINT_INVALID',
    });
  });
});
