/**
 * The deadline check: entries nobody answered within CONFIRMATION_DEADLINE_HOURS turn OVERDUE. The
 * scheduled review poll runs it after each poll (packages/bridge/src/polling/handlers.ts).
 *
 * It reads only what is due: each publication leaves one mark under `confirmation-deadlines/<deadline>/`
 * (./keys.ts) naming its items and channels, listed in deadline order, so a run lists up to
 * the first mark not yet due and reads the entries of the due ones. A mark is deleted once its
 * entries were brought up to date; a run that fails before that leaves it for the next run. Kept
 * apart from ./ledger.ts so that the functions that only publish or answer never carry a delete.
 */

import { mapAll } from '../core/index.ts';
import { decodeKeySegment, deleteIfUnchanged, type StateStore } from '../state/index.ts';
import type { ConfirmationEntry } from './entry.ts';
import { markersOf, retireMarker } from './entry-index.ts';
import { ConfirmationDeadlineError } from './errors.ts';
import type { DeadlineMark } from './keys.ts';
import {
  CONFIRMATION_DEADLINES_PREFIX,
  CONFIRMATION_EXPIRY_PREFIX,
  deadlineOfConfirmationDeadlineKey,
  entryKeyOfMarker,
} from './keys.ts';
import type { ConfirmationLedger } from './ledger.ts';
import { addLedgerReport, emptyLedgerReport, type LedgerReport } from './ports.ts';

/** What a deadline check did: the publications whose marks were due and the transitions (OVERDUE) they caused. */
export type DeadlineReport = LedgerReport & { due: number };

/**
 * @example
 * const report = await checkConfirmationDeadlines(store, ledger, new Date());
 * report.transitions.OVERDUE; // entries that turned OVERDUE in this run
 */
export async function checkConfirmationDeadlines(
  store: StateStore,
  ledger: Pick<ConfirmationLedger, 'refresh'>,
  now: Date,
  concurrency = 8,
): Promise<DeadlineReport> {
  const due: string[] = [];
  for await (const markKey of store.list(CONFIRMATION_DEADLINES_PREFIX)) {
    const deadline = deadlineOfConfirmationDeadlineKey(markKey);
    if (deadline === undefined || Date.parse(deadline) > now.getTime()) break;
    due.push(markKey);
  }
  const reports: LedgerReport[] = [];
  const failures: unknown[] = [];
  for (const markKey of due) {
    // One publication's failure leaves its mark for the next run and does not hold the others up.
    try {
      const mark = await store.get<DeadlineMark>(markKey);
      const pairs = mark?.value.pairs ?? [];
      reports.push(
        ...(await mapAll(pairs, concurrency, ({ primaryKey, channelId }) =>
          ledger.refresh(primaryKey, channelId),
        )),
      );
      await store.delete(markKey);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new ConfirmationDeadlineError(failures.length, due.length, failures[0]);
  return { ...reports.reduce(addLedgerReport, emptyLedgerReport()), due: due.length };
}

/** What an expiry sweep did. */
export interface ExpiryReport {
  /** Settled entries deleted. */
  expired: number;
  /** Expiry markers whose entry had moved on (answered again, republished): dropped, entry kept. */
  dropped: number;
}

/**
 * Deletes the settled entries (SYNCHRONISED, ACCEPTED) whose retention ended by `now`, with their
 * index markers. Reads only what is due: `confirmation-expiry/<day>/` lists in day order, so a run
 * stops at the first day still to come. An entry that is no longer settled, or settled again later,
 * no longer has that expiry marker ({@link markersOf}) and is kept; unresolved entries have none.
 *
 * @example
 * const { expired } = await expireConfirmations(store, new Date(), retentionMs(90));
 */
export async function expireConfirmations(
  store: StateStore,
  now: Date,
  retentionMs: number,
  concurrency = 8,
): Promise<ExpiryReport> {
  const report: ExpiryReport = { expired: 0, dropped: 0 };
  const today = now.toISOString().slice(0, 10);
  const due: string[] = [];
  for await (const markerKey of store.list(CONFIRMATION_EXPIRY_PREFIX)) {
    const day = decodeKeySegment(markerKey.slice(CONFIRMATION_EXPIRY_PREFIX.length).split('/')[0] ?? '');
    if (day === undefined || day >= today) break;
    due.push(markerKey);
  }
  await mapAll(due, concurrency, async (markerKey) => {
    const prefix = `${markerKey.split('/').slice(0, 2).join('/')}/`;
    const stateKey = entryKeyOfMarker(prefix, markerKey);
    const stored = await store.get<ConfirmationEntry>(stateKey);
    if (stored && markersOf(stateKey, stored.value, retentionMs).includes(markerKey)) {
      // By its ETag: an entry a writer changed meanwhile stays (and gets its markers from that write).
      if (!(await deleteIfUnchanged(store, stateKey, stored.etag))) return;
      // Its markers, and those a past state may have left stale (young when that state was left).
      const states = new Set(stored.value.history.map((transition) => transition.state));
      const keys = new Set(markersOf(stateKey, stored.value));
      for (const state of states)
        for (const key of markersOf(stateKey, { ...stored.value, state })) keys.add(key);
      await mapAll([...keys], 4, (key) => retireMarker(store, key, now));
      report.expired++;
    } else report.dropped++;
    await store.delete(markerKey);
  });
  return report;
}
