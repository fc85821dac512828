/**
 * The servers bench/api.ts measures, in a process of their own (so autocannon does not share the
 * event loop with them): the local HTTP adapter running the real API (packages/bridge/src/api/api.ts with
 * bearer authentication), and the same adapter answering a constant 202. Prints one JSON line with
 * both addresses once they listen.
 *
 * The state store and the publication queue are chosen by `BENCH_STATE`:
 * - `memory` (default): a MemoryStateStore and an in-memory queue sink, so the figure is the API's own
 *   cost;
 * - `s3`: the S3 state store and the SQS queue adapter on the local stack's emulator (fauxqs behind
 *   the endpoint that enforces S3's conditional writes), reached through a proxy that holds every
 *   request `BENCH_LATENCY_MS` (default 20) before passing it on, as a remote S3 and SQS would. Then
 *   the latency is the API's sequential round trips, which is what a deployed API waits for.
 *
 * The constant server also answers `GET /stats` with the number of messages the API queued and the
 * number of S3/SQS requests the proxy passed, so the benchmark can check that every 202 really
 * recorded and queued a publication, and count the round trips of one request.
 */

import { createApi } from '../../packages/bridge/src/api/index.ts';
import { createS3Client, createSqsClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import type { PublicationMessage, PublicationQueue } from '../../packages/bridge/src/publications/queue.ts';
import { SqsPublicationQueue } from '../../packages/bridge/src/publications/sqs/queue.ts';
import { MemoryStateStore, type StateStore } from '../../packages/bridge/src/state/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/index.ts';
import { startEmulator } from '../../packages/local/src/emulator.ts';
import { startHttpAdapter } from '../../packages/local/src/gateway/index.ts';
import { startLatencyProxy } from './latency-proxy.ts';

const token = process.env.BENCH_API_TOKEN ?? 'bench-token-0123456789abcdef';
const mode = process.env.BENCH_STATE ?? 'memory';
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? '20');
const queued: PublicationMessage[] = [];
const closers: Array<() => Promise<void>> = [];
let awsRequests = () => 0;

async function backends(): Promise<{ store: StateStore; queue: PublicationQueue }> {
  if (mode === 'memory') {
    return { store: new MemoryStateStore(), queue: { send: async () => undefined } };
  }
  if (mode !== 's3') throw new Error(`BENCH_STATE must be memory or s3, not ${mode}`);
  const region = 'us-east-1';
  const emulator = await startEmulator({ port: 0, region });
  emulator.server.createBucket('bench-state');
  emulator.server.createQueue('bench-publications');
  const proxy = await startLatencyProxy({ upstream: emulator.endpoint, latencyMs });
  closers.push(
    () => proxy.close(),
    () => emulator.stop(),
  );
  awsRequests = proxy.requests;
  const client = {
    endpoint: proxy.endpoint,
    region,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
  return {
    store: new S3StateStore({ client: createS3Client(client), bucket: 'bench-state' }),
    queue: new SqsPublicationQueue({
      sqs: createSqsClient(client),
      queueUrl: `${proxy.endpoint}/000000000000/bench-publications`,
    }),
  };
}

const { store, queue } = await backends();
const api = createApi({
  store,
  queue: {
    async send(message) {
      await queue.send(message);
      queued.push(message);
    },
  },
  pds: async () => {
    throw new Error('the benchmark does not call the PDS');
  },
  settings: {
    maxKeys: 1000,
    channelsCacheMs: 60_000,
    watchTtlMs: 30 * 86_400_000,
    auth: { mode: 'bearer', token },
  },
  version: 'bench',
});

const real = await startHttpAdapter({ handler: (event) => api.handle(event), functionName: 'api' });
const constant = await startHttpAdapter({
  functionName: 'constant',
  handler: async (event) =>
    event.rawPath === '/stats'
      ? {
          statusCode: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ queued: queued.length, awsRequests: awsRequests() }),
        }
      : {
          statusCode: 202,
          headers: { 'content-type': 'application/json', location: '/publications/constant' },
          body: '{"publicationId":"constant","status":"queued"}',
        },
});

process.stdout.write(`${JSON.stringify({ api: real.url, constant: constant.url })}\n`);

process.once('SIGTERM', () => {
  void Promise.all([real.close(), constant.close()])
    .then(() => Promise.all(closers.map((close) => close())))
    .then(() => process.exit(0));
});
