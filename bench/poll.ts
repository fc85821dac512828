/**
 * The pollers draining a large PDS: N messaging assets and K watched keys (each with one review),
 * against the simulator with a fixed latency per request, and fauxqs for the state bucket and the
 * event queues. Both servers run in child processes, so this process holds only the pollers.
 *
 *   node bench/poll.ts [--assets 10000] [--keys 5000] [--latency-ms 5] [--concurrency 8] [--workers 4]
 *                      [--profile backlog.cpuprofile]
 *
 * Prints, per phase, the time to drain, the PDS requests made (counted at the client), events per
 * second and the floor the concurrency allows: requests x latency / concurrency (x workers for the
 * fan-out), and the poller process's CPU time in all and per event, beside the CPU per event the
 * reference loop of the messaging assets took (what fetching alone costs this process; also below
 * the table). Phases: the messaging-asset backlog (drained run after run, each taking at most
 * POLL_MAX_ASSETS_PER_RUN new assets), one more run with nothing new, the review poll in one invocation
 * (state in fauxqs, then in memory), and the same watch list fanned out through the
 * review-poll queue to `--workers` workers (in this process: they share its CPU and the emulator).
 *
 * The same file is the child processes: `--serve simulator` seeds and serves the simulator,
 * `--serve fauxqs` serves the emulator; each prints its address once ready.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { createLimiter, mapLimit } from '../packages/bridge/src/core/index.ts';
import { SqsEventPublisher } from '../packages/bridge/src/events/sqs/index.ts';
import { createS3Client, createSqsClient } from '../packages/bridge/src/lambda/aws-clients.ts';
import { createPdsClient, type PdsClient } from '../packages/bridge/src/pds/index.ts';
import { pollMessagingAssets } from '../packages/bridge/src/polling/messaging-assets/index.ts';
import {
  chunkLayout,
  keysToPoll,
  parseReviewKeyChunk,
  pollReviewKeys,
  pollSupplierReviews,
} from '../packages/bridge/src/polling/supplier-reviews/index.ts';
import { SqsReviewKeyQueue } from '../packages/bridge/src/polling/supplier-reviews/sqs/review-queue.ts';
import { MemoryStateStore } from '../packages/bridge/src/state/index.ts';
import { S3StateStore } from '../packages/bridge/src/state/s3/index.ts';
import { watch } from '../packages/bridge/src/state/watch-list.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { printTable, root } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/poll.ts',
  summary:
    'The pollers draining a large PDS (simulator with a fixed latency per request, fauxqs for state and events): time, PDS requests, events per second and CPU per phase, against the floor the concurrency allows.',
  options: {
    assets: { type: 'string', default: '10000', value: 'n', description: 'messaging assets in the PDS' },
    keys: { type: 'string', default: '5000', value: 'n', description: 'watched keys, one review each' },
    'latency-ms': {
      type: 'string',
      default: '5',
      value: 'ms',
      description: "the simulator's latency per request",
    },
    concurrency: {
      type: 'string',
      default: '8',
      value: 'n',
      description: 'PDS requests in flight per poller',
    },
    workers: {
      type: 'string',
      default: '4',
      value: 'n',
      description: 'review-poll workers in the fan-out phase',
    },
    profile: {
      type: 'string',
      value: 'file',
      description:
        "write a CPU profile (.cpuprofile) of the messaging-asset backlog phase alone: the poller's work, not the servers' or the bench's",
    },
    serve: {
      type: 'string',
      value: 'simulator|fauxqs',
      description: 'internal: run as the named child process',
    },
  },
});
const ASSETS = Number(values.assets);
const KEYS = Number(values.keys);
const LATENCY_MS = Number(values['latency-ms']);
const CONCURRENCY = Number(values.concurrency);
const WORKERS = Number(values.workers);

const fixtures = path.resolve(root, 'test/fixtures/gdsn');
const XML = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'].map((name) =>
  readFileSync(path.join(fixtures, name), 'utf8'),
);
/** GETs made before the reference loop is measured. */
const REFERENCE_WARM_UP = 1_000;
const keyOf = (index: number) => `BENCH-${String(index).padStart(6, '0')}`;

