/**
 * Watch lists (issue 20): the supplier-review poll of N watched keys as deployed: the scheduled run
 * lists the watch list and fans it out in chunks (POLL_REVIEWS_CHUNK_SIZE 100 above
 * POLL_REVIEWS_INLINE_MAX 200), and the worker function, at most --workers invocations at once (the
 * event source's maximumConcurrency, 4), polls one chunk per invocation with POLL_CONCURRENCY PDS
 * requests in flight. The real pollSupplierReviews and pollReviewKeys run here; the queue between them
 * is in memory, the PDS answers after --latency-ms (in process: only the waiting matters here), and
 * the state store is in memory behind --state-latency-ms per request, counted by kind (a listing
 * counted per page of 1,000 keys, as S3 bills it).
 *
 * Per size, two runs: the first after the keys were watched (every entry is read once, its ETag then
 * remembered in the progress shards) and a steady one (--new-share of the keys with a new review).
 * Time is from the scheduled run's start to the last chunk's end, against the schedule interval
 * (supplierReviewsRate, 15 minutes by default). Reference in the same run: the smallest size polled
 * inline by the scheduled run alone (no fan-out).
 *
 *   ./node_modules/.bin/node bench/scale/watch-lists.ts [--keys 1000,10000,100000] [--latency-ms 50]
 *     [--state-latency-ms 20] [--new-share 0.01] [--workers 4] [--concurrency 8] [--no-reference]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from '../../packages/bridge/src/core/index.ts';
import { toSendableJson } from '../../packages/bridge/src/events/index.ts';
import type { SupplierReview } from '../../packages/bridge/src/pds/index.ts';
import {
  chunkLayout,
  keysToPoll,
  parseReviewKeyChunk,
  pollReviewKeys,
  pollSupplierReviews,
  type ReviewKeyChunk,
  type ReviewKeyQueue,
  type ReviewPollDeps,
  type ReviewPollReport,
} from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import { MemoryStateStore, type StateStore } from '../../packages/bridge/src/state/index.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import { RecordingSink } from '../../test/helpers/event-sink.ts';
import { approvedReview } from '../../test/helpers/polling.ts';
import { type StateRequestKind, TrafficCountingStore } from '../../test/helpers/state-traffic.ts';
import { MiB, printTable, root } from '../support.ts';
import type { ScaleSection } from './section.ts';

export interface WatchListsBenchOptions {
  keys: number[];
  latencyMs: number;
  stateLatencyMs: number;
  newShare: number;
  workers: number;
  concurrency: number;
  reference: boolean;
}

export const WATCH_LISTS_DEFAULTS: WatchListsBenchOptions = {
  keys: [1000, 10_000, 100_000],
  latencyMs: 50,
  stateLatencyMs: 20,
  newShare: 0.01,
  workers: 4,
  concurrency: 8,
  reference: true,
};

/** The deployed schedule of the review poll (serverless.yml, supplierReviewsRate). */
export const SCHEDULE_INTERVAL_SECONDS = 15 * 60;
const INLINE_MAX = 200;
const CHUNK_SIZE = 100;
const DAY_MS = 86_400_000;
const XML = readFileSync(path.join(root, 'test/fixtures/gdsn/cic-3.1-review.xml'), 'utf8');

export interface WatchListFigures {
  keys: number;
  run: string;
  seconds: number;
  chunks: number;
  pdsRequests: number;
  stateRequests: Record<StateRequestKind, number>;
  stateBytesWritten: number;
  reviewsEmitted: number;
  keysFailed: number;
}

/** A PDS answering after a fixed delay; `fresh` keys get one new review per run. */
class LatencyPds {
  requests = 0;
  #serial = 0;
  readonly #reviews = new Map<string, SupplierReview[]>();

  readonly latencyMs: number;

  constructor(latencyMs: number) {
    this.latencyMs = latencyMs;
  }

