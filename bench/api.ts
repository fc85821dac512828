/**
 * POST /publications through the local HTTP adapter under autocannon: the real API handler (bearer
 * authentication, JSON parsing, zod validation, the publication record, a queued message) against
 * the same adapter answering a constant 202, measured in the same run. Every request carries a
 * distinct Idempotency-Key, so each one is a new publication (the worst case: nothing to replay).
 *
 *   node bench/api.ts [--duration 10] [--connections 10] [--runs 2] [--keys 10]
 *                     [--state memory|s3] [--latency-ms 20]
 *
 * `--state memory` (default) keeps the record in a MemoryStateStore and the message in memory: the
 * API's own cost. `--state s3` uses the S3 state store and the SQS queue on the local emulator behind
 * a proxy adding `--latency-ms` to every request, and counts the S3/SQS requests per POST: on Lambda
 * the latency of a request is those sequential round trips.
 *
 * The servers run in a child process (bench/api/server.ts); autocannon runs here. Prints requests per
 * second and latency (p50, p99) of both, and the ratios.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { median, printTable } from './support.ts';

/** The part of autocannon's API used here (the package ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  setupRequest?: (request: { headers: Record<string, string> }) => { headers: Record<string, string> };
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const { values } = parseScriptArgs({
  command: 'node bench/api.ts',
  summary:
    'POST /publications through the local HTTP adapter under autocannon: the real API handler against the same adapter answering a constant 202, in the same run; requests per second and latency of both.',
  options: {
    duration: { type: 'string', default: '10', value: 's', description: 'seconds per run' },
    connections: { type: 'string', default: '10', value: 'n', description: 'concurrent connections' },
    runs: { type: 'string', default: '2', value: 'n', description: 'runs of each server' },
    keys: { type: 'string', default: '10', value: 'n', description: 'primary keys per publication' },
    state: {
      type: 'string',
      default: 'memory',
      value: 'memory|s3',
      description: 'where records and messages go: memory, or S3 and SQS on the emulator',
    },
    'latency-ms': {
      type: 'string',
      default: '20',
      value: 'ms',
      description: 'latency added to every S3/SQS request with --state s3',
    },
  },
});
const state = values.state;
if (state !== 'memory' && state !== 's3') throw new Error('--state must be memory or s3');
const latencyMs = Number(values['latency-ms']);
const duration = Number(values.duration);
const connections = Number(values.connections);
const runs = Number(values.runs);
const keyCount = Number(values.keys);
const TOKEN = 'bench-token-0123456789abcdef';

async function startServers(): Promise<{ api: string; constant: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'api/server.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      BENCH_API_TOKEN: TOKEN,
      BENCH_STATE: state,
      BENCH_LATENCY_MS: String(latencyMs),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    },
  });
  const urls = await new Promise<{ api: string; constant: string }>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve(JSON.parse(line) as { api: string; constant: string });
    });
    child.once('exit', (code) =>
      reject(new Error(`the bench servers exited with ${code} before they were ready`)),
    );
  });
  return { ...urls, child };
}

const body = JSON.stringify({
  primaryKeys: Array.from({ length: keyCount }, (_, index) => `0401234${String(index).padStart(6, '0')}`),
  destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
});

let sequence = 0;
async function measure(url: string, seconds: number): Promise<AutocannonResult> {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: '/publications',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body,
        setupRequest: (request) => {
          sequence += 1;
          return {
            ...request,
            headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${sequence}` },
          };
        },
      },
    ],
  });
}

interface Stats {
  queued: number;
  awsRequests: number;
}

const servers = await startServers();
const statsOf = async () => (await (await fetch(`${servers.constant}/stats`)).json()) as Stats;
try {
  const results: Record<'api' | 'constant', AutocannonResult[]> = { api: [], constant: [] };
  /** S3/SQS requests per 202 of each measured api run. */
  const roundTrips: number[] = [];
  // A short warm-up of each target (JIT, connection pools) that is not counted.
  await measure(servers.constant, 2);
  await measure(servers.api, 2);
  for (let run = 0; run < runs; run++) {
    results.constant.push(await measure(servers.constant, duration));
    const before = await statsOf();
    const result = await measure(servers.api, duration);
    const after = await statsOf();
    results.api.push(result);
    roundTrips.push((after.awsRequests - before.awsRequests) / Math.max(1, after.queued - before.queued));
  }
  const stats = await statsOf();
  const apiAccepted = results.api.reduce((sum, r) => sum + r.requests.total - r.non2xx, 0);
  const failures = [...results.api, ...results.constant].reduce(
    (sum, r) => sum + r.non2xx + r.errors + r.timeouts,
    0,
  );

  const summary = (list: AutocannonResult[]) => ({
    rps: median(list.map((r) => r.requests.average)),
    p50: median(list.map((r) => r.latency.p50)),
    p99: median(list.map((r) => r.latency.p99)),
  });
  const api = summary(results.api);
  const constant = summary(results.constant);
  const backend =
    state === 's3'
      ? `S3 state store and SQS on the emulator, +${latencyMs} ms per request`
      : 'state in memory';
  process.stdout.write(
    `POST /publications, ${keyCount} keys, distinct Idempotency-Keys, ${backend}; ${connections} connections, ${duration} s x ${runs} runs (median)\n\n`,
  );
  printTable(
    ['target', 'req/s', 'p50 ms', 'p99 ms'],
    [
      [
        'constant 202 (same adapter)',
        constant.rps.toFixed(0),
        constant.p50.toFixed(1),
        constant.p99.toFixed(1),
      ],
      ['real api handler', api.rps.toFixed(0), api.p50.toFixed(1), api.p99.toFixed(1)],
      [
        'ratio api / constant',
        (api.rps / constant.rps).toFixed(2),
        (api.p50 / Math.max(constant.p50, 0.01)).toFixed(2),
        (api.p99 / Math.max(constant.p99, 0.01)).toFixed(2),
      ],
    ],
  );
  const perRun = (list: AutocannonResult[]) => list.map((r) => r.requests.average.toFixed(0)).join(', ');
  process.stdout.write(`\nreq/s per run: constant ${perRun(results.constant)}; api ${perRun(results.api)}\n`);
  if (state === 's3') {
    const count = median(roundTrips);
    process.stdout.write(
      `S3/SQS requests per accepted POST: ${roundTrips.map((n) => n.toFixed(2)).join(', ')} per run; ` +
        `floor ${latencyMs} ms x ${count.toFixed(2)} = ${(latencyMs * count).toFixed(0)} ms; ` +
        `p50 ${api.p50.toFixed(1)} ms (${(api.p50 / (latencyMs * count)).toFixed(2)} x floor), ` +
        `p99 ${api.p99.toFixed(1)} ms (${(api.p99 / (latencyMs * count)).toFixed(2)} x floor)\n`,
    );
  }
  process.stdout.write(
    `non-2xx, errors and timeouts: ${failures}; publications queued by the api: ${stats.queued} (2xx answers incl. warm-up ≥ ${apiAccepted})\n`,
  );
  if (failures > 0) process.exitCode = 1;
} finally {
  servers.child.kill('SIGTERM');
  await once(servers.child, 'exit');
}