/** Child: a simulator with K items (one review each, so K assets) and N - K further assets. */
async function serveSimulator(): Promise<void> {
  const { startSimulator } = await import('../packages/simulator/src/index.ts');
  const sim = await startSimulator({ demoData: false, port: 0, faults: { latencyMs: LATENCY_MS } });
  /** One review per key; each round is a day later, so it is a new review of every key. */
  const addReviews = (round: number) => {
    for (let index = 0; index < KEYS; index++) {
      sim.state.addSupplierReview(
        {
          primaryKey: keyOf(index),
          supplierId: '0614141000012',
          channelId: 'gdsn-de',
          supplier: 'Demo Supplier GmbH',
          reviewer: 'Demo Retail DE',
          reviewStatus: index % 7 === 0 ? 'REVIEW' : 'APPROVED',
          date: 1_767_603_600_000 + round * 86_400_000 + index,
          comment: '',
          messagingCreatorType: 'REVIEW',
        },
        XML[index % 3] as string,
      );
    }
  };
  addReviews(0);
  // The parent asks for a further round of reviews between phases (steady state: one new review per key).
  let round = 0;
  process.on('message', (message) => {
    if (message !== 'add-reviews') return;
    addReviews(++round);
    process.send?.('added');
  });
  for (let index = KEYS; index < ASSETS; index++)
    sim.state.addMessagingAsset({ xml: XML[index % 3] as string });
  process.stdout.write(`ready ${sim.url}\n`);
  process.once('SIGTERM', () => void sim.close().then(() => process.exit(0)));
}

/** Child: fauxqs on a free port. */
async function serveFauxqs(): Promise<void> {
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port: 0, logger: false });
  process.stdout.write(`ready http://127.0.0.1:${server.port}\n`);
  process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
}

async function child(kind: string): Promise<{ url: string; process: ChildProcess }> {
  const proc = spawn(process.execPath, [import.meta.filename, '--serve', kind, ...process.argv.slice(2)], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /ready (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    proc.once('exit', (code) => reject(new Error(`${kind} exited with ${code} before it was ready`)));
  });
  return { url, process: proc };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill('SIGTERM');
  await once(proc, 'exit');
}

/** Counts the PDS calls the pollers make. */
function counting(pds: PdsClient): { pds: PdsClient; count: () => number; reset: () => void } {
  let calls = 0;
  const wrapped = new Proxy(pds, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls++;
        return value.apply(target, args);
      };
    },
  });
  return {
    pds: wrapped,
    count: () => calls,
    reset: () => {
      calls = 0;
    },
  };
}

/** A CPU profile of this process from now until `stop` writes it to `file` (open it in Chrome DevTools). */
async function startProfile(file: string): Promise<{ stop(): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`CPU profile of the backlog phase: ${file}`);
    },
  };
}

