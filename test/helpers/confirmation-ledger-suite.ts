/**
 * The confirmation ledger (packages/bridge/src/confirmations) on any `StateStore`: call it from a test file with a
 * factory that returns an empty store. The clock is injected: deadlines pass without sleeping.
 */
import { describe, expect, it } from 'vitest';
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { repairConfirmationIndex } from '../../packages/bridge/src/confirmations/entry-index.ts';
import { UnknownConfirmationStateError } from '../../packages/bridge/src/confirmations/errors.ts';
import { CONFIRMATION_INDEX_PREFIX, confirmationKey } from '../../packages/bridge/src/confirmations/keys.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries, resolveStates } from '../../packages/bridge/src/confirmations/read.ts';
import { type CloudEvent, createEvent } from '../../packages/bridge/src/events/index.ts';
import type { Destination, SupplierReview } from '../../packages/bridge/src/pds/index.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { mutate, type StateStore } from '../../packages/bridge/src/state/store.ts';
import type { CicSummary } from '../../packages/bridge/src/xml/index.ts';
import { RecordingSink } from './event-sink.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * HOUR);
const iso = (hours: number) => at(hours).toISOString();

export const RETAILER_GLN = '0614141000005';

/** A CIC summary as the poller's parser gives it. */
export function cic(state: string, gtin: string, hours: number, extra: Partial<CicSummary> = {}): CicSummary {
  return {
    gdsnVersion: state === 'ACCEPTED' ? '2.8' : '3.1',
    state,
    gtin,
    recipientGln: RETAILER_GLN,
    targetMarketCountryCode: '276',
    creationDateTime: iso(hours),
    statuses:
      state === 'REVIEW'
        ? [
            {
              code: 'CIC999',
              descriptions: [{ languageCode: 'en', text: 'Net content missing.' }],
              correctiveActions: [
                {
                  code: 'ACTION_NEEDED',
                  expectedCorrectiveInformation: 'Correct netContent and publish again.',
                },
              ],
            },
          ]
        : [],
    ...extra,
  };
}

let reviewDates = 0;

/** The `pds.supplier-review.received` event of a review whose message holds `cics`. */
export function reviewReceived(
  primaryKey: string,
  channelId: string,
  messagingAssetId: number,
  cics: CicSummary[] | undefined,
  options: { reviewStatus?: string; date?: number } = {},
): CloudEvent<'pds.supplier-review.received'> {
  const review: SupplierReview = {
    primaryKey,
    supplierId: '0614141000012',
    channelId,
    messagingAssetId,
    supplier: 'Example Foods',
    reviewer: 'Retailer',
    reviewStatus: options.reviewStatus ?? cics?.[0]?.state ?? 'APPROVED',
    date: options.date ?? T0 + ++reviewDates,
    comment: '',
    messagingCreatorType: 'REVIEW',
  };
  return createEvent({
    type: 'pds.supplier-review.received',
    subject: `item/${primaryKey}`,
    idParts: [primaryKey, messagingAssetId, review.reviewStatus, review.date],
    data: { review, messagingAssetId, ...(cics ? { cic: cics } : {}) },
  });
}

