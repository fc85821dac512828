/**
 * Scale section `activity` (issue 28): `pds bridge status` and `pds bridge replay` cost what their
 * answer costs, not what the history holds.
 *
 * A synthetic state bucket holds N ingest progress records (failed, with a failure code) finished
 * evenly over 30 days, 20 of them still open (uploaded), with the activity-index markers the ingest
 * writes (packages/bridge/src/state/activity-index.ts); keys and records are generated on demand, so the bench's
 * memory does not grow with N. It answers as S3 does: byte order, 1,000 keys per ListObjectsV2 page,
 * `StartAfter` (no request per skipped key). Requests are counted; the time is modelled at
 * `--latency-ms` per request (default 20: S3 from Lambda), both reads being sequential. Questions:
 *
 * - `replay, 1 h`: `planReplay` over the last hour of the 30 days (what `pds bridge replay --since 1h` reads);
 * - `status`: `bridgeStatus`'s ingest part (ingests in flight, and those finished in its window, the
 *   last 24 hours);
 * - reference: the same calls with `read: 'full'` (every record read, as before the index). Both
 *   answers are compared; a difference stops the bench.
 *
 * With `--daily D`, the last day holds D of the N records and the others are spread over the 29 days
 * before: the same daily traffic at every N, only the history grows (what status by window is for).
 *
 *   node bench/scale.ts activity [--sizes 10000,100000,1000000] [--latency-ms 20] [--daily 200]
 */
