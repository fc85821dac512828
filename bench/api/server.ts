/**
 * The servers bench/api.ts measures, in a process of their own (so autocannon does not share the
 * event loop with them): the local HTTP adapter running the real API (lib/publications/api.ts with
 * bearer authentication, a MemoryStateStore and an in-memory queue sink), and the same adapter
 * answering a constant 202. Prints one JSON line with both addresses once they listen.
 *
 * The constant server also answers `GET /stats` with the number of messages the API queued, so the
 * benchmark can check that every 202 really recorded and queued a publication.
 */
import { startHttpAdapter } from '../../lib/http/index.ts';
import { createApi } from '../../lib/publications/api.ts';
import type { PublicationMessage } from '../../lib/publications/queue.ts';
import { MemoryStateStore } from '../../lib/state/memory.ts';

const token = process.env.BENCH_API_TOKEN ?? 'bench-token-0123456789abcdef';
const queued: PublicationMessage[] = [];

const api = createApi({
  store: new MemoryStateStore(),
  queue: {
    async send(message) {
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
          body: JSON.stringify({ queued: queued.length }),
        }
      : {
          statusCode: 202,
          headers: { 'content-type': 'application/json', location: '/publications/constant' },
          body: '{"publicationId":"constant","status":"queued"}',
        },
});

process.stdout.write(`${JSON.stringify({ api: real.url, constant: constant.url })}\n`);

process.once('SIGTERM', () => {
  void Promise.all([real.close(), constant.close()]).then(() => process.exit(0));
});
