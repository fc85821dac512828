/**
 * What the exception list costs in requests (docs/confirmations.md, "Index and retention"): a page
 * costs its page, not the last hour's transitions, and a stale marker costs no read beyond its entry.
 */
import { describe, expect, it } from 'vitest';
import { checkConfirmationDeadlines } from '../../packages/bridge/src/confirmations/deadlines.ts';
import { MARKER_GRACE_MS, writeMarkers } from '../../packages/bridge/src/confirmations/entry-index.ts';
import {
  CONFIRMATION_INDEX_PREFIX,
  confirmationKey,
  confirmationMarkerKey,
  confirmationStatePrefix,
} from '../../packages/bridge/src/confirmations/keys.ts';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { cic, reviewReceived } from '../helpers/confirmation-ledger-suite.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { TrafficCountingStore } from '../helpers/state-traffic.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const KEYS = Array.from({ length: 200 }, (_, i) => `0061414199${String(i).padStart(4, '0')}`);

/** 200 entries turned OVERDUE by the deadline check, then 150 of them (every 4th kept) answered within the hour. */
async function ledgerAfterAnsweredSweep() {
  const clock = { now: new Date(T0) };
  const store = new TrafficCountingStore(new MemoryStateStore({ now: () => clock.now }));
  const ledger = new ConfirmationLedger({
    store,
    sink: new RecordingSink(),
    deadlineMs: 48 * HOUR,
    now: () => clock.now,
  });
  await ledger.recordPublication({
    publicationId: 'p-1',
    publishedAt: clock.now.toISOString(),
    primaryKeys: KEYS,
    destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
  });
  clock.now = new Date(T0 + 48 * HOUR);
  await checkConfirmationDeadlines(store, ledger, clock.now);
  clock.now = new Date(T0 + 48 * HOUR + 10 * 60_000);
  const answered = KEYS.filter((_, i) => i % 4 !== 0);
  await ledger.recordReviews(
    answered.map((key, i) => reviewReceived(key, 'gdsn-de', 1000 + i, [cic('SYNCHRONISED', key, 48.1)])),
  );
  return { store, clock };
}

/** Requests by kind since `reset`. */
function since(store: TrafficCountingStore, before: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(store.requests).map(([kind, count]) => [kind, count - (before[kind] ?? 0)]),
  );
}

describe('the exception list’s cost', () => {
  it('is its page, not the last hour’s transitions: answered entries leave no OVERDUE marker to read', async () => {
    const { store, clock } = await ledgerAfterAnsweredSweep();
    const before = { ...store.requests };

    const page = await listEntries(store, { states: ['OVERDUE'], limit: 50, now: clock.now });

    expect(page.entries).toHaveLength(50);
    expect(page.entries.every((stored) => stored.entry.state === 'OVERDUE')).toBe(true);
    // One listing page and one read per entry shown.
    expect(since(store, before)).toEqual({ get: 50, create: 0, update: 0, delete: 0, list: 1 });
  });

  it('reads nothing of a stale marker but its entry, and deletes it by the listing’s age and ETag', async () => {
    const { store, clock } = await ledgerAfterAnsweredSweep();
    // A writer that crashed between its marker and its entry: an OVERDUE marker for an answered entry.
    const stateKey = confirmationKey(KEYS[1] as string, 'gdsn-de');
    const marker = confirmationMarkerKey(confirmationStatePrefix('OVERDUE'), stateKey);
    await writeMarkers(store, stateKey, [marker], clock.now, '"an entry version never written"');
    const query = { states: ['OVERDUE'], limit: 2 };

    const young = { ...store.requests };
    const whileYoung = await listEntries(store, { ...query, now: clock.now });
    const youngCost = since(store, young);
    const old = { ...store.requests };
    const later = new Date(clock.now.getTime() + MARKER_GRACE_MS);
    const onceOld = await listEntries(store, { ...query, now: later });
    const oldCost = since(store, old);
    const left: string[] = [];
    for await (const key of store.list(`${CONFIRMATION_INDEX_PREFIX}state/OVERDUE/`)) left.push(key);

    // The page reads KEYS[0], the stale marker's entry (KEYS[1], answered) and KEYS[4]: three reads,
    // none of the marker itself; once the listing shows it older than the grace, one delete by its ETag.
    const shown = [KEYS[0], KEYS[4]];
    expect(whileYoung.entries.map((stored) => stored.entry.key.primaryKey)).toEqual(shown);
    expect(onceOld.entries.map((stored) => stored.entry.key.primaryKey)).toEqual(shown);
    expect(youngCost).toEqual({ get: 3, create: 0, update: 0, delete: 0, list: 1 });
    expect(oldCost).toEqual({ get: 3, create: 0, update: 0, delete: 1, list: 1 });
    expect(left).not.toContain(marker);
    expect(left).toHaveLength(50);
  });

  it('keeps a marker another writer wrote on the version just written: it moved the entry back into that state', async () => {
    // prepare: k is REVIEW; B moves it to SYNCHRONISED while A, reading B's version, moves it back to
    // REVIEW: A writes its REVIEW marker and its entry just before B retires the REVIEW marker it lost.
    const clock = { now: new Date(T0 + HOUR) };
    const key = KEYS[0] as string;
    const reviewMarker = confirmationMarkerKey(
      confirmationStatePrefix('REVIEW'),
      confirmationKey(key, 'gdsn-de'),
    );
    let interleave: (() => Promise<unknown>) | undefined;
    const store = new MemoryStateStore({
      now: () => clock.now,
      beforeOperation: async (operation) => {
        if (interleave && operation.kind === 'get' && operation.key === reviewMarker) {
          const run = interleave;
          interleave = undefined;
          await run();
        }
      },
    });
    const ledger = () =>
      new ConfirmationLedger({
        store,
        sink: new RecordingSink(),
        deadlineMs: 48 * HOUR,
        now: () => clock.now,
      });
    const [a, b] = [ledger(), ledger()];
    await b.recordPublication({
      publicationId: 'p-1',
      publishedAt: new Date(T0).toISOString(),
      primaryKeys: [key],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
    });
    await b.recordReviews([reviewReceived(key, 'gdsn-de', 1, [cic('REVIEW', key, 0.5)])]);
    interleave = () => a.recordReviews([reviewReceived(key, 'gdsn-de', 3, [cic('REVIEW', key, 0.9)])]);

    // act
    await b.recordReviews([reviewReceived(key, 'gdsn-de', 2, [cic('SYNCHRONISED', key, 0.7)])]);

    // assess
    const review = await listEntries(store, { states: ['REVIEW'], now: clock.now });
    const synchronised = await listEntries(store, { states: ['SYNCHRONISED'], now: clock.now });
    expect(interleave).toBeUndefined();
    expect(review.entries.map((stored) => stored.entry.key.primaryKey)).toEqual([key]);
    expect(synchronised.entries).toEqual([]);
  });
});
