/**
 * GDSN messages as data pools send them, from the XML to what a user reads: a publication refused by
 * the data pool reaches REFUSED_BY_DATA_POOL with the reason through the API, the CLI (`pds bridge
 * confirmations`, `why`) and `pds.confirmation.changed`; a 2.8 answer older than a 3.1 answer does
 * not override it, whatever its header says. The XML is the fixtures', read by the pollers' event
 * builders and applied by the ledger on the state store.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { fixedChannelDirectory } from '../../packages/bridge/src/confirmations/channel-directory.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { messagingAssetEvent, reviewEvent } from '../../packages/bridge/src/polling/events.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { confirmationsText, explanationText } from '../../packages/cli/src/commands/bridge-text.ts';
import { confirmationsOfPublication } from '../../packages/cli/src/ops/confirmations.ts';
import { explain } from '../../packages/cli/src/ops/why.ts';
import { apiEvent } from '../helpers/apigw.ts';
import { storeWithPublished } from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const HOUR = 3_600_000;
const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const fixture = (name: string): string => readFileSync(path.join(fixtures, name), 'utf8');
const CHANNEL = { destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'gdsn-de' };
/**
 * The fixtures' data pools: the source data pool that sends the responses and registration answers,
 * and the recipient's data pool that relays the 2.8 confirmation (cic-2.8-message.xml).
 */
const DATA_POOLS = ['0614141000029', '0614141000036'];
/** The item the data pool refuses in gs1-response-3.1-exceptions.xml. */
const REFUSED = '00614141123520';

async function published(primaryKeys: string[], publishedAt: string) {
  const sink = new RecordingSink();
  const request = { primaryKeys, destinations: [CHANNEL] };
  const store = await storeWithPublished(request, publishedAt);
  const ledger = new ConfirmationLedger({
    store,
    sink,
    deadlineMs: 48 * HOUR,
    now: () => new Date('2026-11-30T12:00:00.000Z'),
    channels: fixedChannelDirectory(DATA_POOLS),
  });
  await ledger.recordPublication({ publicationId: 'p-1', publishedAt, ...request });
  const changes = () =>
    sink.events
      .filter((event) => event.type === 'pds.confirmation.changed')
      .map((event) => event as CloudEvent<'pds.confirmation.changed'>);
  return { store, ledger, changes };
}

const REVIEW_FIELDS = {
  supplier: 'Example Foods',
  reviewer: 'Retailer',
  comment: '',
  messagingCreatorType: 'REVIEW',
};

const asset = (id: number, primaryKey?: string) => ({
  id,
  createdAt: Date.parse('2026-11-30T11:00:00.000Z'),
  contentType: 'application/xml',
  ...(primaryKey ? { primaryKey } : {}),
});

