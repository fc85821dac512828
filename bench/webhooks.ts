/**
 * Webhooks: what signing costs, how fast one delivery function sends, and whether a failing endpoint
 * delays the others.
 *
 *   node bench/webhooks.ts [--events 600] [--latency-ms 20] [--concurrency 10]
 *
 * 1. Signing: our headers (v1 alone; v1 + v1a) against the official `standardwebhooks` library's
 *    v1 `sign`, at bodies of 1, 16 and 256 KiB (µs per signature, ratio to the reference).
 * 2. Throughput at `--latency-ms` receiver latency, in one run and at the same concurrency
 *    (`--concurrency`, the records of one Lambda batch): the delivery flow (WebhookDelivery.deliver:
 *    endpoint and event from the state store in memory, signing, POST, delivery log) against a bare
 *    loop of POSTs signed as the flow signs them (v1 and v1a); deliveries per second and the ratio,
 *    at three event counts. Both paths are
 *    warmed alike first, and each size runs three rounds alternating which path goes first (median).
 * 3. Isolation: ten endpoints, nine answering 200 after `--latency-ms`; the tasks are handled as the
 *    function handles its batches (deliverBatch, ten at a time) on both lanes: the main lane's, and
 *    beside them the slow lane's tasks that are due. With one endpoint answering 503 to everything,
 *    with one dripping its answer (200 at once, then a byte every 100 ms for 1.5 s, within the
 *    attempt deadline, `--timeout-ms`, default 10 s as deployed), and with one answering 200 after
 *    300 ms, the nine's p99 delay (when their receivers answered) against a run without it. The main
 *    lane's budget follows the answers up to `--main-lane-ms` (default 2 s as deployed; at the
 *    deadline or over it, no budget). `--isolation-workers N` handles N main-lane batches at once
 *    (default 1, one after another: the worst case; deployed, the lane takes up to 10).
 *    `--isolation-only` runs this part alone.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type CloudEvent, EVENT_TYPES } from '../packages/bridge/src/events/index.ts';
import { MemoryStateStore } from '../packages/bridge/src/state/index.ts';
import {
  type DeliveryTask,
  generateSecret,
  generateSigningKey,
  keepEvent,
  MemoryDeliveryQueue,
  MemorySecretStore,
  postWebhook,
  WebhookDelivery,
  webhookHeaders,
} from '../packages/bridge/src/webhooks/index.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { dropEvent, memoryDelivery } from '../test/helpers/webhook-events.ts';
import { dripAnswer } from '../test/helpers/webhook-receiver.ts';
import { median, printTable } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/webhooks.ts',
  summary:
    'Webhook signing cost, delivery throughput against a bare loop, and isolation of a failing endpoint.',
  options: {
    events: {
      type: 'string',
      default: '600',
      value: 'n',
      description: 'events of the largest throughput run',
    },
    'latency-ms': { type: 'string', default: '20', value: 'ms', description: 'receiver latency' },
    concurrency: { type: 'string', default: '10', value: 'n', description: 'deliveries in flight' },
    'isolation-only': { type: 'boolean', description: 'run only the isolation part' },
    'isolation-sizes': {
      type: 'string',
      default: '20,40,80',
      value: 'n,n,n',
      description: 'events per endpoint of the isolation runs',
    },
    'main-lane-ms': {
      type: 'string',
      default: '2000',
      value: 'ms',
      description:
        "the cap of the main lane's budget in the isolation runs (WEBHOOK_MAIN_LANE_MS, default as deployed); --timeout-ms or more for no budget",
    },
    'timeout-ms': {
      type: 'string',
      default: '10000',
      value: 'ms',
      description: 'the attempt deadline in the isolation runs (WEBHOOK_TIMEOUT_MS, default as deployed)',
    },
    'isolation-workers': {
      type: 'string',
      default: '1',
      value: 'n',
      description:
        "main-lane batches handled at once in the isolation runs (1: one after another, the worst case; the deployed lane's maximumConcurrency is 10)",
    },
  },
});
const EVENTS = Number(values.events);
const LATENCY_MS = Number(values['latency-ms']);
const CONCURRENCY = Number(values.concurrency);
const ISOLATION_WORKERS = Number(values['isolation-workers']);

const event = (n: number, bytes = 1024) =>
  dropEvent(n, { time: new Date().toISOString(), data: { pad: 'x'.repeat(bytes) } });

function signing(): void {
  const secret = generateSecret();
  const { privateKey } = generateSigningKey();
  const reference = new Webhook(secret);
  const rows: Array<Array<string | number>> = [];
  for (const kib of [1, 16, 256]) {
    const body = JSON.stringify(event(1, kib * 1024));
    const per = (fn: () => unknown) => {
      const samples: number[] = [];
      for (let round = 0; round < 7; round++) {
        const started = performance.now();
        let count = 0;
        while (performance.now() - started < 100) {
          fn();
          count++;
        }
        samples.push(((performance.now() - started) * 1000) / count);
      }
      return median(samples);
    };
    const timestamp = Math.floor(Date.now() / 1000);
    const ref = per(() => reference.sign('evt-1', new Date(timestamp * 1000), body));
    const v1 = per(() =>
      webhookHeaders({ id: 'evt-1', timestampSeconds: timestamp, body }, { secrets: [secret] }),
    );
    const both = per(() =>
      webhookHeaders({ id: 'evt-1', timestampSeconds: timestamp, body }, { secrets: [secret], privateKey }),
    );
    rows.push([
      `${kib} KiB`,
      ref.toFixed(1),
      v1.toFixed(1),
      (v1 / ref).toFixed(2),
      both.toFixed(1),
      (both / ref).toFixed(2),
    ]);
  }
  console.log('\nSigning (µs per signature, median of 7 rounds; ratio = ours / standardwebhooks v1)');
  printTable(['body', 'standardwebhooks v1', 'ours v1', 'ratio', 'ours v1+v1a', 'ratio'], rows);
}

/** The dripping endpoint of the isolation part: 200 at once, then a byte every 100 ms for 1.5 s. */
const DRIP_EVERY_MS = 100;
const DRIP_BYTES = 15;
/** The attempt deadline of the isolation part (WEBHOOK_TIMEOUT_MS; `--timeout-ms`). */
const ISOLATION_TIMEOUT_MS = Number(values['timeout-ms']);
/**
 * The cap of the main lane's budget in the isolation part (WEBHOOK_MAIN_LANE_MS; `--main-lane-ms`):
 * the budget follows the receivers' answers up to it (packages/bridge/src/webhooks/lane-budget.ts).
 */
