/**
 * Scale section `exceptions` (issue 40): the exception list costs its page, not the last hour's
 * transitions, and the recipients page costs the same whatever the ledger's size.
 *
 * The state bucket is two layers: the `ledger` section's synthetic ledger of N entries (one item at
 * one channel each, 50 OVERDUE, the rest AWAITING, with their index markers; read-only, generated on
 * demand) under an in-memory layer that the project's own ConfirmationLedger writes the last hour's
 * traffic into: H items published to 4 channels two days ago, the deadline check turning all of
 * those entries OVERDUE, then all but 50 of them answered (SYNCHRONISED) ten minutes later, every
 * write through the ledger (index markers, per-recipient aggregates). The layer's keys interleave with
 * the synthetic ones. Listings merge both in byte order, 1,000 keys per request as S3 pages; requests
 * are counted and the time modelled at `--latency-ms` per request (sequential). Questions:
 *
 * - `OVERDUE p1`: `listEntries` of 50 OVERDUE entries (GET /confirmations?state=OVERDUE&limit=50);
 * - `recipients`: the recipients page over 7 days (`recipientsOverview`, the functions behind
 *   GET /confirmations/recipients and `pds bridge recipients`);
 * - the reference: the same OVERDUE page on the synthetic ledger alone (no traffic in the last hour).
 *
 *   node bench/scale.ts exceptions [--sizes 10000,100000,1000000] [--hour-items 500] [--latency-ms 20]
 */
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { OVERDUE } from '../../packages/bridge/src/confirmations/entry.ts';
import {
  CONFIRMATION_INDEX_PREFIX,
  CONFIRMATIONS_PREFIX,
} from '../../packages/bridge/src/confirmations/keys.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { CloudEvent, EventSink } from '../../packages/bridge/src/events/index.ts';
import {
  type CreateResult,
  compareKeys,
  type ListedState,
  MemoryStateStore,
  type MutateOptions,
  type MutateResult,
  type Mutation,
  mutate,
  type StateEntry,
  type StateListOptions,
  type StateStore,
} from '../../packages/bridge/src/state/index.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import { recipientsOverview } from '../../packages/cli/src/ops/recipients.ts';
import { SyntheticLedger } from './ledger.ts';
import type { ScaleSection } from './section.ts';

const HOUR = 3_600_000;
const PAGE = 50;
const CHANNELS = ['gdsn-at', 'gdsn-de', 'gdsn-fr', 'gdsn-nl'];
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

/**
 * Listings the synthetic layer answers too: the index by state (what the exception list reads). The
 * written layer's items have no synthetic entries, so the ledger's own listings of one item's entries
 * need not walk the N synthetic keys.
 */
const SYNTHETIC_PREFIXES = [`${CONFIRMATION_INDEX_PREFIX}state/`];

const SYNTHETIC_ENTRY = new RegExp(`^${CONFIRMATIONS_PREFIX}\\d{14}/`);

/** The synthetic ledger under a writable in-memory layer; counts requests as S3 would bill them. */
class LayeredLedger implements StateStore {
  readonly #below: SyntheticLedger;
  readonly #above: MemoryStateStore;
  requests = 0;

  constructor(below: SyntheticLedger, above: MemoryStateStore) {
    this.#below = below;
    this.#above = above;
  }