describe('a publication refused by the data pool', () => {
  it('reaches REFUSED_BY_DATA_POOL with the reason in the entry, the event, the API, the CLI and why', async () => {
    // arrange
    const { store, ledger, changes } = await published([REFUSED], '2026-11-27T06:00:00.000Z');
    const event = messagingAssetEvent(asset(501, REFUSED), fixture('gs1-response-3.1-exceptions.xml'));

    // act
    const report = await ledger.recordMessagingAssets([event]);
    const api = createApi({
      store,
      queue: new RecordingQueue(),
      pds: async () => new FakePds(),
      settings: { maxKeys: 10, channelsCacheMs: 0, watchTtlMs: 86_400_000, auth: { mode: 'iam' } },
      version: '1.0.0',
    });
    const answer = await api.handle(apiEvent({ path: '/publications/p-1/confirmations', iam: true }));
    const cli = confirmationsText(await confirmationsOfPublication(store, 'p-1'));
    const why = explanationText(await explain(store, { kind: 'publication', publicationId: 'p-1' }));

    // assess
    const reason = {
      source: 'data-pool',
      code: 'GDSN.1091',
      text: 'GTIN 00614141123520 already exists for information provider 0614141000012 in target market 276.',
      senderGln: '0614141000029',
    };
    expect(report.transitions).toEqual({ REFUSED_BY_DATA_POOL: 1 });
    const [entry] = (await listEntries(store)).entries;
    expect(entry?.entry).toMatchObject({
      state: 'REFUSED_BY_DATA_POOL',
      since: '2026-11-27T07:10:00.000Z',
      reason,
    });
    expect(entry?.entry.correctiveActions.map((action) => action.statusCode)).toEqual([
      'GDSN.1001',
      'GDSN.1091',
      'GDSN.0503',
    ]);
    // Published three days before the clock: it sat OVERDUE with no reason until the refusal was read.
    expect(changes().at(-1)?.data).toMatchObject({
      previousState: 'OVERDUE',
      state: 'REFUSED_BY_DATA_POOL',
      cause: 'refusal',
      messagingAssetId: 501,
      reason,
    });
    const body = JSON.parse(answer.body as string);
    expect(answer.statusCode).toBe(200);
    expect(body.summary).toEqual({ REFUSED_BY_DATA_POOL: 1 });
    expect(body.entries[0]).toMatchObject({ state: 'REFUSED_BY_DATA_POOL', reason });
    expect(body.entries[0].history.at(-1)).toMatchObject({ cause: 'refusal', state: 'REFUSED_BY_DATA_POOL' });
    for (const text of [cli, why]) {
      expect(text).toContain('REASON');
      expect(text).toMatch(/REFUSED_BY_DATA_POOL .*GDSN\.1091: GTIN 00614141123520 already exists/);
    }
  });

  it('finds the item by the GTIN the error names when the asset names no item, and applies it once', async () => {
    // arrange
    const { store, ledger, changes } = await published([REFUSED], '2026-11-27T06:00:00.000Z');
    const event = messagingAssetEvent(asset(502), fixture('gs1-response-3.1-exceptions.xml'));

    // act
    await ledger.recordMessagingAssets([event]);
    await ledger.recordMessagingAssets([event]);

    // assess
    expect((await listEntries(store)).entries[0]?.entry.state).toBe('REFUSED_BY_DATA_POOL');
    expect(changes().filter((change) => change.data.state === 'REFUSED_BY_DATA_POOL')).toHaveLength(1);
  });

  it('reads a 2.8 GDSNResponse and a refused registration through the review poller, on the channel reviewed', async () => {
    // arrange
    const { store, ledger } = await published(
      ['00614141123537', '00614141123568'],
      '2026-11-27T06:00:00.000Z',
    );
    const review = (primaryKey: string, messagingAssetId: number) => ({
      primaryKey,
      supplierId: '0614141000012',
      channelId: 'gdsn-de',
      messagingAssetId,
      reviewStatus: 'REJECTED',
      date: Date.parse('2026-11-30T10:00:00.000Z'),
      ...REVIEW_FIELDS,
    });
    const events = [
      reviewEvent(review('00614141123537', 601), 'f1', { xml: fixture('gdsn-response-2.8-exceptions.xml') }),
      reviewEvent(review('00614141123568', 602), 'f2', { xml: fixture('cirr-2.8-rejected.xml') }),
    ];

    // act
    await ledger.recordReviews(events);

    // assess
    const entries = (await listEntries(store)).entries.map(({ entry }) => [
      entry.key.primaryKey,
      entry.state,
      entry.reason?.code,
      entry.reason?.text,
    ]);
    expect(entries).toEqual([
      ['00614141123537', 'REFUSED_BY_DATA_POOL', '1091', 'GTIN 00614141123537 already exists.'],
      [
        '00614141123568',
        'REFUSED_BY_DATA_POOL',
        undefined,
        'registration REJECTED by 0614141000029, no error text given',
      ],
    ]);
  });

  it('goes back to AWAITING when the item is published again, and leaves items never published alone', async () => {
    // arrange
    const { store, ledger } = await published([REFUSED], '2026-11-27T06:00:00.000Z');
    await ledger.recordMessagingAssets([
      messagingAssetEvent(asset(503, REFUSED), fixture('gs1-response-3.1-exceptions.xml')),
    ]);

    // act
    await ledger.recordPublication({
      publicationId: 'p-2',
      publishedAt: '2026-11-30T08:00:00.000Z',
      primaryKeys: [REFUSED],
      destinations: [CHANNEL],
    });
    const unknown = await ledger.recordMessagingAssets([
      messagingAssetEvent(asset(504, '00614141999999'), fixture('gs1-response-3.1-exceptions.xml')),
    ]);

    // assess
    const entries = (await listEntries(store)).entries;
    expect(entries.map(({ entry }) => entry.state)).toEqual(['AWAITING']);
    expect(entries[0]?.entry.reason?.code).toBe('GDSN.1091');
    expect(unknown).toMatchObject({ unmatched: 1, entriesWritten: 0 });
  });
});

