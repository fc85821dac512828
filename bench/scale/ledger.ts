/**
 * Scale section `ledger` (issue 28): the confirmation ledger's exception list costs what its answer
 * costs, not what the history holds.
 *
 * A synthetic state bucket holds N ledger entries (one item at one channel each), 50 of them OVERDUE
 * and the rest AWAITING, with the index markers the ledger writes (packages/bridge/src/confirmations/entry-index.ts);
 * keys and entries are generated on demand, so the bench's own memory does not grow with N. It
 * answers as S3 does: listings in byte order, 1,000 keys per ListObjectsV2 page, `StartAfter`, and a
 * fixed latency per request (`--latency-ms`, default 20: S3 from Lambda). The query is the project's
 * own `listEntries` (what `GET /confirmations` and `pds bridge confirmations` call):
 *
 * - `OVERDUE p1`: the exception list, first page of 50;
 * - `AWAITING p2`: a later page (cursor of the first) of a state with N − 50 entries;
 * - the reference: the read before the index (list every entry, GET each until a page of matches),
 *   run without latency and its time modelled at the latency (it is sequential), up to `--old-max`.
 *
 *   node bench/scale.ts ledger [--sizes 10000,100000,1000000] [--latency-ms 20] [--old-max 100000]
 */

import { AWAITING, type ConfirmationEntry, OVERDUE } from '../../packages/bridge/src/confirmations/entry.ts';
import { markersOf } from '../../packages/bridge/src/confirmations/entry-index.ts';
import { CONFIRMATIONS_PREFIX, confirmationKey } from '../../packages/bridge/src/confirmations/keys.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import { sleep } from '../../packages/bridge/src/core/index.ts';
import type {
  ListedState,
  StateEntry,
  StateListOptions,
  StateStore,
} from '../../packages/bridge/src/state/index.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import type { ScaleSection } from './section.ts';

const PAGE = 50;
const OVERDUE_COUNT = 50;

/** A read-only bucket of `size` generated entries; counts requests and waits `latencyMs` for each. */
export class SyntheticLedger implements StateStore {
  readonly #size: number;
  readonly #latencyMs: number;
  readonly #overdue: Set<number>;
  requests = 0;

