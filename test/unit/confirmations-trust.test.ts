/**
 * Whom the confirmation ledger believes, what it bounds, and what no clock can undo
 * (docs/confirmations.md, "Whom the ledger believes", "Bounded", "Order").
 */
import { describe, expect, it } from 'vitest';
import {
  channelDirectory,
  fixedChannelDirectory,
} from '../../packages/bridge/src/confirmations/channel-directory.ts';
import { MAX_FACT_TEXT } from '../../packages/bridge/src/confirmations/facts.ts';
import { confirmationKey } from '../../packages/bridge/src/confirmations/keys.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { processPublication } from '../../packages/bridge/src/publications/worker.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { CicSummary, GdsnMessageSummary } from '../../packages/bridge/src/xml/index.ts';
import {
  assetReceived,
  cic,
  RETAILER_GLN,
  reviewReceived,
  storeWithPublished,
} from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const ITEM = '00614141123452';
const CHANNEL = 'gdsn-de';
const OTHER_RETAILER = '0614141000098';
const DATA_POOL = '0614141000029';
const CHANNEL_DESTINATION = { destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: CHANNEL };

function setup(options: { dataPools?: string[] } = {}) {
  const store = new MemoryStateStore();
  const metrics: Array<[string, number]> = [];
  const warnings: Array<{ message: string; extra: unknown[] }> = [];
  const ledger = new ConfirmationLedger({
    store,
    sink: new RecordingSink(),
    deadlineMs: 48 * HOUR,
    now: () => new Date(T0 + HOUR),
    metrics: { addMetric: (name, _unit, value) => metrics.push([name, value]) },
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, ...extra) => warnings.push({ message, extra }),
      error: () => undefined,
    },
    channels: fixedChannelDirectory(options.dataPools ?? [DATA_POOL]),
  });
  const publish = (publishedAt = iso(0), requestedAt?: string) =>
    ledger.recordPublication({
      publicationId: `p-${publishedAt}`,
      publishedAt,
      ...(requestedAt ? { requestedAt } : {}),
      primaryKeys: [ITEM],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: CHANNEL }],
    });
  const entries = async () =>
    (await listEntries(store, { primaryKey: ITEM })).entries.map(({ entry }) => entry);
  const counted = (name: string) =>
    metrics.filter(([metric]) => metric === name).reduce((a, [, n]) => a + n, 0);
  return { store, ledger, publish, entries, counted, warnings };
}

/** A review event whose message (summary `gdsn`) holds `cics`. */
function review(messagingAssetId: number, cics: CicSummary[], gdsn?: Partial<GdsnMessageSummary>) {
  const event = reviewReceived(ITEM, CHANNEL, messagingAssetId, cics);
  if (gdsn === undefined) return event;
  const summary: GdsnMessageSummary = {
    messageType: 'catalogueItemConfirmation',
    gdsnVersion: '3.1',
    items: [],
    ...gdsn,
  };
  return { ...event, data: { ...event.data, gdsn: summary } } as CloudEvent<'pds.supplier-review.received'>;
}

function refusalFrom(senderGln: string, messagingAssetId: number) {
  return review(messagingAssetId, [], {
    messageType: 'gs1Response',
    senderGln,
    status: 'REJECTED',
    refusal: true,
    creationDateTime: iso(10 * 60_000),
    errors: [{ level: 'message', code: 'GDSN.1091', description: 'GTIN already exists' }],
  });
}

/** A messaging-asset event holding `cics`, about the item, as the messaging-asset poller emits it. */
const asset = (messagingAssetId: number, cics: CicSummary[]) => assetReceived(messagingAssetId, cics, ITEM);

