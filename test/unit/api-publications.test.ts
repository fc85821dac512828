import { describe, expect, it } from 'vitest';
import type { ApiSettings } from '../../packages/bridge/src/api/index.ts';
import { type ApiDependencies, createApi } from '../../packages/bridge/src/api/index.ts';
import { PdsServerError } from '../../packages/bridge/src/pds/errors.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import type { PublicationQueue } from '../../packages/bridge/src/publications/queue.ts';
import type { PublicationRecord } from '../../packages/bridge/src/publications/records.ts';
import { bodyHashOf, publicationIdFor } from '../../packages/bridge/src/publications/submit.ts';
import { StateStoreError } from '../../packages/bridge/src/state/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import { apiEvent, bodyOf, postPublicationEvent, publicationBody, TEST_USER_ARN } from '../helpers/apigw.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';

const SETTINGS: ApiSettings = {
  maxKeys: 1000,
  channelsCacheMs: 0,
  watchTtlMs: 86_400_000,
  auth: { mode: 'iam' },
};
const T0 = new Date('2026-11-20T09:15:00.000Z');

function setup(overrides: Partial<ApiDependencies> = {}) {
  const store: StateStore = overrides.store ?? new MemoryStateStore();
  const queue = new RecordingQueue();
  const api = createApi({
    store,
    queue,
    pds: async () => new FakePds(),
    settings: SETTINGS,
    version: '1.0.0',
    now: () => T0,
    ...overrides,
  });
  return { api, store, queue };
}

async function keysOf(store: StateStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys;
}