  addReview(primaryKey: string): void {
    this.#serial += 1;
    const review = {
      ...approvedReview(primaryKey, { date: 1_767_603_600_000 + this.#serial }),
      messagingAssetId: this.#serial,
    } as unknown as SupplierReview;
    this.#reviews.set(primaryKey, [...(this.#reviews.get(primaryKey) ?? []), review]);
  }

  readonly client: ReviewPollDeps['pds'] = {
    listSupplierReviews: async (primaryKey: string) => {
      this.requests += 1;
      await sleep(this.latencyMs);
      return this.#reviews.get(primaryKey) ?? [];
    },
    getMessagingAsset: async () => {
      this.requests += 1;
      await sleep(this.latencyMs);
      return XML;
    },
  } as ReviewPollDeps['pds'];
}

/** A store answering after a fixed delay per request (listings per page of 1,000 keys). */
function delayed(inner: StateStore, ms: number): StateStore {
  if (ms === 0) return inner;
  const wait = <T>(call: () => Promise<T>) => sleep(ms).then(call);
  return {
    get: (key) => wait(() => inner.get(key)),
    create: (key, value) => wait(() => inner.create(key, value)),
    update: (key, value, etag) => wait(() => inner.update(key, value, etag)),
    delete: (key, etag) => wait(() => inner.delete(key, etag)),
    list: (prefix, options) => inner.list(prefix, options),
    async *listEntries(prefix, options) {
      let listed = 0;
      for await (const entry of inner.listEntries(prefix, options)) {
        if (listed % 1000 === 0) await sleep(ms);
        listed += 1;
        yield entry;
      }
    },
    mutate: (key, fn, options) => inner.mutate(key, fn, options),
  };
}

/** The fan-out queue in memory: chunks travel as the SQS message bodies would. */
class MemoryChunkQueue implements ReviewKeyQueue {
  readonly bodies: string[] = [];
  async send(chunks: readonly ReviewKeyChunk[]): Promise<void> {
    for (const chunk of chunks) this.bodies.push(toSendableJson(chunk));
  }
}

function zeroRequests(): Record<StateRequestKind, number> {
  return { get: 0, create: 0, update: 0, delete: 0, list: 0 };
}

/** One scheduled run and every chunk it fanned out, `workers` chunks at a time. */
async function pollOnce(
  setup: { store: TrafficCountingStore; pds: LatencyPds; options: WatchListsBenchOptions; inline: boolean },
  run: string,
  keys: number,
): Promise<WatchListFigures> {
  const { store, pds, options } = setup;
  const before = { ...store.requests };
  const bytesBefore = store.bytesWritten;
  const pdsBefore = pds.requests;
  const sink = new RecordingSink();
  const deps: ReviewPollDeps = { pds: pds.client, store, sink };
  const queue = new MemoryChunkQueue();
  const started = performance.now();
  const scheduled = await pollSupplierReviews(deps, {
    runId: run,
    concurrency: options.concurrency,
    inlineMax: setup.inline ? Number.MAX_SAFE_INTEGER : INLINE_MAX,
    chunkSize: CHUNK_SIZE,
    queue,
  });
  const reports: ReviewPollReport[] = scheduled.mode === 'inline' ? [scheduled] : [];
  let next = 0;
  await Promise.all(
    Array.from({ length: options.workers }, async () => {
      while (next < queue.bodies.length) {
        const chunk = parseReviewKeyChunk(queue.bodies[next++] as string);
        reports.push(
          await pollReviewKeys(deps, keysToPoll(chunk), {
            concurrency: options.concurrency,
            layout: chunkLayout(chunk),
          }),
        );
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const stateRequests = zeroRequests();
  for (const kind of Object.keys(stateRequests) as StateRequestKind[]) {
    stateRequests[kind] = store.requests[kind] - before[kind];
  }
  return {
    keys,
    run,
    seconds,
    chunks: queue.bodies.length,
    pdsRequests: pds.requests - pdsBefore,
    stateRequests,
    stateBytesWritten: store.bytesWritten - bytesBefore,
    reviewsEmitted: reports.reduce((sum, report) => sum + report.reviewsEmitted, 0),
    keysFailed: reports.reduce((sum, report) => sum + report.keysFailed, 0),
  };
}

async function benchSize(
  keys: number,
  options: WatchListsBenchOptions,
  inline: boolean,
): Promise<WatchListFigures[]> {
  const memory = new MemoryStateStore();
  const primaryKeys = Array.from({ length: keys }, (_, i) => `04${String(i).padStart(12, '0')}`);
  for (let start = 0; start < keys; start += 5000) {
    await watch(memory, primaryKeys.slice(start, start + 5000), { ttlMs: 30 * DAY_MS, source: 'bench' });
  }
  const store = new TrafficCountingStore(delayed(memory, options.stateLatencyMs));
  const pds = new LatencyPds(options.latencyMs);
  // Every key has one review already: the first run emits them all, as after a first watch.
  for (const key of primaryKeys) pds.addReview(key);
  const setup = { store, pds, options, inline };
  const label = inline ? 'reference, inline: ' : '';
  const first = await pollOnce(setup, `${label}first run (every entry read)`, keys);
  process.stderr.write(`  ${keys} keys, ${first.run}: ${first.seconds.toFixed(1)} s\n`);
  const fresh = Math.round(keys * options.newShare);
  for (let i = 0; i < fresh; i++)
    pds.addReview(primaryKeys[Math.floor((i * keys) / Math.max(fresh, 1))] as string);
  const steady = await pollOnce(setup, `${label}steady run (${fresh} new reviews)`, keys);
  process.stderr.write(`  ${keys} keys, ${steady.run}: ${steady.seconds.toFixed(1)} s\n`);
  return [first, steady];
}

/**
 * Runs every size (and the inline reference at the smallest).
 *
 * @example
 * ```ts
 * const figures = await runWatchListsBench({ ...WATCH_LISTS_DEFAULTS, keys: [1000] });
 * ```
 */
export async function runWatchListsBench(options: WatchListsBenchOptions): Promise<WatchListFigures[]> {
  const figures: WatchListFigures[] = [];
  for (const keys of options.keys) figures.push(...(await benchSize(keys, options, false)));
  if (options.reference) figures.push(...(await benchSize(Math.min(...options.keys), options, true)));
  return figures;
}

/** Prints the figures against the schedule interval. */
export function printWatchListsReport(figures: WatchListFigures[], options: WatchListsBenchOptions): void {
  process.stdout.write(
    `\nWatch lists: PDS latency ${options.latencyMs} ms, state latency ${options.stateLatencyMs} ms, ${options.workers} workers x POLL_CONCURRENCY ${options.concurrency}, chunks of ${CHUNK_SIZE}\n\n`,
  );
  printTable(
    [
      'keys',
      'run',
      'wall s',
      'of interval',
      'chunks',
      'PDS requests',
      'state GET',
      'state PUT (create+update)',
      'state LIST pages',
      'state requests',
      'state MiB written',
      'reviews emitted',
      'keys failed',
    ],
    figures.map((figure) => [
      figure.keys,
      figure.run,
      figure.seconds.toFixed(1),
      `${((figure.seconds / SCHEDULE_INTERVAL_SECONDS) * 100).toFixed(0)} %`,
      figure.chunks,
      figure.pdsRequests,
      figure.stateRequests.get,
      figure.stateRequests.create + figure.stateRequests.update,
      figure.stateRequests.list,
      Object.values(figure.stateRequests).reduce((sum, count) => sum + count, 0),
      (figure.stateBytesWritten / MiB).toFixed(2),
      figure.reviewsEmitted,
      figure.keysFailed,
    ]),
  );
  const largest = figures.filter((f) => !f.run.startsWith('reference')).sort((a, b) => b.keys - a.keys);
  for (const figure of largest.filter((f) => f.keys === largest[0]?.keys)) {
    const ok = figure.seconds <= SCHEDULE_INTERVAL_SECONDS;
    process.stdout.write(
      `\nTarget at ${figure.keys} keys, ${figure.run}: ${figure.seconds.toFixed(0)} s of the ${SCHEDULE_INTERVAL_SECONDS} s interval (${ok ? 'met' : 'NOT met'})`,
    );
  }
  process.stdout.write('\n');
}

/** The flags of this section (bench/scale.ts watch-lists, or this module alone). */
const SPEC = {
  command: 'node bench/scale.ts watch-lists',
  summary:
    'The supplier-review poll with fan-out over N watched keys: time from the scheduled run to the last chunk, PDS and state-bucket requests, against the 15-minute schedule interval.',
  options: {
    keys: {
      type: 'string',
      value: 'n,n,...',
      description: 'watched keys per measurement (default 1000,10000,100000)',
    },
    'latency-ms': { type: 'string', value: 'ms', description: 'PDS latency per request (default 50)' },
    'state-latency-ms': {
      type: 'string',
      value: 'ms',
      description: 'state-store latency per request (default 20)',
    },
    'new-share': {
      type: 'string',
      value: 'share',
      description: 'keys with a new review per run (default 0.01)',
    },
    workers: { type: 'string', value: 'n', description: 'fan-out workers at once (default 4)' },
    concurrency: { type: 'string', value: 'n', description: 'PDS requests in flight per worker (default 8)' },
    'no-reference': { type: 'boolean', description: 'leave out the reference run' },
  },
} as const;

/**
 * Parses the command line: `--help` prints the usage and an unknown flag one line (parseScriptArgs);
 * a wrong value throws an Error with a one-line message.
 */
export function parseWatchListsArgs(argv: string[]): WatchListsBenchOptions {
  const { values } = parseScriptArgs(SPEC, argv);
  const number = (
    raw: string | undefined,
    fallback: number,
    name: string,
    min: number,
    max: number,
    integer = true,
  ) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      throw new Error(
        `--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got '${raw}'`,
      );
    }
    return value;
  };
  const d = WATCH_LISTS_DEFAULTS;
  return {
    keys:
      values.keys === undefined
        ? d.keys
        : values.keys.split(',').map((part) => number(part.trim(), 0, 'keys', 1, 500_000)),
    latencyMs: number(values['latency-ms'], d.latencyMs, 'latency-ms', 0, 10_000),
    stateLatencyMs: number(values['state-latency-ms'], d.stateLatencyMs, 'state-latency-ms', 0, 10_000),
    newShare: number(values['new-share'], d.newShare, 'new-share', 0, 1, false),
    workers: number(values.workers, d.workers, 'workers', 1, 64),
    concurrency: number(values.concurrency, d.concurrency, 'concurrency', 1, 64),
    reference: !values['no-reference'],
  };
}

if (import.meta.main) {
  try {
    const options = parseWatchListsArgs(process.argv.slice(2));
    printWatchListsReport(await runWatchListsBench(options), options);
  } catch (error) {
    process.stderr.write(`bench/scale/watch-lists.ts: ${(error as Error).message} (see --help)\n`);
    process.exit(2);
  }
}

/** This module as a section of bench/scale.ts. */
export const section: ScaleSection = {
  summary: 'supplier-review poll with fan-out over N watched keys: time, PDS and state-bucket requests',
  async run(argv) {
    const options = parseWatchListsArgs(argv);
    printWatchListsReport(await runWatchListsBench(options), options);
  },
};