import { isDeepStrictEqual } from 'node:util';
import { INGEST_PROGRESS_PREFIX } from '../../packages/bridge/src/ingest/keys.ts';
import type { IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import {
  openMarkerPrefix,
  timeMarkerKey,
  timeMarkerPrefix,
} from '../../packages/bridge/src/state/activity-index.ts';
import type {
  ListedState,
  StateEntry,
  StateListOptions,
  StateStore,
} from '../../packages/bridge/src/state/index.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import type { OperatorQueues } from '../../packages/cli/src/ops/ports.ts';
import { planReplay } from '../../packages/cli/src/ops/replay.ts';
import { bridgeStatus } from '../../packages/cli/src/ops/status.ts';
import type { ScaleSection } from './section.ts';

const DAYS = 30;
const OPEN = 20;
const T0 = Date.parse('2026-11-01T00:00:00.000Z');
const DAY = 86_400_000;
const SPAN = DAYS * DAY;

/** A read-only bucket of `size` generated progress records and their markers; counts requests. */
class SyntheticActivity implements StateStore {
  readonly #size: number;
  readonly #openEvery: number;
  /** Records finished in the last day; undefined: all N spread evenly over the 30 days. */
  readonly #daily: number | undefined;
  requests = 0;

  constructor(size: number, daily?: number) {
    this.#size = size;
    this.#openEvery = Math.floor(size / OPEN);
    this.#daily = daily;
  }

  static key(i: number): string {
    return `${INGEST_PROGRESS_PREFIX}drops/${String(i).padStart(64, '0')}/e-${i}.json`;
  }

  #open(i: number): boolean {
    return i % this.#openEvery === this.#openEvery - 1;
  }

  /** When record i finished: increasing with i (the time markers' bisection relies on it). */
  #at(i: number): number {
    if (this.#daily === undefined) return T0 + Math.floor((i * SPAN) / this.#size);
    const older = this.#size - this.#daily;
    if (i < older) return T0 + Math.floor((i * (SPAN - DAY)) / older);
    return T0 + SPAN - DAY + Math.floor(((i - older) * DAY) / this.#daily);
  }

  #record(i: number): IngestProgressRecord {
    const open = this.#open(i);
    return {
      bucket: 'drops',
      key: `in/${i}.csv`,
      etag: `e${i}`,
      status: open ? 'uploaded' : 'failed',
      ...(open ? {} : { outcome: 'failed', code: 'gone', reason: 'deleted' }),
      owner: 'bench',
      leaseUntil: 0,
      attempts: 1,
      claimedAt: this.#at(i),
      updatedAt: this.#at(i),
    } as IngestProgressRecord;
  }

  *#keys(prefix: string, startAfter: string | undefined): Generator<string> {
    if (prefix === INGEST_PROGRESS_PREFIX) {
      for (let i = 0; i < this.#size; i++) yield SyntheticActivity.key(i);
    } else if (prefix === openMarkerPrefix('ingest')) {
      for (let i = this.#openEvery - 1; i < this.#size; i += this.#openEvery) {
        yield `${prefix}${SyntheticActivity.key(i)}`;
      }
    } else if (prefix === timeMarkerPrefix('ingest')) {
      // Markers by finish time: find the first record after `startAfter` by bisection (S3 seeks too).
      let low = 0;
      let high = this.#size;
      const keyOf = (i: number) => timeMarkerKey('ingest', SyntheticActivity.key(i), this.#at(i));
      while (startAfter !== undefined && low < high) {
        const mid = (low + high) >> 1;
        if (keyOf(mid) <= startAfter) low = mid + 1;
        else high = mid;
      }
      for (let i = low; i < this.#size; i++) if (!this.#open(i)) yield keyOf(i);
    }
  }

  async get<T>(key: string): Promise<StateEntry<T> | undefined> {
    this.requests++;
    if (!key.startsWith(INGEST_PROGRESS_PREFIX)) return undefined;
    const i = Number(key.split('/')[2]);
    return { value: this.#record(i) as T, etag: '"e"' };
  }

  create(): never {
    throw new Error('the synthetic bucket is read-only');
  }

  update(): never {
    throw new Error('the synthetic bucket is read-only');
  }

  async delete(): Promise<void> {
    throw new Error('the synthetic bucket is read-only');
  }

  mutate(): never {
    throw new Error('the synthetic bucket is read-only');
  }

  async *list(prefix: string, options?: StateListOptions): AsyncIterable<string> {
    for await (const entry of this.listEntries(prefix, options)) yield entry.key;
  }

  async *listEntries(prefix: string, options: StateListOptions = {}): AsyncIterable<ListedState> {
    let inPage = 0;
    for (const key of this.#keys(prefix, options.startAfter)) {
      if (options.startAfter !== undefined && key <= options.startAfter) continue;
      if (inPage % 1000 === 0) this.requests++;
      inPage++;
      yield { key, etag: '"e"' };
    }
    if (inPage === 0) this.requests++;
  }
}

const noQueues: OperatorQueues = {
  depth: async () => undefined,
  peek: async () => [],
  move: async () => {
    throw new Error('not used');
  },
};

async function counted<T>(
  size: number,
  daily: number | undefined,
  run: (store: SyntheticActivity) => Promise<T>,
) {
  const store = new SyntheticActivity(size, daily);
  const start = performance.now();
  const value = await run(store);
  return { value, requests: store.requests, cpuSeconds: (performance.now() - start) / 1000 };
}

export const section: ScaleSection = {
  summary: 'pds bridge status and replay at N ingest records, vs the full read before the activity index',
  async run(argv) {
    const { values } = parseScriptArgs(
      {
        command: 'node bench/scale.ts activity',
        summary:
          'replay of the last hour and status over N ingest records finished over 30 days, S3-like listing, requests counted, time modelled per request.',
        options: {
          sizes: { type: 'string', default: '10000,100000,1000000', description: 'ingest records' },
          'latency-ms': { type: 'string', default: '20', description: 'per S3 request' },
          daily: {
            type: 'string',
            description:
              'records finished in the last day, the rest spread over the 29 days before (default: all evenly)',
          },
        },
      },
      argv,
    );
    const sizes = String(values.sizes).split(',').map(Number);
    const latencyMs = Number(values['latency-ms']);
    const daily = values.daily === undefined ? undefined : Number(values.daily);
    if (
      daily !== undefined &&
      !(Number.isInteger(daily) && daily > 0 && sizes.every((size) => size > daily))
    ) {
      throw new Error(`--daily must be a whole number above 0 and below every size, got ${values.daily}`);
    }
    const modelled = (requests: number) => `${((requests * latencyMs) / 1000).toLocaleString('en')} s`;
    process.stdout.write(
      `| records | question | answered | S3 requests | time (modelled, ${latencyMs} ms/request) | reference requests (full read) | reference time (modelled) | ratio of requests |\n|---|---|---|---|---|---|---|---|\n`,
    );
    for (const size of sizes) {
      const window = { since: T0 + SPAN - 3_600_000, until: T0 + SPAN };
      const strip = (plan: Awaited<ReturnType<typeof planReplay>>) =>
        plan.events.map(({ traceparent: _t, ...event }) => event);
      const replay = await counted(size, daily, (store) => planReplay(store, window));
      const replayFull = await counted(size, daily, (store) =>
        planReplay(store, { ...window, read: 'full' }),
      );
      if (!isDeepStrictEqual(strip(replay.value), strip(replayFull.value))) {
        throw new Error(`replay through the index differs from the full read at ${size} records`);
      }
      const options = { stage: 'bench', stateBucket: 'bench', now: T0 + SPAN };
      const status = await counted(size, daily, (store) => bridgeStatus(store, noQueues, options));
      const statusFull = await counted(size, daily, (store) =>
        bridgeStatus(store, noQueues, { ...options, read: 'full' }),
      );
      if (!isDeepStrictEqual(status.value.ingests, statusFull.value.ingests)) {
        throw new Error(`status through the index differs from the full read at ${size} records`);
      }
      const row = (question: string, answered: number, m: { requests: number }, ref: { requests: number }) =>
        `| ${size.toLocaleString('en')} | ${question} | ${answered} | ${m.requests.toLocaleString('en')} | ${modelled(m.requests)} | ${ref.requests.toLocaleString('en')} | ${modelled(ref.requests)} | ${(ref.requests / m.requests).toFixed(1)}× |\n`;
      process.stdout.write(row('replay, last hour', replay.value.events.length, replay, replayFull));
      const { ingests } = status.value;
      process.stdout.write(
        row(
          'status (in flight, finished in 24 h)',
          ingests.inFlight.length + ingests.window.finished,
          status,
          statusFull,
        ),
      );
    }
  },
};