describe('whom the confirmation ledger believes', () => {
  it('leaves an entry unchanged when one recipient confirms about another recipient, and counts it', async () => {
    // prepare: the entry learns its recipient from the recipient's own REVIEW
    const { ledger, publish, entries, counted, warnings } = setup();
    await publish();
    await ledger.recordReviews([review(1, [cic('REVIEW', ITEM, 0.2)])]);
    expect((await entries())[0]?.state).toBe('REVIEW');

    // act: another retailer writes the first one's GLN into a SYNCHRONISED confirmation
    const forged = cic('SYNCHRONISED', ITEM, 0.5, { recipientGln: RETAILER_GLN, creatorGln: OTHER_RETAILER });
    const report = await ledger.recordReviews([review(2, [forged])]);

    // assess
    const [entry] = await entries();
    expect(entry?.state).toBe('REVIEW');
    expect(entry?.facts.some((fact) => fact.messagingAssetId === 2)).toBe(false);
    expect(report).toMatchObject({ untrusted: 1, unmatched: 1, entriesWritten: 0 });
    expect(counted('ConfirmationsUntrusted')).toBe(1);
    expect(warnings.map((one) => one.message).join('\n')).toMatch(
      /Confirmation not believed: sent or created by 0614141000098/,
    );
  });

  it('does not believe a message creator the header sender contradicts', async () => {
    const { ledger, publish, entries } = setup();
    await publish();

    const mixed = cic('REJECTED', ITEM, 0.5, { creatorGln: RETAILER_GLN });
    const report = await ledger.recordReviews([
      review(3, [mixed], {
        senderGln: OTHER_RETAILER,
        messageCreatorGln: RETAILER_GLN,
      } as Partial<GdsnMessageSummary>),
    ]);

    expect(report.untrusted).toBe(1);
    expect((await entries())[0]?.state).toBe('AWAITING');
  });

  it('believes a confirmation the channel data pool relays for the recipient it names', async () => {
    const { ledger, publish, entries } = setup();
    await publish();

    const relayed = cic('SYNCHRONISED', ITEM, 0.5, { creatorGln: RETAILER_GLN });
    await ledger.recordReviews([review(4, [relayed], { senderGln: DATA_POOL })]);

    expect((await entries())[0]?.state).toBe('SYNCHRONISED');
  });

  it('does not believe a confirmation that names no sender or creator', async () => {
    const { ledger, publish, entries } = setup();
    await publish();

    const anonymous = cic('REJECTED', ITEM, 0.5, { creatorGln: undefined });
    delete anonymous.creatorGln;
    const report = await ledger.recordReviews([review(5, [anonymous])]);

    expect(report.untrusted).toBe(1);
    expect((await entries())[0]?.state).toBe('AWAITING');
  });

  it('applies a refusal only from a data pool or the Global Registry', async () => {
    const { ledger, publish, entries, counted } = setup();
    await publish();

    const fromPartner = await ledger.recordReviews([refusalFrom(OTHER_RETAILER, 6)]);
    expect(fromPartner.untrusted).toBe(1);
    expect((await entries())[0]?.state).toBe('AWAITING');

    await ledger.recordReviews([refusalFrom(DATA_POOL, 7)]);
    expect((await entries())[0]?.state).toBe('REFUSED_BY_DATA_POOL');
    expect(counted('ConfirmationsUntrusted')).toBe(1);
  });

  it('applies no refusal when no data pool GLN is known, whoever sent it', async () => {
    const { ledger, publish, entries } = setup({ dataPools: [] });
    await publish();

    const report = await ledger.recordReviews([refusalFrom(DATA_POOL, 8)]);

    expect(report.untrusted).toBe(1);
    expect((await entries())[0]?.state).toBe('AWAITING');
  });
});

