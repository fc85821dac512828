/**
 * The slow lane (issue 33, "one endpoint's failures never delay another's deliveries"): once an
 * endpoint has failed, its tasks — dispatched later, or already waiting on the main lane — go to the
 * slow lane, so a main-lane batch for the healthy endpoints completes while the failing endpoint's
 * request still hangs. Checked by the order of events (a latch holds endpoint A's answer), not by
 * wall time; receivers on 127.0.0.1.
 */

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import { laneOf } from '../../packages/bridge/src/webhooks/handlers.ts';
import {
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
} from '../../packages/bridge/src/webhooks/index.ts';
import { MIN_BUDGET_MS } from '../../packages/bridge/src/webhooks/lane-budget.ts';
import { dropEvent, memoryDelivery } from './../helpers/webhook-events.ts';
import { dripAnswer } from './../helpers/webhook-receiver.ts';

const event = (n: number) => dropEvent(n, { time: new Date().toISOString() });

/**
 * One receiver on 127.0.0.1 for ten endpoints (`/a`, `/b` … `/j`): B..J answer 204; A answers its
 * first request 503 and holds every later one until {@link release}.
 */
async function receivers() {
  const order: string[] = [];
  const held: ServerResponse[] = [];
  let aRequests = 0;
  let heldArrived: () => void = () => {};
  const aHeld = new Promise<void>((resolve) => {
    heldArrived = resolve;
  });
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url !== '/a') {
        response.writeHead(204).end();
        return;
      }
      aRequests++;
      if (aRequests === 1) {
        response.writeHead(503).end('busy');
        return;
      }
      order.push('a request held');
      held.push(response);
      heldArrived();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    order,
    aHeld,
    aRequests: () => aRequests,
    /** Answers A's held requests (200). */
    release() {
      for (const response of held.splice(0)) {
        order.push('a answered');
        response.writeHead(200).end('late');
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver on 127.0.0.1 answering each request (after its body) with `answer`; closed after the test. */
async function receiverOn(answer: (path: string, response: ServerResponse) => void): Promise<string> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => answer(request.url ?? '', response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('webhook delivery: the slow lane', () => {
  it("completes the main lane's batch for the healthy endpoints while the failing endpoint's request hangs, and moves its tasks to the slow lane", async () => {
    // prepare: ten endpoints, A first; three events dispatched while every endpoint is healthy
    const receiver = await receivers();
    cleanups.push(receiver.close);
    const store = new MemoryStateStore();
    const main = new MemoryDeliveryQueue();
    const slow = new MemoryDeliveryQueue();
    const delivery = new WebhookDelivery({
      store,
      secrets: new MemorySecretStore(),
      queue: main,
      slowQueue: slow,
      policy: 'any',
      knownTypes: EVENT_TYPES,
      asymmetric: false,
      // Far beyond the test: A's held request ends only when the test releases it.
      timeoutMs: 60_000,
    });
    const ids: string[] = [];
    for (const path of 'abcdefghij')
      ids.push((await delivery.registry.create({ url: `${receiver.base}/${path}` })).endpoint.id);
    const a = ids[0] as string;
    await delivery.dispatch([event(0), event(1), event(2)]);
    expect(slow.tasks).toEqual([]);
    const queued = main.take();
    const firstBatch = queued.filter((task) => task.eventId === 'evt-0');
    const olderTasks = queued.filter((task) => task.eventId !== 'evt-0');

    // A's first attempt fails (503): A is no longer healthy, its retry takes the slow lane
    const first = await delivery.deliverBatch(firstBatch, 'main');
    const firstOutcomes = firstBatch.map((task, n) => {
      const result = first[n] as PromiseSettledResult<string>;
      return [
        task.endpointId === a ? 'a' : 'other',
        result.status === 'fulfilled' ? result.value : 'rejected',
      ];
    });
    expect(firstOutcomes.sort()).toEqual([['a', 'retrying'], ...Array(9).fill(['other', 'delivered'])]);
    expect(slow.take().map((task) => [task.endpointId, task.eventId, task.attempt])).toEqual([
      [a, 'evt-0', 2],
    ]);
    expect(main.tasks).toEqual([]);

    // an event dispatched now: A's task goes to the slow lane, the nine others' to the main lane
    await delivery.dispatch([event(3)]);
    const slowTasks = slow.take();
    expect(slowTasks.map((task) => [task.endpointId, task.eventId])).toEqual([[a, 'evt-3']]);
    const newTasks = main.take();
    expect(newTasks.map((task) => task.endpointId).sort()).toEqual(ids.slice(1).sort());

    // act: the slow lane attempts A (its request hangs); meanwhile the main lane's batch carries the
    // nine's deliveries and A's two older tasks
    const slowBatch = delivery.deliverBatch(slowTasks, 'slow').then((settled) => {
      receiver.order.push('slow batch settled');
      return settled;
    });
    cleanups.push(async () => {
      receiver.release();
      await slowBatch;
    });
    await receiver.aHeld;
    const mainBatch = [...olderTasks, ...newTasks];
    // Only against a hang if the main lane waited on A: the order of events decides, not this timer.
    const unblock = setTimeout(() => receiver.release(), 5_000);
    cleanups.push(() => clearTimeout(unblock));
    const settled = await delivery.deliverBatch(mainBatch, 'main');
    receiver.order.push('main batch settled');
    receiver.release();
    await slowBatch;

    // assess: the main batch settled while A's request was still held, and never reached A
    expect(receiver.order).toEqual([
      'a request held',
      'main batch settled',
      'a answered',
      'slow batch settled',
    ]);
    const outcomes = mainBatch.map((task, n) => {
      const result = settled[n] as PromiseSettledResult<string>;
      return [
        task.endpointId === a ? 'a' : 'other',
        result.status === 'fulfilled' ? result.value : 'rejected',
      ];
    });
    expect(outcomes.filter(([who]) => who === 'a')).toEqual([
      ['a', 'moved'],
      ['a', 'moved'],
    ]);
    expect(outcomes.filter(([who]) => who === 'other')).toEqual(Array(27).fill(['other', 'delivered']));
    expect(receiver.aRequests()).toBe(2);
    // A's older tasks wait on the slow lane, not yet attempted; the main lane holds none of A's tasks
    expect(slow.tasks.map(({ task }) => [task.endpointId, task.eventId, task.attempt]).sort()).toEqual([
      [a, 'evt-1', 1],
      [a, 'evt-2', 1],
    ]);
    expect(main.tasks).toEqual([]);
  });

  it('returns an endpoint that succeeds again to the main lane', async () => {
    // prepare: an endpoint whose last attempt failed
    const receiver = await receivers();
    cleanups.push(receiver.close);
    const main = new MemoryDeliveryQueue();
    const slow = new MemoryDeliveryQueue();
    const delivery = new WebhookDelivery({
      store: new MemoryStateStore(),
      secrets: new MemorySecretStore(),
      queue: main,
      slowQueue: slow,
      policy: 'any',
      knownTypes: EVENT_TYPES,
      asymmetric: false,
    });
    const { endpoint } = await delivery.registry.create({ url: `${receiver.base}/b` });
    await delivery.registry.change(endpoint.id, (record) => ({ ...record, failures: 2 }));
    await delivery.dispatch([event(0)]);
    expect(main.tasks).toEqual([]);

    // act: its slow-lane task succeeds; then a new event comes
    expect(await delivery.deliver(slow.take()[0] as never, 'slow')).toBe('delivered');
    await delivery.dispatch([event(1)]);

    // assess
    expect(slow.tasks).toEqual([]);
    expect(main.take().map((task) => task.eventId)).toEqual(['evt-1']);
  });
});

describe("webhook delivery: the main lane's budget", () => {
  /** A receiver on 127.0.0.1 for `/fast` (204 at once) and `/late` (204 after `lateMs`, changeable). */
  const lateReceiver = (lateMs: { value: number }) =>
    receiverOn((path, response) => {
      setTimeout(
        () => {
          if (!response.destroyed) response.writeHead(204).end();
        },
        path === '/late' ? lateMs.value : 0,
      );
    });

  it('hands a task whose answer takes longer than the budget to the slow lane, delivers it there within the deadline, and keeps the endpoint there until it answers within the budget', async () => {
    // prepare: budget 150 ms, deadline 3 s; one endpoint answering after 600 ms, one at once
    const lateMs = { value: 600 };
    const base = await lateReceiver(lateMs);
    const {
      queue: main,
      slowQueue: slow,
      delivery,
    } = memoryDelivery({ asymmetric: false, timeoutMs: 3_000, mainLaneBudgetMs: 150 });
    const late = (await delivery.registry.create({ url: `${base}/late` })).endpoint;
    const fast = (await delivery.registry.create({ url: `${base}/fast` })).endpoint;
    await delivery.dispatch([event(0)]);

    // act: the main lane's batch
    const outcomes = await delivery.deliverBatch(main.take(), 'main');

    // assess: the late attempt was stopped at the budget (without it, it would have been delivered on
    // the main lane after 600 ms); its task is on the slow lane, not failed
    expect(outcomes.map((each) => (each.status === 'fulfilled' ? each.value : 'rejected')).sort()).toEqual([
      'delivered',
      'moved',
    ]);
    const handed = slow.take();
    expect(handed.map((task) => [task.endpointId, task.attempt])).toEqual([[late.id, 1]]);
    const marked = await delivery.registry.require(late.id);
    expect(marked.failures).toBe(0);
    expect(marked.slowSince).toBeDefined();
    expect((await delivery.registry.require(fast.id)).slowSince).toBeUndefined();

    // act: the slow lane delivers it with the whole deadline; still late, so the endpoint stays slow
    expect(await delivery.deliver(handed[0] as never, 'slow')).toBe('delivered');
    expect((await delivery.registry.require(late.id)).slowSince).toBe(marked.slowSince);
    await delivery.dispatch([event(1)]);
    expect(main.take().map((task) => task.endpointId)).toEqual([fast.id]);

    // act: it answers within the budget again
    lateMs.value = 0;
    expect(await delivery.deliver(slow.take()[0] as never, 'slow')).toBe('delivered');
    await delivery.dispatch([event(2)]);

    // assess: back on the main lane
    expect((await delivery.registry.require(late.id)).slowSince).toBeUndefined();
    expect(
      main
        .take()
        .map((task) => task.endpointId)
        .sort(),
    ).toEqual([fast.id, late.id].sort());
  });
});

describe("webhook delivery: the main lane's budget follows the receivers", () => {
  /** `/fast` answers 204 at once; `/drip` answers 200 at once, then a byte every 100 ms for 30 s. */
  const dripReceiver = () =>
    receiverOn((path, response) => {
      if (path === '/drip') dripAnswer(response, { everyMs: 100, bytes: 300 });
      else response.writeHead(204).end();
    });

  it("stops a dripping endpoint's first attempt at a few times its batch-mates' answer time, not at the configured cap", {
    timeout: 8_000,
  }, async () => {
    // prepare: a new instance (no answers known), cap 10 s under a 20 s deadline; nine endpoints
    // answering at once and one dripping, one event
    const base = await dripReceiver();
    const {
      queue: main,
      slowQueue: slow,
      delivery,
    } = memoryDelivery({ asymmetric: false, timeoutMs: 20_000, mainLaneBudgetMs: 10_000 });
    const drip = (await delivery.registry.create({ url: `${base}/drip` })).endpoint;
    for (let n = 0; n < 9; n++) await delivery.registry.create({ url: `${base}/fast?n=${n}` });
    await delivery.dispatch([event(0)]);

    // act: the main lane's first batch (before the budget followed the answers, it held the batch
    // for the whole 10 s cap, past this test's timeout)
    const outcomes = await delivery.deliverBatch(main.take(), 'main');

    // assess: nine delivered, the dripping one handed to the slow lane, marked slow at a budget the
    // nine's answers set (at least the floor, far under the cap), not failed
    expect(outcomes.map((each) => (each.status === 'fulfilled' ? each.value : 'rejected')).sort()).toEqual([
      ...Array(9).fill('delivered'),
      'moved',
    ]);
    expect(slow.take().map((task) => task.endpointId)).toEqual([drip.id]);
    const marked = await delivery.registry.require(drip.id);
    expect(marked.failures).toBe(0);
    expect(marked.slowAfterMs).toBeGreaterThanOrEqual(MIN_BUDGET_MS);
    expect(marked.slowAfterMs).toBeLessThan(10_000);
  });
});

describe('webhook-delivery: the lane of a record', () => {
  const lanes = { main: 'pds-bridge-dev-webhooks', slow: 'pds-bridge-dev-webhooks-slow' };
  const record = (queue: string) =>
    ({ messageId: 'm-1', eventSourceARN: `arn:aws:sqs:eu-central-1:123456789012:${queue}` }) as SQSRecord;

  it('is the queue the record came from', () => {
    expect(laneOf(record('pds-bridge-dev-webhooks'), lanes)).toBe('main');
    expect(laneOf(record('pds-bridge-dev-webhooks-slow'), lanes)).toBe('slow');
  });

  it('refuses a record from another queue, naming both variables', () => {
    expect(() => laneOf(record('pds-bridge-prod-webhooks'), lanes)).toThrow(
      /neither WEBHOOK_QUEUE_URL's queue \(pds-bridge-dev-webhooks\) nor WEBHOOK_SLOW_QUEUE_URL's/,
    );
  });
});