  constructor(size: number, latencyMs: number) {
    this.#size = size;
    this.#latencyMs = latencyMs;
    this.#overdue = new Set(
      Array.from({ length: OVERDUE_COUNT }, (_, k) => Math.floor(((k + 0.5) * size) / OVERDUE_COUNT)),
    );
  }

  static primaryKey(i: number): string {
    return `0${String(4_000_000_000_000 + i).padStart(13, '0')}`;
  }

  #stateOf(i: number): string {
    return this.#overdue.has(i) ? OVERDUE : AWAITING;
  }

  #entry(i: number): ConfirmationEntry {
    const primaryKey = SyntheticLedger.primaryKey(i);
    const state = this.#stateOf(i);
    return {
      key: { primaryKey, channelId: 'gdsn-de' },
      state,
      since: '2026-11-20T10:00:00.000Z',
      deadline: '2026-11-22T10:00:00.000Z',
      publications: [{ publicationId: `p-${i}`, publishedAt: '2026-11-20T10:00:00.000Z' }],
      correctiveActions: [],
      facts: [],
      seen: [`publication:p-${i}`],
      history: [
        {
          recordedAt: '2026-11-20T10:00:01.000Z',
          state,
          since: '2026-11-20T10:00:00.000Z',
          cause: 'publication',
          factId: `publication:p-${i}`,
        },
      ],
      pending: [],
      createdAt: '2026-11-20T10:00:01.000Z',
      updatedAt: '2026-11-20T10:00:01.000Z',
    };
  }

  #indexOf(stateKey: string): number {
    return (
      Number(stateKey.slice(CONFIRMATIONS_PREFIX.length + 1, CONFIRMATIONS_PREFIX.length + 14)) -
      4_000_000_000_000
    );
  }

  /** The keys under `prefix` in order, generated: entries, or one state's markers. */
  *#keys(prefix: string): Generator<string> {
    for (let i = 0; i < this.#size; i++) {
      const stateKey = confirmationKey(SyntheticLedger.primaryKey(i), 'gdsn-de');
      if (prefix === CONFIRMATIONS_PREFIX) yield stateKey;
      else {
        const marker = markersOf(stateKey, this.#entry(i))[0] as string;
        if (marker.startsWith(prefix)) yield marker;
      }
    }
  }

  async get<T>(key: string): Promise<StateEntry<T> | undefined> {
    this.requests++;
    await sleep(this.#latencyMs);
    if (!key.startsWith(CONFIRMATIONS_PREFIX)) return undefined;
    return { value: structuredClone(this.#entry(this.#indexOf(key))) as T, etag: '"e"' };
  }

  create(): never {
    throw new Error('the synthetic ledger is read-only');
  }

  update(): never {
    throw new Error('the synthetic ledger is read-only');
  }

  delete(): never {
    throw new Error('the synthetic ledger is read-only');
  }

  mutate(): never {
    throw new Error('the synthetic ledger is read-only');
  }

  async *list(prefix: string, options?: StateListOptions): AsyncIterable<string> {
    for await (const entry of this.listEntries(prefix, options)) yield entry.key;
  }

  async *listEntries(prefix: string, options: StateListOptions = {}): AsyncIterable<ListedState> {
    let inPage = 0;
    // OVERDUE markers are few: the index lists them directly; others are generated in order, and a
    // StartAfter skips ahead without a request per skipped key (as S3 does).
    const keys = prefix.includes('/state/OVERDUE/')
      ? [...this.#overdue]
          .sort((a, b) => a - b)
          .map(
            (i) =>
              markersOf(
                confirmationKey(SyntheticLedger.primaryKey(i), 'gdsn-de'),
                this.#entry(i),
              )[0] as string,
          )
      : this.#keys(prefix);
    for (const key of keys) {
      if (options.startAfter !== undefined && key <= options.startAfter) continue;
      if (inPage % 1000 === 0) {
        this.requests++;
        await sleep(this.#latencyMs);
      }
      inPage++;
      yield { key, etag: '"e"' };
    }
    if (inPage === 0) {
      this.requests++;
      await sleep(this.#latencyMs);
    }
  }
}

/** The read before the index: every entry listed, each read, until a page of matches. */
async function oldRead(store: SyntheticLedger, state: string): Promise<number> {
  let found = 0;
  for await (const stateKey of store.list(CONFIRMATIONS_PREFIX)) {
    const stored = await store.get<ConfirmationEntry>(stateKey);
    if (stored?.value.state === state && ++found > PAGE) break;
  }
  return found;
}

async function measure<T>(run: () => Promise<T>): Promise<{ seconds: number; peakMiB: number; value: T }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const start = performance.now();
  const value = await run();
  const seconds = (performance.now() - start) / 1000;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { seconds, peakMiB: peak / 2 ** 20, value };
}

export const section: ScaleSection = {
  summary:
    'the confirmation ledger: exception list and a later page at N entries, vs the read before the index',
  async run(argv) {
    const { values } = parseScriptArgs(
      {
        command: 'node bench/scale.ts ledger',
        summary:
          'Exception list (50 OVERDUE) and a later AWAITING page over N ledger entries, against S3-like listing with latency.',
        options: {
          sizes: { type: 'string', default: '10000,100000,1000000', description: 'entries in the ledger' },
          'latency-ms': { type: 'string', default: '20', description: 'per S3 request' },
          'old-max': {
            type: 'string',
            default: '100000',
            description: 'largest size the reference read runs at',
          },
        },
      },
      argv,
    );
    const sizes = String(values.sizes).split(',').map(Number);
    const latencyMs = Number(values['latency-ms']);
    const oldMax = Number(values['old-max']);
    process.stdout.write(
      `| entries | question | answered | S3 requests | time (${latencyMs} ms/request) | peak RSS | reference (read before the index): requests | reference time (modelled) | ratio of requests |\n|---|---|---|---|---|---|---|---|---|\n`,
    );
    for (const size of sizes) {
      const overdue = new SyntheticLedger(size, latencyMs);
      const first = await measure(() => listEntries(overdue, { states: [OVERDUE], limit: PAGE }));
      const awaiting = new SyntheticLedger(size, latencyMs);
      const page1 = await listEntries(awaiting, { states: [AWAITING], limit: PAGE });
      awaiting.requests = 0;
      const page2 = await measure(() =>
        listEntries(awaiting, { states: [AWAITING], limit: PAGE, after: page1.next as string }),
      );
      let reference = { requests: Number.NaN, seconds: Number.NaN };
      if (size <= oldMax) {
        const old = new SyntheticLedger(size, 0);
        await oldRead(old, OVERDUE);
        reference = { requests: old.requests, seconds: (old.requests * latencyMs) / 1000 };
      }
      const row = (
        question: string,
        m: { seconds: number; peakMiB: number; value: { entries: unknown[] } },
        requests: number,
      ) =>
        `| ${size.toLocaleString('en')} | ${question} | ${m.value.entries.length} | ${requests} | ${m.seconds.toFixed(2)} s | ${m.peakMiB.toFixed(0)} MiB | ${Number.isNaN(reference.requests) ? `not run (> --old-max)` : reference.requests.toLocaleString('en')} | ${Number.isNaN(reference.seconds) ? '—' : `${reference.seconds.toFixed(1)} s`} | ${Number.isNaN(reference.requests) ? '—' : `${(reference.requests / requests).toFixed(0)}×`} |\n`;
      process.stdout.write(row('OVERDUE, first page', first, overdue.requests));
      process.stdout.write(row('AWAITING, second page', page2, awaiting.requests));
    }
  },
};