describe('POST /publications', () => {
  it('records the request, queues it and answers 202 with the id and a Location', async () => {
    // Prepare
    const { api, store, queue } = setup();
    const body = publicationBody(['04012345678901', '04012345678902']);

    // Act
    const result = await api.handle(postPublicationEvent(body));

    // Assess
    expect(result.statusCode).toBe(202);
    const answer = bodyOf(result);
    const id = answer.publicationId as string;
    expect(answer).toEqual({ publicationId: id, status: 'queued' });
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(result.headers?.location).toBe(`/publications/${id}`);
    expect(queue.sent).toEqual([{ publicationId: id }]);
    const record = (await store.get<PublicationRecord>(publicationKey(id)))?.value;
    expect(record).toMatchObject({
      publicationId: id,
      status: 'queued',
      request: body,
      requestedBy: TEST_USER_ARN,
      createdAt: T0.toISOString(),
      attempts: 0,
    });
    expect(await keysOf(store, 'idempotency/')).toEqual([]);
  });

  it('shows the queued publication at its Location', async () => {
    // Prepare
    const { api } = setup();
    const created = await api.handle(postPublicationEvent(publicationBody()));

    // Act
    const result = await api.handle(apiEvent({ path: created.headers?.location as string, iam: true }));

    // Assess
    expect(result.statusCode).toBe(200);
    const view = api.schemas.publication.parse(bodyOf(result));
    expect(view).toMatchObject({ status: 'queued', attempts: 0, request: publicationBody() });
    expect(view).not.toHaveProperty('bodyHash');
    expect(view).not.toHaveProperty('requestedBy');
  });

  it('answers a retry with the same Idempotency-Key with the first answer and queues once', async () => {
    // Prepare
    const { api, queue } = setup();
    const event = () => postPublicationEvent(publicationBody(), { idempotencyKey: 'order-42' });
    const first = await api.handle(event());

    // Act
    const second = await api.handle(event());

    // Assess
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(bodyOf(second)).toEqual(bodyOf(first));
    expect(second.headers?.location).toBe(first.headers?.location);
    expect(second.headers?.['idempotent-replayed']).toBe('true');
    expect(first.headers?.['idempotent-replayed']).toBeUndefined();
    expect(queue.sent).toHaveLength(1);
    expect(bodyOf(first).publicationId).toBe(publicationIdFor(TEST_USER_ARN, 'order-42'));
  });

  it('treats the same body with other key order and whitespace as the same request', async () => {
    // Prepare
    const { api, queue } = setup();
    const first = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'k' }));
    const reordered = apiEvent({
      method: 'POST',
      path: '/publications',
      iam: true,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k' },
      body: '{ "destinations": [ {"destinationId": "gdsn-de", "destinationType": "COMMUNICATION_CHANNEL"} ],\n "primaryKeys": ["04012345678901"] }',
    });

    // Act
    const second = await api.handle(reordered);

    // Assess
    expect(second.statusCode).toBe(202);
    expect(bodyOf(second)).toEqual(bodyOf(first));
    expect(queue.sent).toHaveLength(1);
  });

  it('answers 422 when the Idempotency-Key is reused with a different body', async () => {
    // Prepare
    const { api, queue } = setup();
    await api.handle(postPublicationEvent(publicationBody(['1']), { idempotencyKey: 'k' }));

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody(['2']), { idempotencyKey: 'k' }));

    // Assess
    expect(result.statusCode).toBe(422);
    expect(bodyOf(result)).toMatchObject({
      type: 'urn:pds-bridge:problem:idempotency-key-reused',
      status: 422,
    });
    expect(queue.sent).toHaveLength(1);
  });

  it('scopes Idempotency-Keys by caller', async () => {
    // Prepare
    const { api, queue } = setup();

    // Act
    const alice = await api.handle(
      postPublicationEvent(publicationBody(['1']), { idempotencyKey: 'k', iam: 'arn:aws:iam::1:user/alice' }),
    );
    const bob = await api.handle(
      postPublicationEvent(publicationBody(['2']), { idempotencyKey: 'k', iam: 'arn:aws:iam::1:user/bob' }),
    );

    // Assess
    expect(alice.statusCode).toBe(202);
    expect(bob.statusCode).toBe(202);
    expect(bodyOf(alice).publicationId).not.toBe(bodyOf(bob).publicationId);
    expect(queue.sent).toHaveLength(2);
  });

  it('finds the Idempotency-Key of a retry from a new session of the same assumed role, not of another role', async () => {
    // prepare: the session name (here an instance id) changes with every session
    const { api, queue } = setup();
    const session = (role: string, name: string) => `arn:aws:sts::123456789012:assumed-role/${role}/${name}`;
    const send = (iam: string) =>
      api.handle(postPublicationEvent(publicationBody(['1']), { idempotencyKey: 'k', iam }));

    // act
    const first = await send(session('Publisher', 'i-0aaa'));
    const retry = await send(session('Publisher', 'i-0bbb'));
    const other = await send(session('Auditor', 'i-0aaa'));

    // assess
    expect(bodyOf(retry).publicationId).toBe(bodyOf(first).publicationId);
    expect(bodyOf(other).publicationId).not.toBe(bodyOf(first).publicationId);
    expect(queue.sent).toHaveLength(2);
  });

  it('without a key, two identical requests are two publications', async () => {
    // Prepare
    const { api, queue } = setup();

    // Act
    const first = await api.handle(postPublicationEvent(publicationBody()));
    const second = await api.handle(postPublicationEvent(publicationBody()));

    // Assess
    expect(bodyOf(first).publicationId).not.toBe(bodyOf(second).publicationId);
    expect(queue.sent).toHaveLength(2);
  });

  it.each([
    ['a MemoryStateStore', () => new MemoryStateStore()],
    [
      'the S3 store with conditional writes',
      () => new S3StateStore({ client: mockConditionalS3().client, bucket: 'state' }),
    ],
  ])('answers two concurrent identical requests with one publication over %s', async (_name, makeStore) => {
    // Prepare
    const { api, queue, store } = setup({ store: makeStore() });
    const event = () => postPublicationEvent(publicationBody(), { idempotencyKey: 'concurrent-1' });

    // Act
    const [a, b] = await Promise.all([api.handle(event()), api.handle(event())]);

    // Assess
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(bodyOf(a)).toEqual(bodyOf(b));
    expect(queue.sent).toHaveLength(1);
    expect(await keysOf(store, 'publications/')).toHaveLength(1);
    expect(await keysOf(store, 'idempotency/')).toEqual([]);
  });

  it('answers 409 in progress with Retry-After while the first request with the key is still queueing', async () => {
    // Prepare
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { api, queue } = setup({ now: () => new Date(), idempotency: { inProgressWaitMs: 50 } });
    queue.hold(gate);
    const event = () => postPublicationEvent(publicationBody(), { idempotencyKey: 'slow' });
    const first = api.handle(event());

    // Act
    const second = await api.handle(event());
    release();
    const firstResult = await first;
    const third = await api.handle(event());

    // Assess
    expect(second.statusCode).toBe(409);
    expect(second.headers?.['retry-after']).toBe('1');
    expect(bodyOf(second)).toMatchObject({ type: 'urn:pds-bridge:problem:request-in-progress' });
    expect(firstResult.statusCode).toBe(202);
    expect(third.statusCode).toBe(202);
    expect(bodyOf(third)).toEqual(bodyOf(firstResult));
    expect(queue.sent).toHaveLength(1);
  });

  it('answers 503 when queueing fails, keeps the record, and queues it on the retry with the same key', async () => {
    // Prepare
    const { api, store, queue } = setup();
    queue.failNext(1);
    const event = () => postPublicationEvent(publicationBody(), { idempotencyKey: 'retry-me' });

    // Act
    const failed = await api.handle(event());
    const afterFailure = await keysOf(store, 'publications/');
    const retried = await api.handle(event());
    const replayed = await api.handle(event());

    // Assess
    expect(failed.statusCode).toBe(503);
    expect(failed.headers?.['retry-after']).toBe('5');
    expect(bodyOf(failed)).toMatchObject({ type: 'urn:pds-bridge:problem:service-unavailable' });
    expect(afterFailure).toHaveLength(1);
    expect(retried.statusCode).toBe(202);
    expect(bodyOf(retried).publicationId).toBe(bodyOf(failed).publicationId);
    expect(replayed.headers?.['idempotent-replayed']).toBe('true');
    expect(queue.attempts).toBe(2);
    expect(queue.sent).toEqual([{ publicationId: bodyOf(failed).publicationId }]);
  });

  it('re-queues a request whose first attempt died while holding the claim, once the claim times out', async () => {
    // Prepare
    let clock = T0.getTime();
    const store = new MemoryStateStore();
    const crashing = setup({ store, now: () => new Date(clock) });
    crashing.queue.hold(new Promise<void>(() => {})); // never answers: the invocation "dies"
    void crashing.api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'crash' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { api, queue } = setup({
      store,
      now: () => new Date(clock),
      idempotency: { inProgressWaitMs: 0, claimTimeoutMs: 30_000 },
    });

    // Act
    const tooEarly = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'crash' }));
    clock += 31_000;
    const later = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'crash' }));

    // Assess
    expect(tooEarly.statusCode).toBe(409);
    expect(later.statusCode).toBe(202);
    expect(queue.sent).toEqual([{ publicationId: publicationIdFor(TEST_USER_ARN, 'crash') }]);
  });

  it('without a key, marks the publication failed when it cannot be queued', async () => {
    // Prepare
    const { api, store, queue } = setup();
    queue.failNext(1);

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody()));

    // Assess
    expect(result.statusCode).toBe(503);
    const id = bodyOf(result).publicationId as string;
    const record = (await store.get<PublicationRecord>(publicationKey(id)))?.value;
    expect(record?.status).toBe('failed');
    expect(record?.error?.reason).toMatch(/could not be queued/);
  });
});

