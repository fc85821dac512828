/**
 * One deadline per attempt, connect to last byte (issue 42): an endpoint that answers 200 at once and
 * then drips its answer a byte a second used to hold each attempt until its last byte and be recorded
 * `delivered`, healthy, on the main lane. Receivers on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { getDelivery } from '../../packages/bridge/src/webhooks/index.ts';
import { dropEvent, memoryDelivery } from '../helpers/webhook-events.ts';
import { dripAnswer } from '../helpers/webhook-receiver.ts';

type Answer = 'drip' | 'hang' | 'endless';

/** A receiver whose answers misbehave: `drip` (200 at once, then a byte a second for 6 s), `hang`, `endless` (200, then bytes as fast as it can, never ending). */
async function misbehaving(answer: Answer): Promise<{ url: string; requests: () => number; server: Server }> {
  let requests = 0;
  const _timers = new Set<NodeJS.Timeout>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      if (answer === 'hang') return;
      if (answer === 'drip') {
        dripAnswer(response, { everyMs: 1000, bytes: 7 });
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      if (answer === 'endless') {
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (response.write(chunk)) {}
        };
        response.on('drain', pump);
        response.on('error', () => {});
        pump();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    requests: () => requests,
    server,
  };
}

const harness = (timeoutMs: number) => memoryDelivery({ timeoutMs, random: () => 0.5 });

describe('webhook delivery: one deadline per attempt', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('fails an attempt whose answer drips past the deadline, though it began 200, and moves the endpoint off the main lane', async () => {
    // prepare
    const receiver = await misbehaving('drip');
    servers.push(receiver.server);
    const h = harness(800);
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([dropEvent(1), dropEvent(2)]);
    const [first, second] = h.queue.take();

    // act
    const started = performance.now();
    const outcome = await h.delivery.deliver(first as never, 'main');
    const tookMs = performance.now() - started;
    const next = await h.delivery.deliver(second as never, 'main');

    // assess
    expect(outcome).toBe('retrying');
    expect(tookMs).toBeLessThan(2500);
    const record = await getDelivery(h.store, endpoint.id, 'evt-1');
    expect(record?.status).toBe('pending');
    expect(record?.attempts[0]?.status).toBeUndefined();
    expect(record?.attempts[0]?.response).toMatch(/no complete answer within 800 ms/);
    expect(await h.delivery.registry.get(endpoint.id)).toMatchObject({ failures: 1 });
    expect(next).toBe('moved');
    expect(h.slowQueue.tasks.map((each) => each.task.eventId).sort()).toEqual(['evt-1', 'evt-2']);
  }, 15_000);

  it('ends every attempt of a batch by the time the invocation gives it, and records each outcome', async () => {
    // prepare: the attempt's own deadline (5 s) is longer than what the invocation has left (0.6 s)
    const receiver = await misbehaving('hang');
    servers.push(receiver.server);
    const h = harness(5000);
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([dropEvent(3)]);
    const tasks = h.queue.take();

    // act
    const started = performance.now();
    const [settled] = await h.delivery.deliverBatch(tasks, 'main', { attemptsEndBy: Date.now() + 600 });
    const tookMs = performance.now() - started;

    // assess
    expect(settled).toEqual({ status: 'fulfilled', value: 'retrying' });
    expect(tookMs).toBeLessThan(2000);
    const record = await getDelivery(h.store, endpoint.id, 'evt-3');
    expect(record).toMatchObject({ status: 'pending', attempts: [{ attempt: 1 }] });
  }, 15_000);

  it('does not begin an attempt when the invocation has no time left: the task is queued again, no attempt spent', async () => {
    // prepare
    const receiver = await misbehaving('hang');
    servers.push(receiver.server);
    const h = harness(5000);
    await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([dropEvent(4)]);
    const tasks = h.queue.take();

    // act
    const [settled] = await h.delivery.deliverBatch(tasks, 'main', { attemptsEndBy: Date.now() - 1 });

    // assess
    expect(settled).toEqual({ status: 'fulfilled', value: 'waiting' });
    expect(receiver.requests()).toBe(0);
    expect(h.queue.tasks).toMatchObject([{ task: { eventId: 'evt-4', attempt: 1 }, delaySeconds: 0 }]);
  });

  it('counts an endless answer by its status once it has read 64 KiB, without waiting for its end', async () => {
    // prepare
    const receiver = await misbehaving('endless');
    servers.push(receiver.server);
    const h = harness(3000);
    const { endpoint } = await h.delivery.registry.create({ url: receiver.url });
    await h.delivery.dispatch([dropEvent(5)]);
    const [task] = h.queue.take();

    // act
    const started = performance.now();
    const outcome = await h.delivery.deliver(task as never, 'main');

    // assess
    expect(outcome).toBe('delivered');
    expect(performance.now() - started).toBeLessThan(2500);
    const record = await getDelivery(h.store, endpoint.id, 'evt-5');
    expect(record?.attempts[0]).toMatchObject({ status: 200, response: expect.stringMatching(/^x+$/) });
  }, 15_000);
});
