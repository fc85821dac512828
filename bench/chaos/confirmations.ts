/**
 * The confirmation ledger's chaos run (issue 22): publications, reviews and messaging assets applied
 * by concurrent workers, at least once, in any order, with a failing state store, a failing event
 * queue, duplicates and killed deliveries; then the deadline check. Every published (item, recipient)
 * must end in the state its last confirmation says (by the message's own time), or OVERDUE for a
 * silent recipient; no transition may be lost; a `pds.confirmation.changed` sent twice must carry the
 * same id. Not part of `npm test`; figures in docs/benchmarks.md ("Chaos: confirmation ledger").
 *
 *   node bench/chaos/confirmations.ts [--items 200] [--workers 8] [--fault-rate 0.1] [--seed 1] [--quick]
 *
 * What runs (everything in this process, on 127.0.0.1): the local stack's S3 endpoint (fauxqs behind
 * the conditional endpoint, where conditional writes are atomic) as the state bucket through
 * S3StateStore. Faults: each state-store call fails with probability `--fault-rate` (half before the
 * request, half after a write took effect, as a lost answer); each publish of events fails with that
 * probability (half of them after the events were accepted: they are sent again). A failed delivery
 * goes back to the queue (SQS redelivery), so a delivery killed at any step is tried again; a tenth
 * of the deliveries are queued twice. Stops by itself: each delivery is retried at most 200 times.
 */
import { parseArgs } from 'node:util';
import { S3Client } from '@aws-sdk/client-s3';
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { markersOf } from '../../packages/bridge/src/confirmations/entry-index.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { ConfirmationChangedData } from '../../packages/bridge/src/events/data/index.ts';
import { type CloudEvent, createEvent, type EventSink } from '../../packages/bridge/src/events/index.ts';
import type { SupplierReview } from '../../packages/bridge/src/pds/index.ts';
import { mutate, type StateStore, StateStoreError } from '../../packages/bridge/src/state/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/index.ts';
import type { CicSummary } from '../../packages/bridge/src/xml/index.ts';
import { startEmulator } from '../../packages/local/src/emulator.ts';
import { mulberry32, type Random } from '../../packages/simulator/src/random.ts';
import { printTable } from '../support.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    workers: { type: 'string', default: '8' },
    'fault-rate': { type: 'string', default: '0.1' },
    seed: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
  },
});
const ITEMS = Number(values.items ?? (values.quick ? 15 : 200));
const WORKERS = Number(values.workers);
const FAULT_RATE = Number(values['fault-rate']);
const random: Random = mulberry32(Number(values.seed));
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T08:00:00.000Z');

/** How each channel's recipient answers (the simulator's behaviours, as CIC states over time). */
const CHANNELS: Record<string, (index: number) => string[]> = {
  'ch-sync': () => ['SYNCHRONISED'],
  'ch-review': () => ['RECEIVED', 'REVIEW'],
  'ch-reject': () => ['REJECTED'],
  'ch-28': () => ['ACCEPTED'],
  'ch-twice': (index) =>
    index % 2 === 0 ? ['RECEIVED', 'SYNCHRONISED'] : ['REVIEW', 'RECEIVED', 'SYNCHRONISED'],
  'ch-silent': () => [],
};

/** Each channel's recipient has its own GLN, as real ones do. */
const glnOf = (channelId: string) =>
  `06141410${String(Object.keys(CHANNELS).indexOf(channelId)).padStart(5, '0')}`;

class Faults {
  injected = 0;
  maybe(where: string): void {
    if (random() < FAULT_RATE / 2) {
      this.injected++;
      throw new StateStoreError(where, 'injected fault', true);
    }
  }
}

/** A StateStore whose every call may fail before it is made or after it took effect. */
function faultyStore(inner: StateStore, faults: Faults): StateStore {
  const store: StateStore = {
    get: async (key) => {
      faults.maybe(key);
      return inner.get(key);
    },
    create: async (key, value) => {
      faults.maybe(key);
      const result = await inner.create(key, value);
      faults.maybe(key); // a lost answer: the object exists, the caller does not know
      return result;
    },
    update: async (key, value, etag) => {
      faults.maybe(key);
      const result = await inner.update(key, value, etag);
      faults.maybe(key);
      return result;
    },
    delete: async (key, etag) => {
      faults.maybe(key);
      await inner.delete(key, etag);
    },
    list: (prefix, options) => inner.list(prefix, options),
    listEntries: (prefix, options) => inner.listEntries(prefix, options),
    mutate: (key, fn, options) => mutate(store, key, fn, { maxAttempts: 50, ...options }),
  };
  return store;
}

/** The events queue: records what it accepted; may fail before or after accepting a batch. */
class ChaosSink implements EventSink {
  readonly accepted: Array<CloudEvent<'pds.confirmation.changed'>> = [];
  failures = 0;
  async publish(events: readonly CloudEvent[]): Promise<void> {
    if (random() < FAULT_RATE / 2) {
      this.failures++;
      throw new Error('SQS refused the batch (injected)');
    }
    this.accepted.push(...(events as Array<CloudEvent<'pds.confirmation.changed'>>));
    if (random() < FAULT_RATE / 2) {
      this.failures++;
      throw new Error('SQS answer lost (injected)');
    }
  }
}