const ISOLATION_MAIN_LANE_MS = Number(values['main-lane-ms']);
/** The slow endpoint of the isolation part: 200 after 300 ms, within the deadline, past the budget. */
const SLOW_ANSWER_MS = 300;

async function receiver(
  answer: (path: string) => number | 'drip' | 'slow',
  answered: (path: string) => void = () => undefined,
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = answer(request.url ?? '');
      if (status !== 'drip') {
        setTimeout(
          () => {
            if (response.destroyed) return;
            response.writeHead(status === 'slow' ? 200 : status).end();
            answered(request.url ?? '');
          },
          status === 'slow' ? SLOW_ANSWER_MS : LATENCY_MS,
        );
        return;
      }
      dripAnswer(response, { everyMs: DRIP_EVERY_MS, bytes: DRIP_BYTES });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** Runs `work` over `items` with at most CONCURRENCY in flight. */
async function pooled<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

async function throughput(): Promise<void> {
  const { url, server } = await receiver(() => 204);
  const target = new URL(`${url}/hook`);
  const rows: Array<Array<string | number>> = [];
  const ROUNDS = 3;
  for (const count of [EVENTS / 4, EVENTS / 2, EVENTS].map(Math.round)) {
    const store = new MemoryStateStore();
    const queue = new MemoryDeliveryQueue();
    const delivery = new WebhookDelivery({
      store,
      secrets: new MemorySecretStore(),
      queue,
      policy: 'any',
      knownTypes: EVENT_TYPES,
    });
    const { endpoint, secret } = await delivery.registry.create({ url: `${url}/hook` });
    // The reference signs what the flow signs for this endpoint: v1 with its secret and v1a with
    // the bridge's ed25519 key (the flow's default, asymmetric: true).
    const { privateKey } = await delivery.secrets.signingKey();
    const bare = (each: CloudEvent) => {
      const body = JSON.stringify(each);
      const headers = webhookHeaders(
        { id: each.id, timestampSeconds: Math.floor(Date.now() / 1000), body },
        { secrets: [secret], privateKey },
      );
      return postWebhook(target, body, headers, { policy: 'any' });
    };
    const batch = async (prefix: string) => {
      const events = Array.from({ length: count }, (_, n) => event(n));
      for (const each of events) each.id = `${prefix}-${each.id}`;
      for (const each of events) await keepEvent(store, each);
      const tasks = events.map(
        (each): DeliveryTask => ({ kind: 'deliver', endpointId: endpoint.id, eventId: each.id, attempt: 1 }),
      );
      return { events, tasks };
    };
    // Warm both paths alike (JIT, the signing key, CONCURRENCY keep-alive sockets), outside the timing.
    const warm = await batch('warm');
    await pooled(warm.tasks, (task) => delivery.deliver(task));
    await pooled(warm.events, bare);
    // Rounds alternate which path goes first; the ratio is the median of the rounds' ratios.
    const flows: number[] = [];
    const bares: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const { events, tasks } = await batch(`r${round}`);
      const timeFlow = async () => {
        const started = performance.now();
        await pooled(tasks, (task) => delivery.deliver(task));
        return count / ((performance.now() - started) / 1000);
      };
      const timeBare = async () => {
        const started = performance.now();
        await pooled(events, bare);
        return count / ((performance.now() - started) / 1000);
      };
      let flowRate: number;
      let bareRate: number;
      if (round % 2 === 0) {
        flowRate = await timeFlow();
        bareRate = await timeBare();
      } else {
        bareRate = await timeBare();
        flowRate = await timeFlow();
      }
      flows.push(flowRate);
      bares.push(bareRate);
      ratios.push(flowRate / bareRate);
    }
    rows.push([count, median(bares).toFixed(0), median(flows).toFixed(0), median(ratios).toFixed(2)]);
  }
  server.close();
  console.log(
    `\nThroughput at ${LATENCY_MS} ms receiver latency, ${CONCURRENCY} in flight (deliveries per second; median of ${ROUNDS} rounds in alternating order, after a warm-up of both paths)`,
  );
  printTable(['events', 'bare signed POST loop', 'delivery flow', 'ratio'], rows);
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

async function isolation(): Promise<void> {
  const rows: Array<Array<string | number>> = [];
  for (const perEndpoint of String(values['isolation-sizes']).split(',').map(Number)) {
    const delays: Record<'without' | 'with' | 'dripping' | 'slow', number> = {
      without: 0,
      with: 0,
      dripping: 0,
      slow: 0,
    };
    for (const mode of ['without', 'with', 'dripping', 'slow'] as const) {
      // A delivery's delay is when its receiver answered, as the receiver sees it: not when the batch
      // it was in settled, which a slow batch-mate holds back though the delivery was made.
      const healthyDelays: number[] = [];
      let enqueuedAt = 0;
      const { url, server } = await receiver(
        (path) =>
          path.startsWith('/failing') ? (mode === 'dripping' ? 'drip' : mode === 'slow' ? 'slow' : 503) : 200,
        (path) => {
          if (path.startsWith('/ok-')) healthyDelays.push(performance.now() - enqueuedAt);
        },
      );
      const { queue, slowQueue, delivery } = memoryDelivery({
        asymmetric: false,
        timeoutMs: ISOLATION_TIMEOUT_MS,
        mainLaneBudgetMs: ISOLATION_MAIN_LANE_MS,
      });
      for (let n = 0; n < 9; n++) await delivery.registry.create({ url: `${url}/ok-${n}` });
      if (mode !== 'without') await delivery.registry.create({ url: `${url}/failing` });
      const events = Array.from({ length: perEndpoint }, (_, n) => event(n));
      enqueuedAt = performance.now();
      await delivery.dispatch(events);
      const tasks = queue.take();
      // The function's batches on each lane: ten records at a time, handled concurrently. The main
      // lane's; beside it the slow lane takes what is due there now (retries minutes away are left).
      let mainDone = false;
      let next = 0;
      const mainWorker = async () => {
        for (let start = next; start < tasks.length; start = next) {
          next += 10;
          const batch = tasks.slice(start, start + 10);
          await delivery.deliverBatch(batch, 'main');
        }
      };
      const main = async () => {
        await Promise.all(Array.from({ length: ISOLATION_WORKERS }, mainWorker));
        mainDone = true;
      };
      const slow = async () => {
        while (!mainDone || slowQueue.tasks.some((each) => each.delaySeconds === 0)) {
          const due = slowQueue.tasks.filter((each) => each.delaySeconds === 0).slice(0, 10);
          for (const each of due) slowQueue.tasks.splice(slowQueue.tasks.indexOf(each), 1);
          if (due.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
          else
            await delivery.deliverBatch(
              due.map((each) => each.task),
              'slow',
            );
        }
      };
      await Promise.all([main(), slow()]);
      delays[mode] = p99(healthyDelays);
      server.closeAllConnections();
      server.close();
    }
    rows.push([
      perEndpoint,
      delays.without.toFixed(0),
      delays.with.toFixed(0),
      (delays.with / delays.without).toFixed(2),
      delays.dripping.toFixed(0),
      (delays.dripping / delays.without).toFixed(2),
      delays.slow.toFixed(0),
      (delays.slow / delays.without).toFixed(2),
    ]);
  }
  console.log(
    `\nIsolation: nine endpoints answering 200 after ${LATENCY_MS} ms, ${ISOLATION_WORKERS} main-lane batch${ISOLATION_WORKERS === 1 ? '' : 'es'} at once, ${ISOLATION_MAIN_LANE_MS < ISOLATION_TIMEOUT_MS ? `main-lane budget following the answers, at most ${ISOLATION_MAIN_LANE_MS} ms` : 'no main-lane budget'}, ${ISOLATION_TIMEOUT_MS} ms deadline; p99 delay (ms) of their deliveries from dispatch`,
  );
  printTable(
    [
      'events per endpoint',
      'without a failing endpoint',
      'with one answering 503',
      'ratio',
      'with one dripping its answer',
      'ratio',
      `with one answering after ${SLOW_ANSWER_MS} ms`,
      'ratio',
    ],
    rows,
  );
}

if (values['isolation-only'] !== true) {
  signing();
  await throughput();
}
await isolation();
