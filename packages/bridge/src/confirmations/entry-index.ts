/**
 * The ledger's index: markers that find entries by state and by GTIN without reading the history, and
 * the expiry markers of settled entries (docs/confirmations.md, "Index and retention").
 *
 * An entry at `confirmations/<rest>` has a marker at `confirmation-index/state/<state>/<rest>`, one
 * at `confirmation-index/gtin/<gtin>/<rest>` per GTIN it answers to (its GTIN and its primary key as a
 * GTIN-14), and, once settled (SYNCHRONISED, ACCEPTED) with a retention set, one at
 * `confirmation-expiry/<day>/<rest>`. Which markers an entry has is a function of the entry alone
 * ({@link markersOf}), so the index is generic over state names: a new state or review status
 * needs no code here.
 *
 * Order of writes (./ledger.ts): the markers an entry gains are written *before* the entry, the
 * markers it lost are retired *after*. A crash in between leaves a stale marker, never a missing one.
 * Readers check every marker against its entry (the answer is exact) and retire a stale one; a sweep
 * ({@link repairConfirmationIndex}, `pds bridge reindex-confirmations`) does the same for the whole
 * ledger and indexes a ledger written before the index existed.
 *
 * Retiring races with a writer that is about to move an entry back into the marker's state (it wrote
 * the marker, not yet the entry). A marker is deleted only by its ETag (a marker a writer refreshed
 * meanwhile stays), and only when no writer can still be between it and the entry:
 *
 * - by the writer that moved the entry out of the marker's state, at once, when the marker names the
 *   entry version its writer read (`basedOn`) and that is not the version just written: that
 *   writer's conditional write can no longer succeed, and its retry writes the marker again. (The
 *   version a writer read is identified by its ETag; an entry's content, with its `updatedAt`, never
 *   repeats, so neither does its ETag.) So a transition leaves no stale marker behind in the common
 *   case, and the exception list does not pay for the last hour's transitions;
 * - otherwise (a crash between the writes, a marker written before `basedOn` existed), once it is
 *   older than {@link MARKER_GRACE_MS} (longer than any Lambda runs). A reader judges that from the
 *   listing's LastModified and ETag alone, so a stale marker costs it no read beyond its entry.
 */
import { mapAll } from '../core/index.ts';
import { compareKeys, deleteIfUnchanged, type StateStore } from '../state/index.ts';
import { type ConfirmationEntry, REFUSED_BY_DATA_POOL } from './entry.ts';
import { gtin14 } from './facts.ts';
import {
  CONFIRMATION_INDEX_PREFIX,
  CONFIRMATION_STATES_KEY,
  CONFIRMATIONS_PREFIX,
  confirmationExpiryPrefix,
  confirmationGtinPrefix,
  confirmationMarkerKey,
  confirmationStatePrefix,
  entryKeyOfMarker,
} from './keys.ts';

/** The states the ledger itself gives; review statuses add to them as they are recorded. */
export const LEDGER_STATES: readonly string[] = Object.freeze([
  'AWAITING',
  'OVERDUE',
  'RECEIVED',
  'REVIEW',
  'SYNCHRONISED',
  'REJECTED',
  'ACCEPTED',
  REFUSED_BY_DATA_POOL,
]);

/** Finished states: entries in them expire after the retention; every other state stays. */
export const SETTLED_STATES: readonly string[] = Object.freeze(['SYNCHRONISED', 'ACCEPTED']);

/** A marker younger than this is never retired: a writer may be between the marker and the entry. */
export const MARKER_GRACE_MS = 60 * 60_000;

/** What a marker stores. */
export interface IndexMarker {
  /** The entry's state key. */
  entry: string;
  /** When the marker was last written (ISO). */
  writtenAt: string;
  /**
   * The ETag of the entry version its writer read before writing the marker (`null`: it was creating
   * the entry). Absent in markers written before it existed.
   */
  basedOn?: string | null;
}

/** What `confirmation-index/states.json` stores. */
export interface RecordedStates {
  states: string[];
}

/** When an entry entered its current state: its last transition's recording time. */
function enteredAt(entry: ConfirmationEntry): string {
  return entry.history.at(-1)?.recordedAt ?? entry.updatedAt;
}

/** The UTC day (YYYY-MM-DD) a settled entry expires, or undefined when it never does. */
export function expiryDayOf(entry: ConfirmationEntry, retentionMs: number | undefined): string | undefined {
  if (retentionMs === undefined || !SETTLED_STATES.includes(entry.state)) return undefined;
  const at = Date.parse(enteredAt(entry));
  if (Number.isNaN(at)) return undefined;
  return new Date(at + retentionMs).toISOString().slice(0, 10);
}