/** Writes down, in order, every state-store and queue request the API makes. */
function tracing(store: StateStore, queue: PublicationQueue) {
  const trace: string[] = [];
  const tracedStore = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (['get', 'create', 'update', 'delete'].includes(String(property))) trace.push(String(property));
        return value.apply(target, args);
      };
    },
  });
  const tracedQueue: PublicationQueue = {
    send: (message) => {
      trace.push('send');
      return queue.send(message);
    },
  };
  return { trace, store: tracedStore, queue: tracedQueue };
}

describe('POST /publications round trips and the durability contract', () => {
  it('records a new key in one create, then queues, then marks it queued: three round trips', async () => {
    // Prepare
    const recording = new RecordingQueue();
    const traced = tracing(new MemoryStateStore(), recording);
    const { api } = setup({ store: traced.store, queue: traced.queue });

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-1' }));

    // Assess
    expect(result.statusCode).toBe(202);
    expect(traced.trace).toEqual(['create', 'send', 'update']);
    const id = bodyOf(result).publicationId as string;
    const record = (await traced.store.get<PublicationRecord>(publicationKey(id)))?.value;
    expect(record?.idempotency).toEqual({ queuedAt: T0.toISOString() });
  });

  it('records a request without a key in one create, then queues it: two round trips', async () => {
    // Prepare
    const traced = tracing(new MemoryStateStore(), new RecordingQueue());
    const { api } = setup({ store: traced.store, queue: traced.queue });

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody()));

    // Assess
    expect(result.statusCode).toBe(202);
    expect(traced.trace).toEqual(['create', 'send']);
  });

  it('answers a replay from the refused create and one read, queueing nothing', async () => {
    // Prepare
    const traced = tracing(new MemoryStateStore(), new RecordingQueue());
    const { api } = setup({ store: traced.store, queue: traced.queue });
    await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-2' }));
    traced.trace.length = 0;

    // Act
    const replay = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-2' }));

    // Assess
    expect(replay.statusCode).toBe(202);
    expect(replay.headers?.['idempotent-replayed']).toBe('true');
    expect(traced.trace).toEqual(['create', 'get']);
  });

  it('answers two concurrent requests with one key and different bodies with one 202 and one 422', async () => {
    // Prepare
    const { api, queue, store } = setup({
      store: new S3StateStore({ client: mockConditionalS3().client, bucket: 'state' }),
    });

    // Act
    const answers = await Promise.all([
      api.handle(postPublicationEvent(publicationBody(['1']), { idempotencyKey: 'rt-race' })),
      api.handle(postPublicationEvent(publicationBody(['2']), { idempotencyKey: 'rt-race' })),
    ]);

    // Assess
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([202, 422]);
    expect(queue.sent).toEqual([{ publicationId: publicationIdFor(TEST_USER_ARN, 'rt-race') }]);
    expect(await keysOf(store, 'publications/')).toHaveLength(1);
  });

  it('never queues a request that the state store did not record', async () => {
    // Prepare
    const store = new MemoryStateStore();
    const failing = new Proxy(store, {
      get(target, property) {
        if (property === 'create') {
          return async () => {
            throw new StateStoreError('publications/x.json', 'S3 is unavailable (simulated)', true);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const { api, queue } = setup({ store: failing });

    // Act
    const keyed = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-3' }));
    const unkeyed = await api.handle(postPublicationEvent(publicationBody()));

    // Assess
    expect(keyed.statusCode).toBe(503);
    expect(unkeyed.statusCode).toBe(503);
    expect(queue.attempts).toBe(0);
  });

  it('after a crash between queueing and marking queued, answers 409 until the claim times out, then queues the same publication again', async () => {
    // Prepare: the first invocation sends its message and dies before its mark is written
    let clock = T0.getTime();
    const store = new MemoryStateStore();
    const queue = new RecordingQueue();
    const dying = new Proxy(store, {
      get(target, property) {
        if (property === 'update') return () => new Promise(() => {});
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const crashing = setup({ store: dying, queue, now: () => new Date(clock) });
    void crashing.api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-4' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { api } = setup({
      store,
      queue,
      now: () => new Date(clock),
      idempotency: { inProgressWaitMs: 0, claimTimeoutMs: 30_000 },
    });

    // Act
    const tooEarly = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-4' }));
    clock += 31_000;
    const later = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-4' }));
    const replay = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'rt-4' }));

    // Assess: the second message names the same publication, which the worker carries out once
    const id = publicationIdFor(TEST_USER_ARN, 'rt-4');
    expect(tooEarly.statusCode).toBe(409);
    expect(later.statusCode).toBe(202);
    expect(bodyOf(later).publicationId).toBe(id);
    expect(replay.headers?.['idempotent-replayed']).toBe('true');
    expect(queue.sent).toEqual([{ publicationId: id }, { publicationId: id }]);
  });

  it('replays a key recorded before records carried its bookkeeping, queueing it again to be sure', async () => {
    // Prepare: a record as the previous version left it (its idempotency record lived elsewhere)
    const { api, store, queue } = setup();
    const body = publicationBody(['04012345678901']);
    const id = publicationIdFor(TEST_USER_ARN, 'legacy');
    await store.create(publicationKey(id), {
      publicationId: id,
      status: 'queued',
      request: api.schemas.publicationRequest.parse(body),
      bodyHash: bodyHashOf(api.schemas.publicationRequest.parse(body)),
      requestedBy: TEST_USER_ARN,
      createdAt: T0.toISOString(),
      updatedAt: T0.toISOString(),
      attempts: 0,
    } satisfies PublicationRecord);

    // Act
    const same = await api.handle(postPublicationEvent(body, { idempotencyKey: 'legacy' }));
    const other = await api.handle(
      postPublicationEvent(publicationBody(['04012345678902']), { idempotencyKey: 'legacy' }),
    );

    // Assess
    expect(same.statusCode).toBe(202);
    expect(same.headers?.['idempotent-replayed']).toBe('true');
    expect(queue.sent).toEqual([{ publicationId: id }]);
    expect(other.statusCode).toBe(422);
  });
});

describe('POST /publications, destinations checked against the PDS channel list', () => {
  const toChannels = (...ids: string[]) =>
    ids.map((destinationId) => ({ destinationType: 'COMMUNICATION_CHANNEL', destinationId }));

  it('answers 422 naming each channel the PDS does not have, and records and queues nothing', async () => {
    // Prepare
    const { api, store, queue } = setup();
    const body = publicationBody(['04012345678901'], toChannels('gdsn-de', 'gdsn-xx', 'nope'));

    // Act
    const result = await api.handle(postPublicationEvent(body));

    // Assess
    expect(result.statusCode).toBe(422);
    const problem = bodyOf(result);
    expect(problem.type).toBe('urn:pds-bridge:problem:validation-failed');
    expect(problem.detail).toContain('The PDS has no communication channel "gdsn-xx", "nope"');
    expect(problem.errors).toEqual([
      { pointer: '/destinations/1/destinationId', detail: expect.stringContaining('"gdsn-xx"') },
      { pointer: '/destinations/2/destinationId', detail: expect.stringContaining('"nope"') },
    ]);
    expect(queue.sent).toEqual([]);
    expect(await keysOf(store, '')).toEqual([]);
  });

  it('reads the cached list: two publications within the cache time read the PDS once', async () => {
    // Prepare
    const pds = new FakePds();
    const { api } = setup({ pds: async () => pds, settings: { ...SETTINGS, channelsCacheMs: 60_000 } });

    // Act
    const first = await api.handle(postPublicationEvent(publicationBody()));
    const second = await api.handle(postPublicationEvent(publicationBody()));

    // Assess
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    expect(pds.channelListings).toBe(1);
  });

  it('reads no list for IN_PLATFORM destinations', async () => {
    const pds = new FakePds();
    const { api } = setup({ pds: async () => pds });

    const result = await api.handle(
      postPublicationEvent(
        publicationBody(['1'], [{ destinationType: 'IN_PLATFORM', destinationId: 'org-1' }]),
      ),
    );

    expect(result.statusCode).toBe(202);
    expect(pds.channelListings).toBe(0);
  });

  it('with the PDS down and the cache cold answers 503 saying how to skip the check; ?channelCheck=skip publishes unchecked', async () => {
    // Prepare
    const down = new FakePds({
      listCommunicationChannels: async () => {
        throw new PdsServerError(503, { method: 'GET', path: '/api/v1/communicationchannels' }, '');
      },
    });
    const { api, queue } = setup({ pds: async () => down });
    const body = publicationBody(['1'], toChannels('gdsn-de'));

    // Act
    const refused = await api.handle(postPublicationEvent(body));
    const skipped = await api.handle(
      apiEvent({ method: 'POST', path: '/publications?channelCheck=skip', json: body, iam: true }),
    );
    const wrongValue = await api.handle(
      apiEvent({ method: 'POST', path: '/publications?channelCheck=off', json: body, iam: true }),
    );

    // Assess
    expect(refused.statusCode).toBe(503);
    expect(refused.headers?.['retry-after']).toBe('5');
    expect(bodyOf(refused).detail).toContain('?channelCheck=skip');
    expect(skipped.statusCode).toBe(202);
    expect(queue.sent).toHaveLength(1);
    expect(wrongValue.statusCode).toBe(400);
    expect(bodyOf(wrongValue).detail).toContain('channelCheck must be skip');
  });
});
