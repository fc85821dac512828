/**
 * What the confirmation ledger asks of the state bucket and the events queue per unit of work, counted
 * at the StateStore port and the EventSink (docs/costs.md, "The confirmation ledger"): a publication
 * of N items to M channels, a review with a confirmation, a messaging asset with one, the deadline
 * check. Each `get`/`list` page is a GET/LIST request on S3, each `create`/`update` a PUT.
 *
 *   node bench/costs/confirmations.ts [--items 10] [--channels 1] [--publications-per-day 1000]
 *     [--reviews-per-day 1000] [--assets-per-day 10000] [--review-minutes 5]
 *
 * Then prices a 30-day month of the load docs/costs.md states with the prices of ./model.ts: every
 * publication of `--items` items to `--channels` channels, every review answering a published entry,
 * messaging assets as the review's asset (matched) plus the rest about items the bridge did not
 * publish (one LIST each), the deadline check on every scheduled review poll.
 */
import { parseArgs } from 'node:util';
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { type CloudEvent, createEvent, type EventSink } from '../../packages/bridge/src/events/index.ts';
import { MemoryStateStore, type StateOperation } from '../../packages/bridge/src/state/index.ts';
import { printTable } from '../support.ts';
import { PRICES } from './model.ts';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '10' },
    channels: { type: 'string', default: '1' },
    'publications-per-day': { type: 'string', default: '1000' },
    'reviews-per-day': { type: 'string', default: '1000' },
    'assets-per-day': { type: 'string', default: '10000' },
    'review-minutes': { type: 'string', default: '5' },
  },
});
const ITEMS = Number(values.items);
const CHANNELS = Number(values.channels);
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T08:00:00.000Z');

const counts = { get: 0, create: 0, update: 0, delete: 0, list: 0 };
const store = new MemoryStateStore({
  beforeOperation: (operation: StateOperation) => {
    counts[operation.kind]++;
  },
});
let messages = 0;
const sink: EventSink = {
  publish: async (events: readonly CloudEvent[]) => {
    // The SQS adapter sends up to 10 events per SendMessageBatch request.
    messages += Math.ceil(events.length / 10);
  },
};
const clock = { now: new Date(T0) };
const ledger = new ConfirmationLedger({ store, sink, deadlineMs: 48 * HOUR, now: () => clock.now });
const keys = Array.from({ length: ITEMS }, (_, index) => String(6141410000000 + index).padStart(14, '0'));
const channels = Array.from({ length: CHANNELS }, (_, index) => `ch-${index}`);

function take(): Record<string, number> {
  const taken = {
    'S3 GET': counts.get,
    'S3 PUT': counts.create + counts.update,
    'S3 LIST': counts.list,
    'S3 DELETE': counts.delete,
    'SQS requests': messages,
  };
  for (const name of Object.keys(counts) as Array<keyof typeof counts>) counts[name] = 0;
  messages = 0;
  return taken;
}

/** A 13-digit recipient GLN per channel (`ch-0`, `ch-1`, …): the ledger keys only well-formed ones. */
const glnOf = (channelId: string) => `06141410${channelId.replace(/\D/g, '').padStart(5, '0')}`;

const cic = (state: string, gtin: string, gln: string) => ({
  gdsnVersion: '3.1' as const,
  state,
  gtin,
  recipientGln: gln,
  // From the recipient itself, as the ledger believes a confirmation.
  creatorGln: gln,
  targetMarketCountryCode: '276',
  creationDateTime: new Date(T0 + HOUR).toISOString(),
  statuses: [],
});

const rows: Array<[string, number, Record<string, number>]> = [];
await ledger.recordPublication({
  publicationId: 'p-1',
  publishedAt: new Date(T0).toISOString(),
  primaryKeys: keys,
  destinations: channels.map((destinationId) => ({
    destinationType: 'COMMUNICATION_CHANNEL',
    destinationId,
  })),
});
rows.push([`publication of ${ITEMS} items to ${CHANNELS} channel(s)`, ITEMS * CHANNELS, take()]);

let asset = 1;
for (const primaryKey of keys) {
  for (const channelId of channels) {
    const id = asset++;
    await ledger.recordReviews([
      createEvent({
        type: 'pds.supplier-review.received',
        subject: `item/${primaryKey}`,
        idParts: [primaryKey, id],
        data: {
          review: {
            primaryKey,
            supplierId: 's',
            channelId,
            messagingAssetId: id,
            supplier: 's',
            reviewer: 'r',
            reviewStatus: 'APPROVED',
            date: T0 + HOUR,
            comment: '',
            messagingCreatorType: 'REVIEW',
          },
          messagingAssetId: id,
          cic: [cic('RECEIVED', primaryKey, glnOf(channelId))],
        },
      }),
    ]);
  }
}
rows.push(['review with a confirmation (a transition)', ITEMS * CHANNELS, take()]);