/** The GTINs an entry answers to in `?gtin=` (its own and its primary key read as a GTIN-14). */
export function gtinsOf(entry: ConfirmationEntry): string[] {
  return [...new Set([gtin14(entry.key.primaryKey), ...(entry.key.gtin ? [gtin14(entry.key.gtin)] : [])])];
}

/**
 * Every marker key the entry at `stateKey` has: by state, by GTIN, and its expiry marker when
 * settled and `retentionMs` is set.
 *
 * @example
 * ```ts
 * markersOf('confirmations/K/C/_.json', entry); // ['confirmation-index/state/REVIEW/K/C/_.json', 'confirmation-index/gtin/K/K/C/_.json']
 * ```
 */
export function markersOf(stateKey: string, entry: ConfirmationEntry, retentionMs?: number): string[] {
  const keys = [confirmationMarkerKey(confirmationStatePrefix(entry.state), stateKey)];
  for (const gtin of gtinsOf(entry)) keys.push(confirmationMarkerKey(confirmationGtinPrefix(gtin), stateKey));
  const day = expiryDayOf(entry, retentionMs);
  if (day !== undefined) keys.push(confirmationMarkerKey(confirmationExpiryPrefix(day), stateKey));
  return keys;
}

/**
 * Writes (or refreshes) markers pointing to `stateKey`, about to write over the entry version
 * `basedOn` (its ETag; `null` when creating the entry).
 */
export async function writeMarkers(
  store: StateStore,
  stateKey: string,
  markerKeys: readonly string[],
  now: Date,
  basedOn: string | null,
): Promise<void> {
  const writtenAt = now.toISOString();
  await mapAll(markerKeys, 4, (markerKey) =>
    store.mutate<IndexMarker>(markerKey, () => ({ entry: stateKey, writtenAt, basedOn }), {
      maxAttempts: 20,
    }),
  );
}

/**
 * Deletes a marker that no longer matches its entry, unless it is younger than {@link MARKER_GRACE_MS}
 * or was rewritten since it was read. True when it was deleted.
 */
export async function retireMarker(store: StateStore, markerKey: string, now: Date): Promise<boolean> {
  const marker = await store.get<IndexMarker>(markerKey);
  if (!marker) return false;
  const writtenAt = Date.parse(marker.value.writtenAt);
  if (!(now.getTime() - writtenAt >= MARKER_GRACE_MS)) return false;
  return deleteIfUnchanged(store, markerKey, marker.etag);
}

/**
 * Retires a listed marker its entry no longer matches, judged from the listing alone (no read): only
 * when the listing says it is older than {@link MARKER_GRACE_MS}, and only that version (its ETag).
 * A store that gives no LastModified leaves it to the writers and sweeps. True when it was deleted.
 */
export async function retireListedMarker(
  store: StateStore,
  listed: { key: string; etag: string; lastModified?: Date | undefined },
  now: Date,
): Promise<boolean> {
  if (listed.lastModified === undefined) return false;
  if (!(now.getTime() - listed.lastModified.getTime() >= MARKER_GRACE_MS)) return false;
  return deleteIfUnchanged(store, listed.key, listed.etag);
}

/**
 * Retires a marker the entry lost in the write that produced version `writtenEtag`: at once when the
 * marker's writer based it on another version (its write cannot succeed any more), else by the grace
 * rule of {@link retireMarker}. True when it was deleted.
 */
async function retireLostMarker(
  store: StateStore,
  markerKey: string,
  writtenEtag: string | undefined,
  now: Date,
): Promise<boolean> {
  const marker = await store.get<IndexMarker>(markerKey);
  if (!marker) return false;
  const { basedOn, writtenAt } = marker.value;
  const superseded = writtenEtag !== undefined && basedOn !== undefined && basedOn !== writtenEtag;
  if (!superseded && !(now.getTime() - Date.parse(writtenAt) >= MARKER_GRACE_MS)) return false;
  return deleteIfUnchanged(store, markerKey, marker.etag);
}

/** Every state the ledger knows: its own and every one it has recorded, in byte order. */
export async function knownStates(store: StateStore): Promise<string[]> {
  const recorded = (await store.get<RecordedStates>(CONFIRMATION_STATES_KEY))?.value.states ?? [];
  return [...new Set([...LEDGER_STATES, ...recorded])].sort(compareKeys);
}

/** Adds states to `confirmation-index/states.json` (written only when one is new). */
export async function recordStates(store: StateStore, states: readonly string[]): Promise<void> {
  await store.mutate<RecordedStates>(
    CONFIRMATION_STATES_KEY,
    (current) => {
      const known = new Set(current?.states ?? []);
      const added = states.filter((state) => !known.has(state));
      return added.length === 0 ? undefined : { states: [...known, ...added].sort(compareKeys) };
    },
    { maxAttempts: 20 },
  );
}