type Delivery = () => Promise<unknown>;

function cic(state: string, gtin: string, at: number, channelId: string): CicSummary {
  return {
    gdsnVersion: state === 'ACCEPTED' ? '2.8' : '3.1',
    state,
    gtin,
    recipientGln: glnOf(channelId),
    // From the recipient itself, as the ledger believes a confirmation.
    creatorGln: glnOf(channelId),
    targetMarketCountryCode: '276',
    creationDateTime: new Date(at).toISOString(),
    statuses: [],
  };
}

function reviewEvent(primaryKey: string, channelId: string, assetId: number, answer: CicSummary) {
  const review: SupplierReview = {
    primaryKey,
    supplierId: '0614141000012',
    channelId,
    messagingAssetId: assetId,
    supplier: 'Chaos Supplier',
    reviewer: 'Chaos Retail',
    reviewStatus: answer.state,
    date: Date.parse(answer.creationDateTime as string),
    comment: '',
    messagingCreatorType: 'REVIEW',
  };
  return createEvent({
    type: 'pds.supplier-review.received',
    subject: `item/${primaryKey}`,
    idParts: [primaryKey, assetId],
    data: { review, messagingAssetId: assetId, cic: [answer] },
  });
}

function assetEvent(primaryKey: string, assetId: number, answer: CicSummary) {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${assetId}`,
    idParts: [assetId],
    data: {
      messagingAssetId: assetId,
      primaryKey,
      document: { rootName: 'catalogueItemConfirmationMessage', namespaces: {}, root: {} },
      cic: [answer],
    },
  });
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Runs the deliveries with `WORKERS` workers; a failed delivery goes back to the end of the queue. */
async function deliverAll(
  queue: Delivery[],
): Promise<{ attempts: number; redelivered: number; gaveUp: number }> {
  const tries = new Map<Delivery, number>();
  let attempts = 0;
  let redelivered = 0;
  let gaveUp = 0;
  const worker = async () => {
    for (let delivery = queue.shift(); delivery; delivery = queue.shift()) {
      attempts++;
      try {
        await delivery();
      } catch {
        const tried = (tries.get(delivery) ?? 0) + 1;
        tries.set(delivery, tried);
        if (tried < 200) {
          redelivered++;
          queue.push(delivery);
        } else gaveUp++;
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  return { attempts, redelivered, gaveUp };
}

const emulator = await startEmulator({ port: 0, region: 'us-east-1' });
const s3 = new S3Client({
  endpoint: emulator.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  forcePathStyle: true,
});
const started = Date.now();
try {
  emulator.server.createBucket('chaos-state');
  const clean = new S3StateStore({ client: s3, bucket: 'chaos-state' });
  const faults = new Faults();
  const store = faultyStore(clean, faults);
  const sink = new ChaosSink();
  const clock = { now: new Date(T0 + 12 * HOUR) };
  const ledger = new ConfirmationLedger({ store, sink, deadlineMs: 48 * HOUR, now: () => clock.now });

  const channels = Object.keys(CHANNELS);
  const keys = Array.from({ length: ITEMS }, (_, index) => String(6141410000000 + index).padStart(14, '0'));
  const expected = new Map<string, string>();
  // Answers can only follow their publication: every publication is delivered first (in random
  // order), then every answer in random order, so older confirmations often arrive after newer ones.
  const publishing: Delivery[] = [];
  const answering: Delivery[] = [];
  let assetId = 1;
  keys.forEach((primaryKey, index) => {
    const destinations = channels.map((destinationId) => ({
      destinationType: 'COMMUNICATION_CHANNEL' as const,
      destinationId,
    }));
    const publish = () =>
      ledger.recordPublication({
        publicationId: `p-${index}`,
        publishedAt: new Date(T0).toISOString(),
        primaryKeys: [primaryKey],
        destinations,
      });
    publishing.push(publish);
    for (const channelId of channels) {
      const states = (CHANNELS[channelId] as (index: number) => string[])(index);
      expected.set(`${primaryKey} ${channelId}`, states.at(-1) ?? 'OVERDUE');
      states.forEach((state, step) => {
        const answer = cic(state, primaryKey, T0 + (step + 1) * HOUR, channelId);
        const id = assetId++;
        const review = () => ledger.recordReviews([reviewEvent(primaryKey, channelId, id, answer)]);
        const asset = () => ledger.recordMessagingAssets([assetEvent(primaryKey, id, answer)]);
        answering.push(review, asset);
        if (random() < 0.1) answering.push(review); // a duplicate delivery
      });
    }
  });
  const first = await deliverAll(shuffle(publishing));
  const second = await deliverAll(shuffle(answering));
  clock.now = new Date(T0 + 49 * HOUR);
  const third = await deliverAll([() => checkConfirmationDeadlines(store, ledger, clock.now)]);

  // Count against a store without faults.
  const entries: Awaited<ReturnType<typeof listEntries>>['entries'] = [];
  for (let after: string | undefined; ; ) {
    const page = await listEntries(clean, { limit: 1000, ...(after ? { after } : {}) });
    entries.push(...page.entries);
    if (!page.next) break;
    after = page.next;
  }
  let wrongState = 0;
  let lostTransitions = 0;
  let brokenHistory = 0;
  let pendingLeft = 0;
  const acceptedIds = new Set(sink.accepted.map((event) => event.id));
  const historyIds = new Set<string>();
  for (const { entry } of entries) {
    const want = expected.get(`${entry.key.primaryKey} ${entry.key.channelId}`);
    if (want !== entry.state) {
      wrongState++;
      if (wrongState <= 5) {
        process.stderr.write(
          `wrong: ${entry.key.primaryKey} at ${entry.key.channelId}: ${entry.state}, expected ${want}; facts ${entry.facts.map((fact) => `${fact.state}@${fact.at.slice(11, 16)}`).join(' ')}\n`,
        );
      }
    }
    pendingLeft += entry.pending.length;
    entry.history.forEach((transition, index) => {
      if (transition.eventId) historyIds.add(transition.eventId);
      if (!transition.eventId || !acceptedIds.has(transition.eventId)) lostTransitions++;
      if (index > 0 && transition.previousState !== entry.history[index - 1]?.state) brokenHistory++;
    });
    if (entry.history.at(-1)?.state !== entry.state) brokenHistory++;
  }
  // The index (issue 28): every entry found through its state's and its GTIN's markers, whatever
  // crashed between marker and entry; stale markers are allowed (readers skip them), missing ones not.
  let missingMarkers = 0;
  for (const { stateKey, entry } of entries) {
    for (const markerKey of markersOf(stateKey, entry)) if (!(await clean.get(markerKey))) missingMarkers++;
  }
  // A duplicate must repeat an id (same transition); an accepted id no history names is a transition
  // sent under a second id.
  const byId = new Map<string, ConfirmationChangedData[]>();
  for (const event of sink.accepted) byId.set(event.id, [...(byId.get(event.id) ?? []), event.data]);
  const duplicates = sink.accepted.length - byId.size;
  const strayIds = [...acceptedIds].filter((id) => !historyIds.has(id)).length;
  const differingDuplicates = [...byId.values()].filter(
    (datas) => new Set(datas.map((data) => JSON.stringify(data))).size > 1,
  ).length;

  const targets = [
    {
      name: 'entries (items x recipients)',
      value: entries.length,
      target: expected.size,
      pass: entries.length === expected.size,
    },
    { name: 'entries in the wrong final state', value: wrongState, target: 0, pass: wrongState === 0 },
    {
      name: 'lost transitions (no event accepted)',
      value: lostTransitions,
      target: 0,
      pass: lostTransitions === 0,
    },
    { name: 'histories with a gap', value: brokenHistory, target: 0, pass: brokenHistory === 0 },
    {
      name: 'events under a second id',
      value: strayIds + differingDuplicates,
      target: 0,
      pass: strayIds + differingDuplicates === 0,
    },
    { name: 'outboxes left unsent', value: pendingLeft, target: 0, pass: pendingLeft === 0 },
    { name: 'index markers missing', value: missingMarkers, target: 0, pass: missingMarkers === 0 },
    {
      name: 'deliveries given up',
      value: first.gaveUp + second.gaveUp + third.gaveUp,
      target: 0,
      pass: first.gaveUp + second.gaveUp + third.gaveUp === 0,
    },
  ];
  printTable(
    ['figure', 'value'],
    [
      ['items x channels', `${ITEMS} x ${channels.length}`],
      ['workers', WORKERS],
      ['deliveries (attempts)', first.attempts + second.attempts + third.attempts],
      ['redelivered after a failure', first.redelivered + second.redelivered + third.redelivered],
      ['state-store faults injected', faults.injected],
      ['event-queue faults injected', sink.failures],
      ['events accepted', sink.accepted.length],
      ['of which duplicates (same id)', duplicates],
      ['seconds', ((Date.now() - started) / 1000).toFixed(1)],
    ],
  );
  process.stdout.write('\n');
  printTable(
    ['target', 'value', 'target', 'result'],
    targets.map((target) => [target.name, target.value, target.target, target.pass ? 'PASS' : 'FAIL']),
  );
  const pass = targets.every((target) => target.pass);
  process.stdout.write(
    `${JSON.stringify({ bench: 'chaos-confirmations', items: ITEMS, channels: channels.length, workers: WORKERS, faultRate: FAULT_RATE, duplicates, targets, pass })}\n`,
  );
  process.exitCode = pass ? 0 : 1;
} finally {
  s3.destroy();
  await emulator.stop();
}