for (const primaryKey of keys) {
  await ledger.recordMessagingAssets([
    createEvent({
      type: 'pds.messaging-asset.received',
      subject: `messaging-asset/${asset}`,
      idParts: [asset++],
      data: {
        messagingAssetId: asset,
        primaryKey,
        document: { rootName: 'x', namespaces: {}, root: {} },
        cic: [
          {
            ...cic('SYNCHRONISED', primaryKey, glnOf('ch-0')),
            creationDateTime: new Date(T0 + 2 * HOUR).toISOString(),
          },
        ],
      },
    }),
  ]);
}
rows.push(['messaging asset with a confirmation (matched: a transition)', ITEMS, take()]);

clock.now = new Date(T0 + 10 * HOUR);
await checkConfirmationDeadlines(store, ledger, clock.now);
rows.push(['deadline check, nothing due', 1, take()]);
clock.now = new Date(T0 + 49 * HOUR);
await checkConfirmationDeadlines(store, ledger, clock.now);
rows.push([
  `deadline check, ${ITEMS * CHANNELS} entries due (one publication, all answered)`,
  ITEMS * CHANNELS,
  take(),
]);

const columns = ['S3 GET', 'S3 PUT', 'S3 LIST', 'S3 DELETE', 'SQS requests'];
printTable(
  ['operation', 'units', ...columns.map((column) => `${column}/unit`)],
  rows.map(([name, units, taken]) => [
    name,
    units,
    ...columns.map((column) => ((taken[column] ?? 0) / units).toFixed(2)),
  ]),
);

// A 30-day month of the stated load.
const month = (perDay: number) => perDay * 30;
const perUnit = (name: string) => {
  const row = rows.find(([label]) => label.includes(name)) as [string, number, Record<string, number>];
  return (column: string) => (row[2][column] ?? 0) / row[1];
};
const publicationsPerDay = Number(values['publications-per-day']);
const reviewsPerDay = Number(values['reviews-per-day']);
const assetsPerDay = Number(values['assets-per-day']);
const runsPerMonth = (30 * 24 * 60) / Number(values['review-minutes']);
const lines: Array<[string, number, (column: string) => number]> = [
  ['entries created by publications', month(publicationsPerDay * ITEMS * CHANNELS), perUnit('publication')],
  ['reviews answering an entry', month(reviewsPerDay), perUnit('review')],
  [
    'messaging assets of those reviews',
    month(Math.min(reviewsPerDay, assetsPerDay)),
    perUnit('messaging asset'),
  ],
  [
    'other messaging assets (no entry: one LIST)',
    month(Math.max(0, assetsPerDay - reviewsPerDay)),
    (column) => (column === 'S3 LIST' ? 1 : 0),
  ],
  ['deadline checks (scheduled review polls)', runsPerMonth, perUnit('nothing due')],
  ['entries whose deadline comes', month(publicationsPerDay * ITEMS * CHANNELS), perUnit('entries due')],
];
const priced = lines.map(([name, units, per]) => {
  const reads = units * per('S3 GET');
  const writes = units * (per('S3 PUT') + per('S3 LIST'));
  const sqs = units * per('SQS requests');
  const dollars =
    (reads / 1000) * PRICES.s3PerThousandReads +
    (writes / 1000) * PRICES.s3PerThousandWrites +
    (sqs / 1_000_000) * PRICES.sqsPerMillionRequests;
  return { name, units, reads, writes, sqs, dollars };
});
process.stdout.write('\n');
const total = priced.reduce((sum, line) => sum + line.dollars, 0);
printTable(
  ['a month of', 'units', 'S3 reads', 'S3 writes+lists', 'SQS requests', 'cost'],
  [
    ...priced.map((line) => [
      line.name,
      Math.round(line.units).toLocaleString('en-US'),
      Math.round(line.reads).toLocaleString('en-US'),
      Math.round(line.writes).toLocaleString('en-US'),
      Math.round(line.sqs).toLocaleString('en-US'),
      `$${line.dollars.toFixed(2)}`,
    ]),
    ['total', '', '', '', '', `$${total.toFixed(2)}`],
  ],
);