describe('a refusal of an item published to several channels', () => {
  it('waits for the review that names the channel, and then refuses that channel only', async () => {
    // arrange
    const store = new MemoryStateStore();
    const sink = new RecordingSink();
    const ledger = new ConfirmationLedger({
      store,
      sink,
      deadlineMs: 48 * HOUR,
      now: () => new Date('2026-11-27T08:00:00.000Z'),
      channels: fixedChannelDirectory(DATA_POOLS),
    });
    await ledger.recordPublication({
      publicationId: 'p-1',
      publishedAt: '2026-11-27T06:00:00.000Z',
      primaryKeys: [REFUSED],
      destinations: [CHANNEL, { destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-pl' }],
    });
    const xml = fixture('gs1-response-3.1-exceptions.xml');
    const review = {
      primaryKey: REFUSED,
      supplierId: '0614141000012',
      channelId: 'gdsn-pl',
      messagingAssetId: 505,
      reviewStatus: 'REJECTED',
      date: Date.parse('2026-11-27T07:30:00.000Z'),
      ...REVIEW_FIELDS,
    };

    // act
    const fromAsset = await ledger.recordMessagingAssets([messagingAssetEvent(asset(505, REFUSED), xml)]);
    const statesBefore = (await listEntries(store)).entries.map(({ entry }) => entry.state);
    await ledger.recordReviews([reviewEvent(review, 'p', { xml })]);

    // assess
    expect(fromAsset).toMatchObject({ unmatched: 1, entriesWritten: 0 });
    expect(statesBefore).toEqual(['AWAITING', 'AWAITING']);
    const states = Object.fromEntries(
      (await listEntries(store)).entries.map(({ entry }) => [entry.key.channelId, entry.state]),
    );
    expect(states).toEqual({ 'gdsn-de': 'AWAITING', 'gdsn-pl': 'REFUSED_BY_DATA_POOL' });
  });
});

describe('messages that say nothing of where the item stands', () => {
  it('leaves the entry as it is for a resend request, whatever the review status', async () => {
    // arrange
    const gtin = '00614141123452';
    const { store, ledger } = await published([gtin], '2026-11-30T11:00:00.000Z');
    const review = {
      primaryKey: gtin,
      supplierId: '0614141000012',
      channelId: 'gdsn-de',
      messagingAssetId: 901,
      reviewStatus: 'RECEIVED',
      date: Date.parse('2026-11-30T11:30:00.000Z'),
      ...REVIEW_FIELDS,
    };
    const event = reviewEvent(review, 'r', { xml: fixture('rfcin-3.1-reload.xml') });

    // act
    const report = await ledger.recordReviews([event]);

    // assess
    expect(event.data.gdsn).toMatchObject({
      messageType: 'requestForCatalogueItemNotification',
      isReload: true,
    });
    expect(report.entriesWritten).toBe(0);
    expect((await listEntries(store)).entries[0]?.entry.state).toBe('AWAITING');
  });
});

describe('answers in both GDSN versions', () => {
  it('does not let a 2.8 answer older than a 3.1 answer override it, though its header is newer', async () => {
    // arrange: the 3.1 answer (20 Nov) is newer than the 2.8 confirmation (20 Jun), older than its header (25 Nov)
    const gtin = '00614141123483';
    const { store, ledger } = await published([gtin], '2026-06-01T00:00:00.000Z');
    const synchronised31 = fixture('cic-3.1-synchronised.xml')
      .replace('<gtin>00614141123452</gtin>', `<gtin>${gtin}</gtin>`)
      // The same recipient as the 2.8 answer, as its sender and creator too (else it is not believed).
      .replaceAll('0614141000005', '0614141000043');
    const events = [
      messagingAssetEvent(asset(701), synchronised31),
      messagingAssetEvent(asset(702), fixture('cic-2.8-message.xml')),
    ];
    const review = (messagingAssetId: number) => ({
      primaryKey: gtin,
      supplierId: '0614141000012',
      channelId: 'gdsn-de',
      messagingAssetId,
      reviewStatus: 'APPROVED',
      date: Date.parse('2026-11-30T10:00:00.000Z'),
      ...REVIEW_FIELDS,
    });

    // act
    await ledger.recordReviews([reviewEvent(review(701), 'a', { xml: synchronised31 })]);
    await ledger.recordMessagingAssets(events);
    await ledger.recordReviews([reviewEvent(review(702), 'b', { xml: fixture('cic-2.8-message.xml') })]);

    // assess
    const [entry] = (await listEntries(store)).entries;
    expect(entry?.entry).toMatchObject({ state: 'SYNCHRONISED', since: '2026-11-20T08:15:00.000Z' });
    expect(entry?.entry.facts.find((fact) => fact.state === 'REVIEW')?.at).toBe('2026-06-20T14:30:00.000Z');
  });

  it('records the 2.8 reason from its long description when it is the latest answer', async () => {
    // arrange
    const gtin = '00614141123483';
    const { store, ledger, changes } = await published([gtin], '2026-06-01T00:00:00.000Z');
    const review = {
      primaryKey: gtin,
      supplierId: '0614141000012',
      channelId: 'gdsn-de',
      messagingAssetId: 801,
      reviewStatus: 'REVIEW',
      date: Date.parse('2026-11-30T10:00:00.000Z'),
      ...REVIEW_FIELDS,
    };

    // act
    await ledger.recordReviews([reviewEvent(review, 'c', { xml: fixture('cic-2.8-message.xml') })]);

    // assess
    const reason = {
      source: 'recipient',
      code: 'CIC999',
      text: 'Gross weight 12 kg exceeds the pallet limit agreed for this listing; confirm or correct.',
      senderGln: '0614141000043',
    };
    expect((await listEntries(store)).entries[0]?.entry).toMatchObject({ state: 'REVIEW', reason });
    expect(changes().at(-1)?.data.reason).toEqual(reason);
    expect(changes().at(-1)?.data.correctiveActions[0]).toMatchObject({
      description: 'Item is under review by the category manager.',
      longDescription: reason.text,
    });
  });
});