/** The index kept in the write path of the ledger (./ledger.ts): one per ledger instance. */
export class ConfirmationIndex {
  readonly #store: StateStore;
  readonly #retentionMs: number | undefined;
  /** States known to be in states.json already (saves a read per transition). */
  readonly #recorded = new Set<string>(LEDGER_STATES);

  constructor(store: StateStore, retentionMs?: number) {
    this.#store = store;
    this.#retentionMs = retentionMs;
  }

  get retentionMs(): number | undefined {
    return this.#retentionMs;
  }

  /**
   * Before writing `next` over `current` (read with ETag `currentEtag`, `undefined` when creating):
   * writes the markers `next` has and `current` had not.
   */
  async beforeWrite(
    stateKey: string,
    current: ConfirmationEntry | undefined,
    next: ConfirmationEntry,
    now: Date,
    currentEtag: string | undefined,
  ): Promise<void> {
    const had = new Set(current ? markersOf(stateKey, current, this.#retentionMs) : []);
    const gained = markersOf(stateKey, next, this.#retentionMs).filter((key) => !had.has(key));
    if (gained.length === 0) return;
    if (!this.#recorded.has(next.state)) {
      await recordStates(this.#store, [next.state]);
      this.#recorded.add(next.state);
    }
    await writeMarkers(this.#store, stateKey, gained, now, currentEtag ?? null);
  }

  /**
   * After `written` (now version `writtenEtag`) replaced `previous`: retires the markers `previous` had
   * and `written` has not.
   */
  async afterWrite(
    stateKey: string,
    previous: ConfirmationEntry | undefined,
    written: ConfirmationEntry,
    now: Date,
    writtenEtag: string | undefined,
  ): Promise<void> {
    if (!previous) return;
    const kept = new Set(markersOf(stateKey, written, this.#retentionMs));
    const lost = markersOf(stateKey, previous, this.#retentionMs).filter((key) => !kept.has(key));
    await mapAll(lost, 4, (key) => retireLostMarker(this.#store, key, writtenEtag, now));
  }
}

/** What a sweep of the index did. */
export interface IndexRepairReport {
  entries: number;
  /** Markers written because they were missing. */
  markersWritten: number;
  /** Stale markers deleted. */
  markersRetired: number;
  /** Stale markers left because they are younger than the grace period. */
  markersYoung: number;
}

/**
 * Brings the index in line with the ledger: every entry gets the markers it lacks, every marker whose
 * entry disagrees is retired (when older than the grace period). Safe while the ledger is written to;
 * run once to index a ledger written before the index existed (`pds bridge reindex-confirmations`).
 *
 * @example
 * ```ts
 * const report = await repairConfirmationIndex(store, { now: new Date() });
 * ```
 */
export async function repairConfirmationIndex(
  store: StateStore,
  options: { now?: Date; retentionMs?: number; concurrency?: number } = {},
): Promise<IndexRepairReport> {
  const now = options.now ?? new Date();
  const concurrency = options.concurrency ?? 8;
  const report: IndexRepairReport = { entries: 0, markersWritten: 0, markersRetired: 0, markersYoung: 0 };
  const states = new Set<string>();
  let batch: string[] = [];
  const indexBatch = async () => {
    await mapAll(batch, concurrency, async (stateKey) => {
      const stored = await store.get<ConfirmationEntry>(stateKey);
      if (!stored) return;
      report.entries++;
      states.add(stored.value.state);
      for (const markerKey of markersOf(stateKey, stored.value, options.retentionMs)) {
        if (await store.get(markerKey)) continue;
        await writeMarkers(store, stateKey, [markerKey], now, stored.etag);
        report.markersWritten++;
      }
    });
    batch = [];
  };
  for await (const stateKey of store.list(CONFIRMATIONS_PREFIX)) {
    batch.push(stateKey);
    if (batch.length >= 256) await indexBatch();
  }
  await indexBatch();
  if (states.size > 0) await recordStates(store, [...states]);
  for (const kind of ['state/', 'gtin/']) {
    batch = [];
    const retireBatch = async () => {
      await mapAll(batch, concurrency, async (markerKey) => {
        const prefix = `${markerKey.split('/').slice(0, 3).join('/')}/`;
        const stateKey = entryKeyOfMarker(prefix, markerKey);
        const stored = await store.get<ConfirmationEntry>(stateKey);
        if (stored && markersOf(stateKey, stored.value).includes(markerKey)) return;
        if (await retireMarker(store, markerKey, now)) report.markersRetired++;
        else report.markersYoung++;
      });
      batch = [];
    };
    for await (const markerKey of store.list(`${CONFIRMATION_INDEX_PREFIX}${kind}`)) {
      batch.push(markerKey);
      if (batch.length >= 256) await retireBatch();
    }
    await retireBatch();
  }
  return report;
}