async function main(): Promise<void> {
  const started = Date.now();
  const [simulator, fauxqs] = await Promise.all([child('simulator'), child('fauxqs')]);
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  // The factories the handlers use, so the bench measures the client configuration that ships.
  const s3 = createS3Client({ endpoint: fauxqs.url, region: 'us-east-1', credentials });
  const sqs = createSqsClient({ endpoint: fauxqs.url, region: 'us-east-1', credentials });
  // S3 requests by command, for the requests-per-key column: each one is money on a real bucket.
  const s3Requests = new Map<string, number>();
  s3.middlewareStack.add(
    (next, context) => (args) => {
      const command = context.commandName ?? 'unknown';
      s3Requests.set(command, (s3Requests.get(command) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  const s3Count = (command: string) => s3Requests.get(command) ?? 0;
  const pdsClient = createPdsClient({
    baseUrl: simulator.url,
    credentials: { username: 'demo', password: 'demo' },
    connections: CONCURRENCY * WORKERS,
  });
  try {
    await s3.send(new CreateBucketCommand({ Bucket: 'bench-state' }));
    const queueUrl = async (name: string) =>
      (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl as string;
    const assetQueue = await queueUrl('asset-events');
    const reviewQueue = await queueUrl('review-events');
    const chunkQueue = await queueUrl('review-poll');
    const store = new S3StateStore({ client: s3, bucket: 'bench-state' });
    const sink = new SqsEventPublisher({
      sqs,
      queueUrl: (type) => (type === 'pds.messaging-asset.received' ? assetQueue : reviewQueue),
      claimCheck: { s3, bucket: 'bench-state' },
    });
    const keys = Array.from({ length: KEYS }, (_, index) => keyOf(index));
    await mapLimit(keys, 32, (key) => watch(store, [key], { ttlMs: 86_400_000, source: 'bench' }));
    const { pds, count, reset } = counting(pdsClient);
    const queued = async (url: string) =>
      Number(
        (
          await sqs.send(
            new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }),
          )
        ).Attributes?.ApproximateNumberOfMessages,
      );

    const rows: Array<Array<string | number>> = [];
    let cpu = process.cpuUsage();
    /** One table row; `reference` is the same PDS requests made by a bare loop at the same concurrency. */
    const record = (
      phase: string,
      seconds: number,
      events: number,
      parallel: number,
      reference?: number,
      perKey?: number,
      referenceCpuMs?: number,
    ) => {
      const requests = count();
      const s3 = `${s3Count('GetObjectCommand')}/${s3Count('PutObjectCommand')}/${s3Count('ListObjectsV2Command')}`;
      const reads = perKey ? (s3Count('GetObjectCommand') / perKey).toFixed(2) : '-';
      const floor = (requests * LATENCY_MS) / 1000 / parallel;
      const used = process.cpuUsage(cpu);
      rows.push([
        phase,
        seconds.toFixed(2),
        requests,
        events,
        Math.round(events / seconds),
        floor.toFixed(2),
        reference === undefined ? '-' : reference.toFixed(2),
        reference === undefined ? '-' : (seconds / reference).toFixed(2),
        ((used.user + used.system) / 1e6).toFixed(2),
        events === 0 ? '-' : ((used.user + used.system) / 1e3 / events).toFixed(3),
        referenceCpuMs === undefined || events === 0 ? '-' : (referenceCpuMs / events).toFixed(3),
        s3,
        reads,
      ]);
      reset();
      s3Requests.clear();
      cpu = process.cpuUsage();
    };
    const timed = async (fn: () => Promise<unknown>) => {
      const t = performance.now();
      await fn();
      return (performance.now() - t) / 1000;
    };

    // References: the same PDS requests without the poller around them (no state, no parsing, no SQS).
    const assetIds = (await pdsClient.listMessagingAssets()).map((asset) => asset.id);
    // Warmed first, so the reference does not count the client's JIT warm-up against its GETs.
    await mapLimit(assetIds.slice(0, REFERENCE_WARM_UP), CONCURRENCY, (id) =>
      pdsClient.getMessagingAsset(id),
    );
    const referenceCpu = process.cpuUsage();
    const rawAssets = await timed(() =>
      mapLimit(assetIds, CONCURRENCY, (id) => pdsClient.getMessagingAsset(id)),
    );
    const rawAssetsCpu = process.cpuUsage(referenceCpu);
    const rawReviews = (parallel: number) =>
      timed(async () => {
        const limit = createLimiter(parallel);
        await mapLimit(keys, parallel * 4, async (key) => {
          const reviews = await limit(() => pdsClient.listSupplierReviews(key));
          await Promise.all(
            reviews.map((review) => limit(() => pdsClient.getMessagingAsset(review.messagingAssetId))),
          );
        });
      });
    const rawReviewsOne = await rawReviews(CONCURRENCY);
    // A poll with nothing new needs only the listing of each key's reviews.
    const rawNothingNew = await timed(() =>
      mapLimit(keys, CONCURRENCY, (key) => pdsClient.listSupplierReviews(key)),
    );
    const rawReviewsFanOut = await rawReviews(CONCURRENCY * WORKERS);
    reset();
    s3Requests.clear();
    cpu = process.cpuUsage();

    // Phase 1: the messaging-asset backlog, drained run after run as the schedule would (a run takes at
    // most POLL_MAX_ASSETS_PER_RUN new assets, 10,000 by default), then a run with nothing new.
    let backlog = 0;
    let backlogRuns = 0;
    const profile = values.profile ? await startProfile(values.profile) : undefined;
    let seconds = await timed(async () => {
      for (let remaining = 1; remaining > 0; backlogRuns++) {
        const report = await pollMessagingAssets(
          { pds, store, sink },
          { firstRun: 'backlog', concurrency: CONCURRENCY },
        );
        backlog += report.emitted;
        remaining = report.remaining + report.retryPending;
        // A run that emits nothing while assets remain would loop for ever (the PDS failing every fetch).
        if (remaining > 0 && report.emitted === 0) {
          throw new Error(
            `a backlog run emitted nothing with ${remaining} assets left: see the poller's log`,
          );
        }
      }
    });
    await profile?.stop();
    const rawAssetsCpuMs = (rawAssetsCpu.user + rawAssetsCpu.system) / 1e3;
    record('messaging assets: backlog', seconds, backlog, CONCURRENCY, rawAssets, undefined, rawAssetsCpuMs);
    let late = 0;
    seconds = await timed(async () => {
      late = (
        await pollMessagingAssets({ pds, store, sink }, { firstRun: 'backlog', concurrency: CONCURRENCY })
      ).emitted;
    });
    if (late > 0)
      throw new Error(`the run after the backlog emitted ${late} events: the backlog was not drained`);
    record('messaging assets: nothing new', seconds, 0, CONCURRENCY);

    // Phase 2: every watched key in one invocation, watch list in fauxqs: the first poll after the keys
    // were watched (every entry read once), a poll with nothing new, then one new review on every key.
    let emitted = 0;
    seconds = await timed(async () => {
      const report = await pollSupplierReviews(
        { pds, store, sink },
        { runId: 'first', inlineMax: KEYS, concurrency: CONCURRENCY },
      );
      emitted = report.mode === 'inline' ? report.reviewsEmitted : 0;
    });
    record('reviews: first poll after watching', seconds, emitted, CONCURRENCY, rawReviewsOne, KEYS);
    seconds = await timed(() =>
      pollSupplierReviews(
        { pds, store, sink },
        { runId: 'again', inlineMax: KEYS, concurrency: CONCURRENCY },
      ),
    );
    record('reviews: nothing new', seconds, 0, CONCURRENCY, rawNothingNew, KEYS);

    // Phase 3: the same with the watch list in memory: what the poller does when the state store is not
    // fauxqs (a single-threaded emulator that serves about 600 S3 requests per second on this machine).
    const watchInMemory = async () => {
      const memory = new MemoryStateStore();
      for (const key of keys) await watch(memory, [key], { ttlMs: 86_400_000, source: 'bench' });
      return memory;
    };
    let memory = await watchInMemory();
    reset();
    cpu = process.cpuUsage();
    seconds = await timed(async () => {
      emitted = (await pollReviewKeys({ pds, store: memory, sink }, keys, { concurrency: CONCURRENCY }))
        .reviewsEmitted;
    });
    record('reviews: one invocation, state in memory', seconds, emitted, CONCURRENCY, rawReviewsOne);

    // Phase 4: fanned out through the review-poll queue to WORKERS workers (state in memory again).
    memory = await watchInMemory();
    reset();
    cpu = process.cpuUsage();
    let chunks = 0;
    emitted = 0;
    seconds = await timed(async () => {
      const fanOut = await pollSupplierReviews(
        { pds, store: memory, sink },
        {
          runId: 'bench',
          // Fan out whatever --keys is: with 200 here (the deployed inline limit), 200 keys were polled
          // inline (0 chunks) and the row compared one invocation with a reference four times as wide.
          inlineMax: 0,
          chunkSize: 100,
          queue: new SqsReviewKeyQueue({ sqs, queueUrl: chunkQueue }),
        },
      );
      chunks = fanOut.mode === 'fan-out' ? fanOut.chunks : 0;
      const worker = async () => {
        for (let empty = 0; empty < 2; ) {
          const answer = await sqs.send(
            new ReceiveMessageCommand({ QueueUrl: chunkQueue, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }),
          );
          const [message] = answer.Messages ?? [];
          if (!message) {
            empty++;
            continue;
          }
          empty = 0;
          const chunk = parseReviewKeyChunk(message.Body ?? '');
          const report = await pollReviewKeys({ pds, store: memory, sink }, keysToPoll(chunk), {
            concurrency: CONCURRENCY,
            layout: chunkLayout(chunk),
          });
          emitted += report.reviewsEmitted;
          await sqs.send(
            new DeleteMessageCommand({ QueueUrl: chunkQueue, ReceiptHandle: message.ReceiptHandle }),
          );
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
    });
    record(
      `reviews: fan-out, ${chunks} chunks, ${WORKERS} workers, state in memory`,
      seconds,
      emitted,
      CONCURRENCY * WORKERS,
      rawReviewsFanOut,
    );

    // Phase 5: steady state with the watch list in fauxqs: one new review on every key since the last poll.
    await new Promise((resolve) => {
      simulator.process.once('message', resolve);
      simulator.process.send('add-reviews');
    });
    // Reference: list each key's reviews and fetch the newest one's message, nothing else.
    const rawNewReview = await timed(async () => {
      const limit = createLimiter(CONCURRENCY);
      await mapLimit(keys, CONCURRENCY * 4, async (key) => {
        const reviews = await limit(() => pdsClient.listSupplierReviews(key));
        const newest = reviews.reduce((a, b) => (b.date > a.date ? b : a));
        await limit(() => pdsClient.getMessagingAsset(newest.messagingAssetId));
      });
    });
    reset();
    s3Requests.clear();
    cpu = process.cpuUsage();
    seconds = await timed(async () => {
      const report = await pollSupplierReviews(
        { pds, store, sink },
        { runId: 'new', inlineMax: KEYS, concurrency: CONCURRENCY },
      );
      emitted = report.mode === 'inline' ? report.reviewsEmitted : 0;
    });
    record('reviews: a new review on every key', seconds, emitted, CONCURRENCY, rawNewReview, KEYS);

    process.stdout.write(
      `\n${ASSETS} messaging assets, ${KEYS} watched keys, simulator latency ${LATENCY_MS} ms, POLL_CONCURRENCY ${CONCURRENCY}\n\n`,
    );
    printTable(
      [
        'phase',
        'seconds',
        'PDS requests',
        'events',
        'events/s',
        'floor s',
        'reference s',
        'x reference',
        'poller CPU s',
        'CPU ms/event',
        'reference CPU ms/event',
        'S3 GET/PUT/LIST',
        'S3 GET per key',
      ],
      rows,
    );
    process.stdout.write(
      `\nreference for the messaging assets (the same GETs in a bare loop): ${(
        (rawAssetsCpu.user + rawAssetsCpu.system) / 1e6
      ).toFixed(
        2,
      )} s CPU, ${((rawAssetsCpu.user + rawAssetsCpu.system) / 1e3 / assetIds.length).toFixed(3)} ms per asset\n`,
    );
    process.stdout.write(
      `the backlog took ${backlogRuns} poller run${backlogRuns === 1 ? '' : 's'} (each takes at most POLL_MAX_ASSETS_PER_RUN new assets, as a scheduled run does)\n`,
    );
    process.stdout.write(
      `\nqueued: ${await queued(assetQueue)} messaging-asset events, ${await queued(reviewQueue)} review events\n`,
    );
    process.stdout.write(`total wall time ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    await pdsClient.close();
    s3.destroy();
    sqs.destroy();
    await Promise.all([stop(simulator.process), stop(fauxqs.process)]);
  }
}

if (values.serve === 'simulator') await serveSimulator();
else if (values.serve === 'fauxqs') await serveFauxqs();
else await main();