function assetReceived(
  messagingAssetId: number,
  cics: CicSummary[],
  primaryKey?: string,
): CloudEvent<'pds.messaging-asset.received'> {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${messagingAssetId}`,
    idParts: [messagingAssetId],
    data: {
      messagingAssetId,
      ...(primaryKey ? { primaryKey } : {}),
      document: { rootName: 'catalogueItemConfirmationMessage', namespaces: {}, root: {} },
      cic: cics,
    },
  });
}

const CHANNEL = (id: string) => ({ destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: id });

function setup(store: StateStore, sink = new RecordingSink()) {
  const clock = { now: at(0) };
  const ledger = new ConfirmationLedger({ store, sink, deadlineMs: 48 * HOUR, now: () => clock.now });
  const published = (publicationId: string, primaryKeys: string[], channels: string[], hours = 0) =>
    ledger.recordPublication({
      publicationId,
      publishedAt: iso(hours),
      primaryKeys,
      destinations: channels.map(CHANNEL),
    });
  const entry = async (primaryKey: string, channelId: string) =>
    (await listEntries(store, { primaryKey })).entries.find(
      (stored) => stored.entry.key.channelId === channelId,
    )?.entry;
  const changes = () =>
    sink.events
      .filter((event) => event.type === 'pds.confirmation.changed')
      .map((event) => event as CloudEvent<'pds.confirmation.changed'>);
  return { store, clock, ledger, sink, published, entry, changes };
}

/** `store`, whose next write of `key` fails once after `arm()` (a crash between the index and the entry). */
function crashingOnce(store: StateStore, key: string) {
  let armed = false;
  const crash = (written: string) => {
    if (!armed || written !== key) return;
    armed = false;
    throw new Error(`crash before writing ${written} (injected)`);
  };
  const wrapped: StateStore = {
    get: (k) => store.get(k),
    create: async (k, value) => {
      crash(k);
      return store.create(k, value);
    },
    update: async (k, value, etag) => {
      crash(k);
      return store.update(k, value, etag);
    },
    delete: (k, etag) => store.delete(k, etag),
    list: (prefix, options) => store.list(prefix, options),
    listEntries: (prefix, options) => store.listEntries(prefix, options),
    mutate: (k, fn, options) => mutate(wrapped, k, fn, options),
  };
  return {
    store: wrapped,
    arm: () => {
      armed = true;
    },
  };
}

async function keysUnder(store: StateStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const key of store.list(prefix)) keys.push(key);
  return keys;
}

/** Registers the ledger tests under `describe(name)`. */
export function describeConfirmationLedger(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
  options: { concurrent?: boolean } = {},
): void {
  describe(name, () => {
    it('creates one AWAITING entry per key and communication channel, none for IN_PLATFORM', async () => {
      const { store, ledger, changes } = setup(await makeStore());

      const report = await ledger.recordPublication({
        publicationId: 'p1',
        publishedAt: iso(0),
        primaryKeys: ['00614141123452', '00614141123469'],
        destinations: [
          CHANNEL('gdsn-de'),
          CHANNEL('gdsn-nl'),
          { destinationType: 'IN_PLATFORM', destinationId: 'org-1' },
        ],
      });

      const { entries } = await listEntries(store);
      expect(
        entries.map((stored) => [
          stored.entry.key.primaryKey,
          stored.entry.key.channelId,
          stored.entry.state,
        ]),
      ).toEqual([
        ['00614141123452', 'gdsn-de', 'AWAITING'],
        ['00614141123452', 'gdsn-nl', 'AWAITING'],
        ['00614141123469', 'gdsn-de', 'AWAITING'],
        ['00614141123469', 'gdsn-nl', 'AWAITING'],
      ]);
      expect(entries[0]?.entry.deadline).toBe(iso(48));
      expect(report.transitions).toEqual({ AWAITING: 4 });
      expect(
        changes().map((event) => [event.data.state, event.data.previousState, event.data.cause]),
      ).toEqual(Array(4).fill(['AWAITING', undefined, 'publication']));
    });

    it('records REVIEW with its corrective actions, then SYNCHRONISED after a republication, each once', async () => {
      const { ledger, published, entry, changes } = setup(await makeStore());
      await published('p1', ['00614141123452'], ['gdsn-de']);
      const review = reviewReceived('00614141123452', 'gdsn-de', 11, [cic('REVIEW', '00614141123452', 1)]);

      await ledger.recordReviews([review]);
      await ledger.recordReviews([review]); // a replay
      await ledger.recordMessagingAssets([assetReceived(11, [cic('REVIEW', '00614141123452', 1)])]); // the same CIC
      const inReview = await entry('00614141123452', 'gdsn-de');
      await published('p2', ['00614141123452'], ['gdsn-de'], 2);
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 12, [cic('SYNCHRONISED', '00614141123452', 3)]),
      ]);

      expect(inReview?.state).toBe('REVIEW');
      expect(inReview?.key).toMatchObject({
        gtin: '00614141123452',
        recipientGln: RETAILER_GLN,
        targetMarket: '276',
      });
      expect(inReview?.correctiveActions).toEqual([
        {
          statusCode: 'CIC999',
          code: 'ACTION_NEEDED',
          description: 'Net content missing.',
          expectedCorrectiveInformation: 'Correct netContent and publish again.',
        },
      ]);
      const done = await entry('00614141123452', 'gdsn-de');
      expect(done?.history.map((transition) => transition.state)).toEqual([
        'AWAITING',
        'REVIEW',
        'AWAITING',
        'SYNCHRONISED',
      ]);
      expect(done?.publications.map((publication) => publication.publicationId)).toEqual(['p1', 'p2']);
      expect(done?.deadline).toBe(iso(50));
      expect(done?.correctiveActions).toEqual([]);
      expect(done?.pending).toEqual([]);
      expect(changes().map((event) => event.data.state)).toEqual([
        'AWAITING',
        'REVIEW',
        'AWAITING',
        'SYNCHRONISED',
      ]);
      expect(changes()[1]?.data).toMatchObject({
        messagingAssetId: 11,
        reviewId: review.id,
        cause: 'confirmation',
      });
      expect(new Set(changes().map((event) => event.id)).size).toBe(4);
    });

    it('orders by the message creation time: an older CIC read later changes nothing', async () => {
      const { ledger, published, entry, changes } = setup(await makeStore());
      await published('p1', ['00614141123452'], ['gdsn-de']);

      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 21, [cic('SYNCHRONISED', '00614141123452', 5)]),
      ]);
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 20, [cic('RECEIVED', '00614141123452', 1)]),
      ]);

      const stored = await entry('00614141123452', 'gdsn-de');
      expect(stored?.state).toBe('SYNCHRONISED');
      expect(stored?.since).toBe(iso(5));
      expect(stored?.facts.map((fact) => fact.state)).toEqual(['AWAITING', 'RECEIVED', 'SYNCHRONISED']);
      expect(changes().map((event) => event.data.state)).toEqual(['AWAITING', 'SYNCHRONISED']);
    });

    it('keeps REJECTED, GDSN 2.8 ACCEPTED and a review status without a readable CIC as they are', async () => {
      const { ledger, published, entry } = setup(await makeStore());
      await published('p1', ['00614141123452', '00614141123469', '00614141123476'], ['gdsn-de']);

      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 31, [cic('REJECTED', '00614141123452', 1)]),
        reviewReceived('00614141123469', 'gdsn-de', 32, [cic('ACCEPTED', '00614141123469', 1)]),
        reviewReceived('00614141123476', 'gdsn-de', 33, undefined, {
          reviewStatus: 'APPROVED',
          date: T0 + HOUR,
        }),
      ]);

      expect((await entry('00614141123452', 'gdsn-de'))?.state).toBe('REJECTED');
      expect((await entry('00614141123469', 'gdsn-de'))?.state).toBe('ACCEPTED');
      expect((await entry('00614141123476', 'gdsn-de'))?.state).toBe('APPROVED');
    });

    it('turns AWAITING into OVERDUE once the deadline passes, once; a late answer still counts', async () => {
      const store = await makeStore();
      const { clock, ledger, published, entry, changes } = setup(store);
      await published('p1', ['00614141123452'], ['gdsn-de']);

      clock.now = at(47);
      const early = await checkConfirmationDeadlines(store, ledger, clock.now);
      clock.now = at(48);
      const due = await checkConfirmationDeadlines(store, ledger, clock.now);
      const again = await checkConfirmationDeadlines(store, ledger, clock.now);
      const overdue = await entry('00614141123452', 'gdsn-de');
      // Created before the deadline, read after it: the recipient did answer.
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 41, [cic('SYNCHRONISED', '00614141123452', 30)]),
      ]);

      expect(early).toMatchObject({ due: 0, transitions: {} });
      expect(due).toMatchObject({ due: 1, transitions: { OVERDUE: 1 } });
      expect(again).toMatchObject({ due: 0, transitions: {} });
      expect(overdue?.state).toBe('OVERDUE');
      expect(overdue?.since).toBe(iso(48));
      expect((await entry('00614141123452', 'gdsn-de'))?.state).toBe('SYNCHRONISED');
      expect(
        changes().map((event) => [event.data.previousState, event.data.state, event.data.cause]),
      ).toEqual([
        [undefined, 'AWAITING', 'publication'],
        ['AWAITING', 'OVERDUE', 'deadline'],
        ['OVERDUE', 'SYNCHRONISED', 'confirmation'],
      ]);
    });

    it('starts the deadline again when the item is published again', async () => {
      const store = await makeStore();
      const { clock, ledger, published, entry } = setup(store);
      await published('p1', ['00614141123452'], ['gdsn-de']);
      clock.now = at(2);
      await published('p2', ['00614141123452'], ['gdsn-de'], 2);

      clock.now = at(48);
      const first = await checkConfirmationDeadlines(store, ledger, clock.now);
      const waiting = await entry('00614141123452', 'gdsn-de');
      clock.now = at(50);
      const second = await checkConfirmationDeadlines(store, ledger, clock.now);

      expect(first).toMatchObject({ due: 1, transitions: {} });
      expect(waiting?.state).toBe('AWAITING');
      expect(second).toMatchObject({ due: 1, transitions: { OVERDUE: 1 } });
      expect((await entry('00614141123452', 'gdsn-de'))?.since).toBe(iso(50));
    });

    it('gives a second recipient on one channel its own entry, starting from the publications', async () => {
      const { store, ledger, published } = setup(await makeStore());
      await published('p1', ['00614141123452'], ['pool']);

      await ledger.recordReviews([
        reviewReceived('00614141123452', 'pool', 51, [cic('SYNCHRONISED', '00614141123452', 1)]),
        reviewReceived('00614141123452', 'pool', 52, [
          cic('REVIEW', '00614141123452', 1, { recipientGln: '0614141000029' }),
        ]),
      ]);

      const { entries } = await listEntries(store, { primaryKey: '00614141123452' });
      expect(entries.map((stored) => [stored.entry.key.recipientGln, stored.entry.state]).sort()).toEqual([
        [RETAILER_GLN, 'SYNCHRONISED'],
        ['0614141000029', 'REVIEW'],
      ]);
      expect(entries.every((stored) => stored.entry.publications[0]?.publicationId === 'p1')).toBe(true);
    });

    it('applies a messaging asset only to the entry whose recipient it names, and ignores unknown items', async () => {
      const { store, ledger, published, entry } = setup(await makeStore());
      await published('p1', ['00614141123452'], ['gdsn-de']);

      const before = await ledger.recordMessagingAssets([
        assetReceived(60, [cic('REVIEW', '614141123452', 1)]),
      ]);
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 61, [cic('RECEIVED', '00614141123452', 1)]),
      ]);
      const after = await ledger.recordMessagingAssets([
        assetReceived(62, [cic('SYNCHRONISED', '614141123452', 2)]),
        assetReceived(63, [cic('SYNCHRONISED', '00999999999999', 2)]),
      ]);

      expect(before.unmatched).toBe(1);
      expect(after.unmatched).toBe(1);
      expect((await entry('00614141123452', 'gdsn-de'))?.state).toBe('SYNCHRONISED');
      expect((await listEntries(store)).entries).toHaveLength(1);
    });

    it('leaves a messaging asset alone while another entry of the item does not know its recipient yet', async () => {
      // Found by bench/chaos/confirmations.ts: the asset's recipient GLN matched the only entry that
      // knew one, while it came from the other channel (the same recipient behind two channels).
      const { store, ledger, published } = setup(await makeStore());
      await published('p1', ['00614141123452'], ['gdsn-de', 'pool']);
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 90, [cic('SYNCHRONISED', '00614141123452', 1)]),
      ]);

      const report = await ledger.recordMessagingAssets([
        assetReceived(91, [cic('REJECTED', '00614141123452', 2)]),
      ]);

      expect(report.unmatched).toBe(1);
      const { entries } = await listEntries(store, { primaryKey: '00614141123452' });
      expect(entries.map((stored) => [stored.entry.key.channelId, stored.entry.state])).toEqual([
        ['gdsn-de', 'SYNCHRONISED'],
        ['pool', 'AWAITING'],
      ]);
    });

    it('publishes a transition whose event failed on a later call, with the same event id', async () => {
      const sink = new RecordingSink();
      const { ledger, published, entry, changes } = setup(await makeStore(), sink);
      await published('p1', ['00614141123452'], ['gdsn-de']);
      sink.failNext(1);

      await expect(
        ledger.recordReviews([
          reviewReceived('00614141123452', 'gdsn-de', 71, [cic('REJECTED', '00614141123452', 1)]),
        ]),
      ).rejects.toThrow(/SQS refused/);
      const stuck = await entry('00614141123452', 'gdsn-de');
      // The poller's next run reads the review again (its progress was not recorded).
      await ledger.recordReviews([
        reviewReceived('00614141123452', 'gdsn-de', 71, [cic('REJECTED', '00614141123452', 1)]),
      ]);

      expect(stuck?.state).toBe('REJECTED');
      expect(stuck?.pending).toHaveLength(1);
      expect((await entry('00614141123452', 'gdsn-de'))?.pending).toEqual([]);
      expect(changes().map((event) => event.data.state)).toEqual(['AWAITING', 'REJECTED']);
      expect(changes()[1]?.id).toBe(stuck?.history.at(-1)?.eventId);
    });

    it('pages the exception list by state', async () => {
      const { store, ledger, published } = setup(await makeStore());
      await published('p1', ['k1', 'k2', 'k3'], ['gdsn-de']);
      await ledger.recordReviews([
        reviewReceived('k2', 'gdsn-de', 81, undefined, { reviewStatus: 'REVIEW' }),
      ]);

      const first = await listEntries(store, { states: ['AWAITING'], limit: 1 });
      const second = await listEntries(store, {
        states: ['AWAITING'],
        limit: 1,
        after: first.next as string,
      });
      const review = await listEntries(store, { states: ['REVIEW', 'REJECTED'] });

      expect(first.entries.map((stored) => stored.entry.key.primaryKey)).toEqual(['k1']);
      expect(second.entries.map((stored) => stored.entry.key.primaryKey)).toEqual(['k3']);
      expect(second.next).toBeUndefined();
      expect(review.entries.map((stored) => stored.stateKey)).toEqual([confirmationKey('k2', 'gdsn-de')]);
    });

    it('keeps the index exact through a crash between the marker and the entry, and repairs it', async () => {
      // prepare
      const backing = await makeStore();
      const entryKey = confirmationKey('k1', 'gdsn-de');
      const crashing = crashingOnce(backing, entryKey);
      const { ledger, published, clock } = setup(crashing.store);
      await published('p1', ['k1', 'k2'], ['gdsn-de']);
      const review = reviewReceived('k1', 'gdsn-de', 71, [cic('REVIEW', 'k1', 1)]);

      // act: the REVIEW marker is written, then the entry write crashes
      crashing.arm();
      await expect(ledger.recordReviews([review])).rejects.toThrow(/injected/);
      const afterCrash = await listEntries(backing, { states: ['REVIEW'], now: clock.now });
      const awaiting = await listEntries(backing, { states: ['AWAITING'], now: clock.now });
      // the writer's retry (the queue redelivers), then a duplicate and an older answer read late
      await ledger.recordReviews([review]);
      await ledger.recordReviews([
        review,
        reviewReceived('k1', 'gdsn-de', 72, [cic('SYNCHRONISED', 'k1', 0.5)]),
      ]);
      const reviewAfter = await listEntries(backing, { states: ['REVIEW'], now: clock.now });
      const awaitingAfter = await listEntries(backing, { states: ['AWAITING'], now: clock.now });
      const awaitingMarkers = await keysUnder(backing, `${CONFIRMATION_INDEX_PREFIX}state/AWAITING/`);
      const later = new Date(clock.now.getTime() + 2 * HOUR);
      await listEntries(backing, { states: ['AWAITING', 'SYNCHRONISED'], now: later });
      const stateMarkers = await keysUnder(backing, `${CONFIRMATION_INDEX_PREFIX}state/`);

      // assess
      expect(afterCrash.entries).toEqual([]);
      expect(awaiting.entries.map((stored) => stored.stateKey)).toEqual([
        entryKey,
        confirmationKey('k2', 'gdsn-de'),
      ]);
      expect(reviewAfter.entries.map((stored) => stored.stateKey)).toEqual([entryKey]);
      expect(awaitingAfter.entries.map((stored) => stored.stateKey)).toEqual([
        confirmationKey('k2', 'gdsn-de'),
      ]);
      // The writer that moved k1 out of AWAITING retired its marker at once (no writer can be between
      // that marker and the entry any more), not an hour later.
      expect(awaitingMarkers).toEqual([`${CONFIRMATION_INDEX_PREFIX}state/AWAITING/k2/gdsn-de/_.json`]);
      expect(stateMarkers).toEqual([
        `${CONFIRMATION_INDEX_PREFIX}state/AWAITING/k2/gdsn-de/_.json`,
        `${CONFIRMATION_INDEX_PREFIX}state/REVIEW/k1/gdsn-de/_.json`,
      ]);
    });

    it('pages concatenate to exactly the full answer, by state and by GTIN', async () => {
      // prepare
      const { store, ledger, published, clock } = setup(await makeStore());
      const keys = Array.from({ length: 12 }, (_, i) => `0061414112${String(i).padStart(4, '0')}`);
      await published('p1', keys, ['gdsn-de', 'gdsn-nl']);
      await ledger.recordReviews(
        keys
          .filter((_, i) => i % 3 === 0)
          .map((key, i) => reviewReceived(key, 'gdsn-nl', 200 + i, [cic('REVIEW', key, 1)])),
      );
      const all = async (query: { states?: string[]; gtin?: string }) => {
        const pages: string[][] = [];
        let after: string | undefined;
        do {
          const page = await listEntries(store, {
            ...query,
            limit: 3,
            now: clock.now,
            ...(after ? { after } : {}),
          });
          pages.push(page.entries.map((stored) => stored.stateKey));
          after = page.next;
        } while (after !== undefined);
        return pages.flat();
      };

      // act
      const exceptions = await all({ states: ['REVIEW', 'AWAITING'] });
      const byGtin = await all({ gtin: keys[3] as string });
      const everything = (await listEntries(store, { limit: 1000 })).entries;

      // assess
      const stateOf = new Map(everything.map((stored) => [stored.stateKey, stored.entry.state]));
      expect(exceptions).toHaveLength(24);
      expect(new Set(exceptions).size).toBe(24);
      expect(exceptions.filter((key) => stateOf.get(key) === 'REVIEW')).toHaveLength(4);
      expect(exceptions.slice(0, 20).every((key) => stateOf.get(key) === 'AWAITING')).toBe(true);
      expect(byGtin).toEqual([
        confirmationKey(keys[3] as string, 'gdsn-de'),
        confirmationKey(keys[3] as string, 'gdsn-nl'),
      ]);
    });

    it('indexes a ledger written before the index with the sweep', async () => {
      // prepare
      const { store, ledger, published, clock } = setup(await makeStore());
      await published('p1', ['k1', 'k2'], ['gdsn-de']);
      await ledger.recordReviews([
        reviewReceived('k2', 'gdsn-de', 90, undefined, { reviewStatus: 'APPROVED' }),
      ]);
      for (const key of await keysUnder(store, CONFIRMATION_INDEX_PREFIX)) await store.delete(key);
      const before = await listEntries(store, { states: ['APPROVED'], now: clock.now });

      // act
      const report = await repairConfirmationIndex(store, { now: clock.now });
      const approved = await listEntries(store, { states: ['APPROVED'], now: clock.now });

      // assess
      expect(before.entries).toEqual([]);
      expect(report.entries).toBe(2);
      expect(report.markersWritten).toBe(4);
      expect(approved.entries.map((entry) => entry.stateKey)).toEqual([confirmationKey('k2', 'gdsn-de')]);
      expect(await keysUnder(store, `${CONFIRMATION_INDEX_PREFIX}state/`)).toEqual([
        `${CONFIRMATION_INDEX_PREFIX}state/APPROVED/k2/gdsn-de/_.json`,
        `${CONFIRMATION_INDEX_PREFIX}state/AWAITING/k1/gdsn-de/_.json`,
      ]);
    });

    it('refuses an unknown state, naming the valid ones, and knows the review statuses it recorded', async () => {
      // prepare
      const { store, ledger, published } = setup(await makeStore());
      await published('p1', ['k1'], ['gdsn-de']);
      await ledger.recordReviews([
        reviewReceived('k1', 'gdsn-de', 91, undefined, { reviewStatus: 'APPROVED' }),
      ]);

      // act
      const bogus = await resolveStates(store, ['REVIEW', 'BOGUS']).catch((error: unknown) => error);
      const resolved = await resolveStates(store, ['review', 'Overdue', 'approved', 'refused_by_data_pool']);

      // assess
      expect(bogus).toBeInstanceOf(UnknownConfirmationStateError);
      expect((bogus as Error).message).toMatch(
        /state BOGUS is not a state of the confirmation ledger; use one or more of ACCEPTED, APPROVED, AWAITING, OVERDUE, RECEIVED, REFUSED_BY_DATA_POOL, REJECTED, REVIEW, SYNCHRONISED/,
      );
      // a refusal is the ledger's own state: asking for it is valid before the first one is recorded
      expect(resolved).toEqual(['REVIEW', 'OVERDUE', 'APPROVED', 'REFUSED_BY_DATA_POOL']);
    });

    if (options.concurrent !== false) {
      it('loses no transition when several workers update one entry at once', async () => {
        const store = await makeStore();
        const workers = Array.from({ length: 6 }, () => setup(store));
        const [first] = workers;
        await first?.published('p1', ['00614141123452'], ['gdsn-de']);
        const states = ['RECEIVED', 'REVIEW', 'RECEIVED', 'REVIEW', 'REJECTED', 'SYNCHRONISED'];

        await Promise.all(
          workers.map((worker, index) =>
            worker.ledger.recordReviews([
              reviewReceived('00614141123452', 'gdsn-de', 100 + index, [
                cic(states[index] as string, '00614141123452', index + 1),
              ]),
            ]),
          ),
        );

        const stored = await first?.entry('00614141123452', 'gdsn-de');
        expect(stored?.facts).toHaveLength(7);
        expect(stored?.state).toBe('SYNCHRONISED');
        expect(stored?.pending).toEqual([]);
        // Each recorded transition was published, each once per id.
        const published = workers.flatMap((worker) => worker.changes());
        const ids = new Set(published.map((event) => event.id));
        expect([...ids].sort()).toEqual(stored?.history.map((transition) => transition.eventId).sort());
      });
    }
  });
}

/** A publication request: these keys to these destinations. */
type PublishedRequest = { primaryKeys: string[]; destinations: Destination[] };

/** A memory store holding publication `p-1`, published at `publishedAt` (fields of `record` on top). */
export async function storeWithPublished(
  request: PublishedRequest,
  publishedAt: string,
  record: Record<string, unknown> = {},
): Promise<MemoryStateStore> {
  const store = new MemoryStateStore();
  await store.create(publicationKey('p-1'), {
    publicationId: 'p-1',
    status: 'published',
    request,
    bodyHash: 'hash',
    requestedBy: 'local',
    createdAt: publishedAt,
    updatedAt: publishedAt,
    publishedAt,
    ...record,
    attempts: 1,
  });
  return store;
}

/**
 * A memory store holding publication p-1 as published at `publishedAt`, with the ledger's entries for
 * it and these reviews recorded (the clock at 2026-11-20T12:00Z): what the API and `pds bridge`
 * read back. `record` adds fields to the stored publication record.
 */
export async function publishedWithConfirmations(
  request: PublishedRequest,
  reviews: ReadonlyArray<CloudEvent<'pds.supplier-review.received'>>,
  { publishedAt, record = {} }: { publishedAt: string; record?: Record<string, unknown> },
): Promise<MemoryStateStore> {
  const store = await storeWithPublished(request, publishedAt, record);
  const ledger = new ConfirmationLedger({
    store,
    sink: new RecordingSink(),
    deadlineMs: 48 * HOUR,
    now: () => new Date('2026-11-20T12:00:00.000Z'),
  });
  await ledger.recordPublication({ publicationId: 'p-1', publishedAt, ...request });
  await ledger.recordReviews(reviews);
  return store;
}
