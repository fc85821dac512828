/**
 * Writes one ledger entry ({@link writeEntry}; ./ledger.ts decides which, and with what facts): a conditional
 * read–modify–write whose function only computes, the index markers the entry gains written before it
 * and the ones it lost retired after (./entry-index.ts), then the entry's outbox published and
 * cleared. A crash between the write and the publication publishes the same events again later, with
 * the same ids.
 */
import type { Log } from '../core/index.ts';
import type { ConfirmationEntryKey, EventSink } from '../events/index.ts';
import type { StateStore } from '../state/index.ts';
import { applyFacts, type ConfirmationEntry, type Fact, type PendingChange } from './entry.ts';
import type { ConfirmationIndex } from './entry-index.ts';
import { confirmationChangedEvent, confirmationEventId } from './events.ts';
import { emptyLedgerReport, type LedgerReport } from './ports.ts';

/** What {@link writeEntry} writes with: the ledger builds it once. */
export interface EntryWriterDependencies {
  store: StateStore;
  sink: EventSink;
  index: ConfirmationIndex;
  /** CONFIRMATION_DEADLINE_HOURS in milliseconds. */
  deadlineMs: number;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string | undefined;
  now: () => Date;
  log: Log;
}

/**
 * Applies facts to one entry with a conditional read–modify–write, then publishes the outbox.
 * `create` is the key of an entry a missing one is created with; without it a missing entry stays
 * missing. `accept` may refuse the entry as read (the fact belongs elsewhere).
 */
export async function writeEntry(
  deps: EntryWriterDependencies,
  stateKey: string,
  create: ConfirmationEntryKey | undefined,
  facts: readonly Fact[],
  accept?: (current: ConfirmationEntry | undefined) => boolean,
): Promise<LedgerReport> {
  const report = emptyLedgerReport();
  const now = deps.now();
  const before: { state?: string; history: number; entry?: ConfirmationEntry } = { history: 0 };
  const result = await deps.store.mutate<ConfirmationEntry>(
    stateKey,
    async (current) => {
      before.state = current?.state;
      before.history = current?.history.length ?? 0;
      before.entry = current;
      if (accept && !accept(current)) return undefined;
      if (current === undefined && create === undefined) return undefined;
      const next = applyFacts(current, facts, {
        key: current?.key ?? (create as ConfirmationEntryKey),
        deadlineMs: deps.deadlineMs,
        now,
        eventIdOf: (data, factId) => confirmationEventId(stateKey, factId, data),
      });
      // The index first: a crash after this leaves a stale marker, never a missing one.
      if (next !== undefined) await deps.index.beforeWrite(stateKey, current, next, now);
      return next;
    },
    { maxAttempts: 20 },
  );
  const entry = result.value;
  if (result.written && entry) await retireMarkers(deps, stateKey, before.entry, entry, now);
  if (result.written && entry) {
    report.entriesWritten++;
    if (entry.state !== before.state) {
      report.transitions[entry.state] = 1;
      deps.log.info('Confirmation entry changed state', {
        stateKey,
        previousState: before.state,
        state: entry.state,
      });
    }
  }
  if (entry && entry.pending.length > 0) report.eventsPublished += await flush(deps, stateKey, entry.pending);
  return report;
}

/** Retires the markers the entry lost; a failure only leaves stale markers (readers skip them). */
async function retireMarkers(
  deps: EntryWriterDependencies,
  stateKey: string,
  previous: ConfirmationEntry | undefined,
  written: ConfirmationEntry,
  now: Date,
): Promise<void> {
  try {
    await deps.index.afterWrite(stateKey, previous, written, now);
  } catch (error) {
    deps.log.warn('Confirmation index markers left stale; readers and the next sweep retire them', {
      stateKey,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/** Publishes the outbox's events, then removes them from the entry (if nobody did meanwhile). */
async function flush(
  deps: EntryWriterDependencies,
  stateKey: string,
  pending: readonly PendingChange[],
): Promise<number> {
  const time = deps.now();
  const source = deps.source;
  await deps.sink.publish(
    pending.map((change) => confirmationChangedEvent(stateKey, change.factId, change.data, { source, time })),
  );
  const sent = new Set(pending.map(pendingId));
  await deps.store.mutate<ConfirmationEntry>(
    stateKey,
    (current) => {
      const kept = current?.pending.filter((change) => !sent.has(pendingId(change)));
      return current && kept && kept.length < current.pending.length
        ? { ...current, pending: kept }
        : undefined;
    },
    { maxAttempts: 20 },
  );
  return pending.length;
}

function pendingId(change: PendingChange): string {
  return JSON.stringify([change.factId, change.data.previousState ?? '', change.data.state]);
}