  async get<T>(key: string): Promise<StateEntry<T> | undefined> {
    this.requests++;
    const above = await this.#above.get<T>(key);
    // The synthetic entries' primary keys are 14 digits; the written layer's are longer.
    return above ?? (SYNTHETIC_ENTRY.test(key) ? this.#below.get<T>(key) : undefined);
  }

  create<T>(key: string, value: T): Promise<CreateResult> {
    this.requests++;
    return this.#above.create(key, value);
  }

  update<T>(key: string, value: T, etag: string): Promise<{ readonly etag: string }> {
    this.requests++;
    return this.#above.update(key, value, etag);
  }

  delete(key: string, etag?: string): Promise<void> {
    this.requests++;
    return this.#above.delete(key, etag);
  }

  mutate<T>(key: string, fn: Mutation<T>, options?: MutateOptions): Promise<MutateResult<T>> {
    return mutate(this, key, fn, options);
  }

  async *list(prefix: string, options?: StateListOptions): AsyncIterable<string> {
    for await (const entry of this.listEntries(prefix, options)) yield entry.key;
  }

  async *listEntries(prefix: string, options: StateListOptions = {}): AsyncIterable<ListedState> {
    const above = this.#above.listEntries(prefix, options)[Symbol.asyncIterator]();
    const below = (
      SYNTHETIC_PREFIXES.some((held) => prefix.startsWith(held))
        ? this.#below.listEntries(prefix, options)
        : (async function* () {})()
    )[Symbol.asyncIterator]();
    let [a, b] = await Promise.all([above.next(), below.next()]);
    let listed = 0;
    this.requests++;
    while (!a.done || !b.done) {
      const takeAbove = !a.done && (b.done || compareKeys(a.value.key, b.value.key) <= 0);
      const entry = takeAbove ? (a.value as ListedState) : (b.value as ListedState);
      if (listed > 0 && listed % 1000 === 0) this.requests++;
      listed++;
      yield entry;
      if (takeAbove) {
        if (!b.done && b.value.key === entry.key) b = await below.next();
        a = await above.next();
      } else b = await below.next();
    }
  }
}

const quietSink: EventSink = { publish: async (_events: readonly CloudEvent[]) => undefined };

/** The last hour's traffic through the project's ledger: published, swept OVERDUE, all but 50 answered. */
async function lastHour(store: StateStore, size: number, items: number): Promise<Date> {
  const clock = { now: new Date(T0) };
  const ledger = new ConfirmationLedger({
    store,
    sink: quietSink,
    deadlineMs: 48 * HOUR,
    now: () => clock.now,
  });
  // Keys that sort right after synthetic ones spread over the whole ledger.
  const keys = Array.from(
    { length: items },
    (_, j) => `${SyntheticLedger.primaryKey(Math.floor((j * size) / items))}7`,
  );
  await ledger.recordPublication({
    publicationId: 'hour',
    publishedAt: clock.now.toISOString(),
    primaryKeys: keys,
    destinations: CHANNELS.map((destinationId) => ({
      destinationType: 'COMMUNICATION_CHANNEL',
      destinationId,
    })),
  });
  clock.now = new Date(T0 + 48 * HOUR);
  await checkConfirmationDeadlines(store, ledger, clock.now);
  clock.now = new Date(clock.now.getTime() + 10 * 60_000);
  const pairs = keys.flatMap((key) => CHANNELS.map((channelId) => ({ key, channelId })));
  const answered = pairs.slice(0, pairs.length - PAGE);
  const cic = (gtin: string, n: number) => ({
    gdsnVersion: '3.1',
    state: 'SYNCHRONISED',
    gtin,
    recipientGln: `061414100${String(n % CHANNELS.length).padStart(4, '0')}`,
    targetMarketCountryCode: '276',
    creationDateTime: new Date(T0 + (1 + (n % 40)) * HOUR).toISOString(),
    statuses: [],
  });
  for (let at = 0; at < answered.length; at += 200) {
    await ledger.recordReviews(
      answered.slice(at, at + 200).map(({ key, channelId }, n) => ({
        specversion: '1.0',
        id: `review-${at + n}`,
        source: 'bench',
        type: 'pds.supplier-review.received',
        subject: `item/${key}`,
        time: clock.now.toISOString(),
        datacontenttype: 'application/json',
        data: {
          review: {
            primaryKey: key,
            supplierId: '0614141000012',
            channelId,
            messagingAssetId: 10_000 + at + n,
            supplier: 'Example Foods',
            reviewer: 'Retailer',
            reviewStatus: 'SYNCHRONISED',
            date: T0 + 48 * HOUR + at + n,
            comment: '',
            messagingCreatorType: 'REVIEW',
          },
          messagingAssetId: 10_000 + at + n,
          cic: [cic(key, at + n)],
        },
      })) as never,
    );
  }
  return new Date(clock.now.getTime() + 10 * 60_000);
}

export const section: ScaleSection = {
  summary: 'exception list after the last hour’s transitions, and the recipients page, at N ledger entries',
  async run(argv) {
    const { values } = parseScriptArgs(
      {
        command: 'node bench/scale.ts exceptions',
        summary:
          'A page of 50 OVERDUE entries and the recipients page over N synthetic entries plus the last hour’s traffic written through the ledger; requests counted, time modelled.',
        options: {
          sizes: { type: 'string', default: '10000,100000,1000000', description: 'entries in the ledger' },
          'hour-items': {
            type: 'string',
            default: '500',
            description:
              'items published to 4 channels, swept OVERDUE and (all but 50 entries) answered in the last hour',
          },
          'latency-ms': { type: 'string', default: '20', description: 'per S3 request (modelled)' },
        },
      },
      argv,
    );
    const sizes = String(values.sizes).split(',').map(Number);
    const items = Number(values['hour-items']);
    const latencyMs = Number(values['latency-ms']);
    const modelled = (requests: number) => `${((requests * latencyMs) / 1000).toFixed(2)} s`;
    process.stdout.write(
      `| entries | transitions in the last hour | question | answered | S3 requests | time (modelled, ${latencyMs} ms/request) | reference: same page, no traffic in the last hour | ratio |\n|---|---|---|---|---|---|---|---|\n`,
    );
    for (const size of sizes) {
      const store = new LayeredLedger(new SyntheticLedger(size, 0), new MemoryStateStore());
      const now = await lastHour(store, size, items);
      const transitions = 2 * items * CHANNELS.length - PAGE;
      store.requests = 0;
      const page = await listEntries(store, { states: [OVERDUE], limit: PAGE, now });
      const pageRequests = store.requests;
      store.requests = 0;
      const recipients = await recipientsOverview(store, { days: 7, limit: 20, now });
      const recipientRequests = store.requests;
      const quiet = new LayeredLedger(new SyntheticLedger(size, 0), new MemoryStateStore());
      const reference = await listEntries(quiet, { states: [OVERDUE], limit: PAGE, now });
      if (
        page.entries.some((stored) => stored.entry.state !== OVERDUE) ||
        reference.entries.length !== PAGE
      ) {
        throw new Error(`the OVERDUE page is wrong at ${size} entries`);
      }
      const row = (question: string, answered: number, requests: number, ref: number | undefined) =>
        `| ${size.toLocaleString('en')} | ${transitions.toLocaleString('en')} | ${question} | ${answered} | ${requests} | ${modelled(requests)} | ${ref ?? '—'} | ${ref === undefined ? '—' : `${(requests / ref).toFixed(2)}×`} |\n`;
      process.stdout.write(
        row('OVERDUE, first page of 50', page.entries.length, pageRequests, quiet.requests),
      );
      process.stdout.write(
        row(
          `recipients page (7 days, ${recipients.recipients.length} recipients)`,
          recipients.recipients.length,
          recipientRequests,
          undefined,
        ),
      );
    }
  },
};