describe('what the ledger keys and keeps from a partner', () => {
  it('refuses a long non-ASCII recipient GLN without keying it or throwing', async () => {
    const { ledger, publish, entries, counted, store } = setup();
    await publish();
    const gln = 'Ω'.repeat(200);

    const report = await ledger.recordReviews([
      review(9, [cic('REJECTED', ITEM, 0.5, { recipientGln: gln, creatorGln: gln })]),
    ]);

    expect(report).toMatchObject({ invalid: 1, unmatched: 1, entriesWritten: 0 });
    expect(counted('ConfirmationsInvalid')).toBe(1);
    const [entry, ...others] = await entries();
    expect(entry?.state).toBe('AWAITING');
    expect(others).toEqual([]);
    for await (const key of store.list('')) expect(Buffer.byteLength(key)).toBeLessThanOrEqual(1024);
  });

  it('gives `-`, an empty and an absent recipient GLN no shared entry: only the absent one is keyed', async () => {
    const { ledger, publish, entries } = setup();
    await publish();
    await ledger.recordReviews([review(10, [cic('REVIEW', ITEM, 0.2)])]);

    const dash = await ledger.recordReviews([
      review(11, [cic('REJECTED', ITEM, 0.5, { recipientGln: '-', creatorGln: '-' })]),
    ]);
    const empty = await ledger.recordMessagingAssets([
      asset(12, [cic('REJECTED', ITEM, 0.6, { recipientGln: '', creatorGln: RETAILER_GLN })]),
    ]);

    expect([dash.invalid, empty.invalid]).toEqual([1, 1]);
    expect((await entries()).map((entry) => [entry.key.recipientGln, entry.state])).toEqual([
      [RETAILER_GLN, 'REVIEW'],
    ]);
    expect(() => confirmationKey(ITEM, CHANNEL, { recipientGln: '-' })).toThrow(/not 13 digits/);
    expect(() => confirmationKey(ITEM, CHANNEL, { recipientGln: RETAILER_GLN, targetMarket: 'DE' })).toThrow(
      /not a 3-digit/,
    );
  });

  it('caps the texts of a fact and keeps only the latest answer texts', async () => {
    const { ledger, publish, entries } = setup();
    await publish();
    const long = 'x'.repeat(50_000);
    const wordy = cic('REVIEW', ITEM, 0.2);
    wordy.statuses = [
      {
        code: 'CIC999',
        descriptions: [{ languageCode: 'en', text: long }],
        correctiveActions: Array.from({ length: 500 }, () => ({
          code: 'ACTION_NEEDED',
          expectedCorrectiveInformation: long,
        })),
      },
    ];

    await ledger.recordReviews([review(13, [wordy])]);
    const first = (await entries())[0];
    await ledger.recordReviews([review(14, [cic('REVIEW', ITEM, 0.4)])]);
    const second = (await entries())[0];

    expect(first?.reason?.text.length).toBeLessThan(MAX_FACT_TEXT + 60);
    expect(first?.correctiveActions.length).toBe(20);
    expect(first?.correctiveActions[0]?.expectedCorrectiveInformation).toMatch(/more characters left out\)$/);
    expect(JSON.stringify(second).length).toBeLessThan(20_000);
  });
});

describe('a warning is not a review that blocks', () => {
  it('records a REVIEW whose every corrective action is WARNING as REVIEW_WARNING, apart from REVIEW', async () => {
    const { ledger, publish, entries, store } = setup();
    await publish();
    const warning = cic('REVIEW', ITEM, 0.2);
    warning.statuses = [
      {
        code: 'CIC999',
        descriptions: [{ languageCode: 'en', text: 'Image low resolution' }],
        correctiveActions: [{ code: 'WARNING' }],
      },
    ];

    await ledger.recordReviews([review(15, [warning])]);

    const [entry] = await entries();
    expect(entry?.state).toBe('REVIEW_WARNING');
    expect(entry?.correctiveActions[0]).toMatchObject({ statusCode: 'CIC999', code: 'WARNING' });
    expect((await listEntries(store, { states: ['REVIEW'] })).entries).toEqual([]);
    expect((await listEntries(store, { states: ['REVIEW_WARNING'] })).entries).toHaveLength(1);
  });

  it('keeps a REVIEW with any action besides WARNING a REVIEW', async () => {
    const { ledger, publish, entries } = setup();
    await publish();
    const mixed = cic('REVIEW', ITEM, 0.2);
    mixed.statuses = [
      {
        code: 'CIC999',
        descriptions: [],
        correctiveActions: [{ code: 'WARNING' }, { code: 'ACTION_NEEDED' }],
      },
    ];

    await ledger.recordReviews([review(16, [mixed])]);

    expect((await entries())[0]?.state).toBe('REVIEW');
  });
});

