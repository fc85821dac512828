/**
 * One failing endpoint must not take the others' share of a batch (issue 33, the isolation target):
 * an endpoint whose breaker is open gets its tasks queued to wait at dispatch (no batch slot until
 * the breaker closes); a failing endpoint is attempted once per batch, its other tasks wait without
 * spending an attempt; and the tasks a batch queues again go to the queue together.
 */

import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import {
  type DeliveryTask,
  keepEvent,
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
} from '../../packages/bridge/src/webhooks/index.ts';
import { dropEvent } from './../helpers/webhook-events.ts';

const NOW = new Date(Date.UTC(2026, 11, 1, 12, 0, 0));

const event = (n: number) => dropEvent(n, { time: NOW.toISOString() });

/** Two endpoints on a receiver we control: `ok` answers 204, `dead` answers 503. */
async function setup() {
  const reads: string[] = [];
  const store = new MemoryStateStore({
    beforeOperation: (operation) => {
      if (operation.kind === 'get') reads.push(operation.key);
    },
  });
  const queue = new MemoryDeliveryQueue();
  const enqueueCalls: number[] = [];
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = async (tasks, delaySeconds) => {
    enqueueCalls.push(tasks.length);
    await enqueue(tasks, delaySeconds);
  };
  const requests: string[] = [];
  const delivery = new WebhookDelivery({
    store,
    secrets: new MemorySecretStore(),
    queue,
    policy: 'any',
    knownTypes: EVENT_TYPES,
    asymmetric: false,
    now: () => NOW,
    random: () => 0.5,
    post: async (url) => {
      requests.push(url.pathname);
      return url.pathname === '/dead'
        ? { status: 503, latencyMs: 1, response: 'busy' }
        : { status: 204, latencyMs: 1, response: '' };
    },
  });
  const ok = (await delivery.registry.create({ url: 'http://127.0.0.1:9/ok' })).endpoint;
  const dead = (await delivery.registry.create({ url: 'http://127.0.0.1:9/dead' })).endpoint;
  const task = (endpointId: string, n: number): DeliveryTask => ({
    kind: 'deliver',
    endpointId,
    eventId: `evt-${n}`,
    attempt: 1,
  });
  for (let n = 0; n < 5; n++) await keepEvent(store, event(n));
  return { delivery, queue, enqueueCalls, requests, reads, ok: ok.id, dead: dead.id, task };
}

describe('webhook delivery: a failing endpoint does not take the others’ batch slots', () => {
  it('queues the tasks of an endpoint whose breaker is open to wait for it at dispatch', async () => {
    const h = await setup();
    const openUntil = new Date(NOW.getTime() + 120_000).toISOString();
    await h.delivery.registry.change(h.dead, (record) => ({
      ...record,
      failures: 6,
      breakerOpenUntil: openUntil,
    }));

    await h.delivery.dispatch([event(0), event(1)]);

    const queued = h.queue.tasks.map(({ task, delaySeconds }) => ({
      endpointId: task.endpointId,
      delaySeconds,
      notBefore: task.notBefore,
    }));
    expect(queued.filter((each) => each.endpointId === h.ok)).toEqual([
      { endpointId: h.ok, delaySeconds: 0, notBefore: undefined },
      { endpointId: h.ok, delaySeconds: 0, notBefore: undefined },
    ]);
    expect(queued.filter((each) => each.endpointId === h.dead)).toEqual([
      { endpointId: h.dead, delaySeconds: 120, notBefore: openUntil },
      { endpointId: h.dead, delaySeconds: 120, notBefore: openUntil },
    ]);
  });

  it('attempts a failing endpoint once per batch; its other tasks wait without spending an attempt', async () => {
    const h = await setup();
    await h.delivery.registry.change(h.dead, (record) => ({ ...record, failures: 1 }));
    const tasks = [h.task(h.dead, 0), h.task(h.ok, 0), h.task(h.dead, 1), h.task(h.ok, 1), h.task(h.dead, 2)];

    const results = await h.delivery.deliverBatch(tasks);

    expect(results.map((each) => (each.status === 'fulfilled' ? each.value : 'rejected'))).toEqual([
      'retrying',
      'delivered',
      'waiting',
      'delivered',
      'waiting',
    ]);
    expect(h.requests.filter((path) => path === '/dead')).toHaveLength(1);
    expect(h.requests.filter((path) => path === '/ok')).toHaveLength(2);
    const waiting = h.queue.tasks.filter(({ task }) => task.eventId !== 'evt-0');
    expect(waiting.map(({ task, delaySeconds }) => [task.eventId, task.attempt, delaySeconds])).toEqual([
      ['evt-1', 1, 5],
      ['evt-2', 1, 5],
    ]);
  });

  it('sends the tasks a batch queues again in one request per delay, reading the endpoint once and no event', async () => {
    const h = await setup();
    await h.delivery.registry.change(h.dead, (record) => ({
      ...record,
      failures: 5,
      breakerOpenUntil: new Date(NOW.getTime() + 30_000).toISOString(),
    }));
    const tasks = [0, 1, 2, 3, 4].map((n) => h.task(h.dead, n));
    h.reads.length = 0;

    const results = await h.delivery.deliverBatch(tasks);

    expect(results.every((each) => each.status === 'fulfilled' && each.value === 'waiting')).toBe(true);
    expect(h.requests).toEqual([]);
    expect(h.enqueueCalls).toEqual([5]);
    // The endpoint is read once for the batch; a waiting task's event is not read at all.
    expect(h.reads).toEqual([expect.stringContaining(h.dead)]);
  });

  it('fails back the tasks that were to be queued again when the queue refuses them; the delivered stand', async () => {
    const h = await setup();
    await h.delivery.registry.change(h.dead, (record) => ({ ...record, failures: 1 }));
    h.queue.enqueue = async () => {
      throw new Error('SQS is unavailable');
    };

    const results = await h.delivery.deliverBatch([h.task(h.ok, 0), h.task(h.dead, 1), h.task(h.dead, 2)]);

    expect(results.map((each) => each.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  });

  it('reads the endpoint records of a dispatch at once, not one after another', async () => {
    // prepare: every endpoint read takes 20 ms; count the reads in flight
    let inFlight = 0;
    let most = 0;
    let reading = false;
    const store = new MemoryStateStore({
      beforeOperation: async (operation) => {
        if (!reading || operation.kind !== 'get' || !operation.key.includes('/endpoints/')) return;
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
      },
    });
    const delivery = new WebhookDelivery({
      store,
      secrets: new MemorySecretStore(),
      queue: new MemoryDeliveryQueue(),
      policy: 'any',
      knownTypes: EVENT_TYPES,
    });
    for (let n = 0; n < 4; n++) await delivery.registry.create({ url: `http://127.0.0.1:9/hook-${n}` });

    // act
    reading = true;
    const endpoints = await delivery.registry.list();
    reading = false;

    // assess
    expect(endpoints).toHaveLength(4);
    expect(most).toBe(4);
  });
});
