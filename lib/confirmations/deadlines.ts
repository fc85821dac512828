/**
 * The deadline check: entries nobody answered within CONFIRMATION_DEADLINE_HOURS turn OVERDUE. The
 * scheduled review poll runs it after each poll (lib/polling/handlers.ts).
 *
 * It reads only what is due: each publication leaves one mark under `confirmation-deadlines/<deadline>/`
 * (./keys.ts) naming its items and channels, listed in deadline order, so a run lists up to
 * the first mark not yet due and reads the entries of the due ones. A mark is deleted once its
 * entries were brought up to date; a run that fails before that leaves it for the next run. Kept
 * apart from ./ledger.ts so that the functions that only publish or answer never carry a delete.
 */

import { mapAll } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import { ConfirmationDeadlineError } from './errors.ts';
import { CONFIRMATION_DEADLINES_PREFIX, deadlineOfConfirmationDeadlineKey } from './keys.ts';
import type { ConfirmationLedger, DeadlineMark } from './ledger.ts';
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