describe('no answer lost to a clock', () => {
  it('counts an answer written before the bridge recorded the publication, after its request', async () => {
    // prepare: the request accepted at 0, the PDS took 40 s, the recipient answered at 20 s
    const { ledger, publish, entries } = setup();
    await publish(iso(40_000), iso(0));

    await ledger.recordReviews([review(17, [cic('SYNCHRONISED', ITEM, 20_000 / HOUR)])]);

    expect((await entries())[0]?.state).toBe('SYNCHRONISED');
  });

  it('counts an answer from a PDS clock one minute behind the bridge', async () => {
    const { ledger, publish, entries } = setup();
    await publish(iso(0));

    // Written 30 s after the publication by the bridge's clock, stamped 30 s before it.
    await ledger.recordReviews([review(18, [cic('SYNCHRONISED', ITEM, -30_000 / HOUR)])]);

    expect((await entries())[0]?.state).toBe('SYNCHRONISED');
  });

  it('counts from when the bridge accepted the request, though the publish worker ran ten minutes later', async () => {
    // prepare: POST /publications accepted at 0, queued; the worker published at 10 minutes
    const store = await storeWithPublished(
      { primaryKeys: [ITEM], destinations: [CHANNEL_DESTINATION] },
      iso(10 * MINUTE),
      {
        status: 'queued',
        createdAt: iso(0),
        selectionId: 'sel-1',
      },
    );
    const now = () => new Date(T0 + 10 * MINUTE);
    const ledger = new ConfirmationLedger({ store, sink: new RecordingSink(), deadlineMs: 48 * HOUR, now });
    const worker = {
      store,
      pds: new FakePds({ publish: async () => undefined }),
      events: new RecordingSink(),
      confirmations: ledger,
      maxAttempts: 3,
      watchTtlMs: HOUR,
      now,
    };

    // act: published, then an answer written at 3 minutes (the PDS sent the item before its answer came back)
    await processPublication(worker, 'p-1', 1);
    await ledger.recordReviews([review(20, [cic('SYNCHRONISED', ITEM, (3 * MINUTE) / HOUR)])]);

    // assess
    const [entry] = (await listEntries(store, { primaryKey: ITEM })).entries;
    expect(entry?.entry.publications.map((one) => one.publicationId)).toEqual(['p-1']);
    expect(entry?.entry.state).toBe('SYNCHRONISED');
  });

  it('still takes an answer written well before a republication for the earlier publication', async () => {
    const { ledger, publish, entries } = setup();
    await publish(iso(0));
    await ledger.recordReviews([review(19, [cic('REVIEW', ITEM, 0.1)])]);

    await publish(iso(2 * HOUR));

    expect((await entries())[0]?.state).toBe('AWAITING');
  });
});

describe('who speaks for a channel', () => {
  it('adds the data pool and recipient a channel record names to the configured ones, and reads the listing again after its time', async () => {
    // prepare: a listing like the simulator's, and one channel record without them
    let reads = 0;
    let clock = 0;
    const directory = channelDirectory({
      dataPools: ['0614141000036'],
      listChannels: async () => {
        reads++;
        return [
          { id: 'gdsn-de', name: 'DE', dataPoolGln: DATA_POOL, recipientGln: RETAILER_GLN },
          { id: 'gdsn-xx', name: 'XX', dataPoolGln: 'not a gln' },
        ];
      },
      ttlMs: 1000,
      now: () => clock,
    });

    // act
    const de = await directory.dataPoolsOf('gdsn-de');
    const recipients = await directory.recipientsOf('gdsn-de');
    const xx = await directory.dataPoolsOf('gdsn-xx');
    clock = 1000;
    await directory.dataPoolsOf('gdsn-de');

    // assess
    expect([...de].sort()).toEqual([DATA_POOL, '0614141000036']);
    expect([...recipients]).toEqual([RETAILER_GLN]);
    expect([...xx]).toEqual(['0614141000036']);
    expect(reads).toBe(2);
  });

  it('throws when the listing fails, and reads it again on the next question', async () => {
    let fail = true;
    const directory = channelDirectory({
      dataPools: [],
      listChannels: async () => {
        if (fail) throw new Error('PDS unavailable (simulated)');
        return [{ id: 'gdsn-de', name: 'DE', dataPoolGln: DATA_POOL }];
      },
    });

    await expect(directory.dataPoolsOf('gdsn-de')).rejects.toThrow(/unavailable/);
    fail = false;

    expect([...(await directory.dataPoolsOf('gdsn-de'))]).toEqual([DATA_POOL]);
  });
});
