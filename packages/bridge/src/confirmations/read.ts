/**
 * The ledger read back: the entries of one publication, and pages of entries by item, GTIN or state
 * (the exception list). Only reads; the API and the CLI use it.
 */
import { mapAll } from '../core/index.ts';
import type { Destination } from '../pds/index.ts';
import { compareKeys, type ListedState, type StateStore } from '../state/index.ts';
import type { ConfirmationEntry } from './entry.ts';
import { gtinsOf, knownStates, LEDGER_STATES, markersOf, retireListedMarker } from './entry-index.ts';
import { UnknownConfirmationStateError } from './errors.ts';
import { gtin14 } from './facts.ts';
import {
  CONFIRMATIONS_PREFIX,
  confirmationChannelPrefix,
  confirmationGtinPrefix,
  confirmationItemPrefix,
  confirmationStatePrefix,
  entryKeyOfMarker,
} from './keys.ts';

/** Entries per page, at most. */
export const MAX_PAGE = 1000;

/** An entry and where it is stored (the paging cursor). */
export interface StoredEntry {
  stateKey: string;
  entry: ConfirmationEntry;
}

export interface ListOptions {
  primaryKey?: string;
  gtin?: string;
  /** Only entries in one of these states. */
  states?: readonly string[];
  /** Start after this position (the `next` of the previous page: an entry key or an index marker key). */
  after?: string;
  limit?: number;
  /** The time stale markers are judged at (./entry-index.ts, MARKER_GRACE_MS). Default: now. */
  now?: Date;
}

/** Every entry under a prefix, in state-key order. */
export async function readEntries(store: StateStore, prefix: string): Promise<StoredEntry[]> {
  const found: StoredEntry[] = [];
  for await (const stateKey of store.list(prefix)) {
    const stored = await store.get<ConfirmationEntry>(stateKey);
    if (stored) found.push({ stateKey, entry: stored.value });
  }
  return found;
}

/**
 * Every entry of one publication: each key at each communication channel it was sent to, all
 * recipients, that names the publication.
 */
export async function entriesOfPublication(
  store: StateStore,
  publication: {
    publicationId: string;
    primaryKeys: readonly string[];
    destinations: readonly Destination[];
  },
): Promise<StoredEntry[]> {
  const channels = [
    ...new Set(
      publication.destinations
        .filter((destination) => destination.destinationType === 'COMMUNICATION_CHANNEL')
        .map((destination) => destination.destinationId),
    ),
  ];
  const prefixes = [...new Set(publication.primaryKeys)].flatMap((primaryKey) =>
    channels.map((channelId) => confirmationChannelPrefix(primaryKey, channelId)),
  );
  const found = await mapAll(prefixes, 8, (prefix) => readEntries(store, prefix));
  return found
    .flat()
    .filter((stored) =>
      stored.entry.publications.some((published) => published.publicationId === publication.publicationId),
    );
}

/** A place a page may start from: an entry key, or a marker key pointing to one. */
interface Candidate {
  /** The listed key (the cursor of a page that ends here). */
  position: string;
  stateKey: string;
  /** Set for a marker, as listed: it must still match its entry, or it is stale. */
  marker?: ListedState;
}

/** The keys under `prefixes` (in byte order of the prefixes) after `after`, as candidates. */
async function* candidates(
  store: StateStore,
  prefixes: readonly string[],
  after: string | undefined,
  markers: boolean,
): AsyncGenerator<Candidate> {
  for (const prefix of [...prefixes].sort(compareKeys)) {
    let startAfter: string | undefined;
    if (after !== undefined) {
      if (after.startsWith(prefix)) startAfter = after;
      else if (compareKeys(prefix, after) < 0) continue;
    }
    for await (const listed of store.listEntries(prefix, startAfter === undefined ? {} : { startAfter })) {
      const position = listed.key;
      yield markers
        ? { position, stateKey: entryKeyOfMarker(prefix, position), marker: listed }
        : { position, stateKey: position };
    }
  }
}

/** Where a question's answer is listed: one item's entries, a GTIN's or states' markers, or all entries. */
function sourceOf(
  options: ListOptions,
  states: readonly string[] | undefined,
): { prefixes: string[]; markers: boolean } {
  if (options.primaryKey !== undefined)
    return { prefixes: [confirmationItemPrefix(options.primaryKey)], markers: false };
  if (options.gtin !== undefined)
    return { prefixes: [confirmationGtinPrefix(gtin14(options.gtin))], markers: true };
  if (states !== undefined) return { prefixes: states.map(confirmationStatePrefix), markers: true };
  return { prefixes: [CONFIRMATIONS_PREFIX], markers: false };
}

/**
 * A page of entries filtered by item, GTIN and states, and the cursor of the next page. It reads
 * what the answer needs, not the history: an item's entries by their prefix, a GTIN's or states'
 * entries through the index (./entry-index.ts); each page lists from its cursor (StartAfter). Every
 * marker is checked against its entry, so a stale one is skipped, never shown, and deleted once the
 * listing says it is older than the grace period (no read of the marker itself). `states`
 * are taken as given: check them with {@link resolveStates} first.
 *
 * @example
 * ```ts
 * const first = await listEntries(store, { states: ['OVERDUE'], limit: 50 });
 * const second = await listEntries(store, { states: ['OVERDUE'], limit: 50, after: first.next });
 * ```
 */
export async function listEntries(
  store: StateStore,
  options: ListOptions = {},
): Promise<{ entries: StoredEntry[]; next?: string }> {
  const limit = Math.min(options.limit ?? 100, MAX_PAGE);
  const states = options.states && options.states.length > 0 ? [...new Set(options.states)] : undefined;
  const wanted = states ? new Set(states) : undefined;
  const gtin = options.gtin === undefined ? undefined : gtin14(options.gtin);
  const { prefixes, markers } = sourceOf(options, states);
  const now = options.now ?? new Date();
  const listed = candidates(store, prefixes, options.after, markers)[Symbol.asyncIterator]();
  const entries: StoredEntry[] = [];
  let last: string | undefined;
  for (;;) {
    const batch: Candidate[] = [];
    while (batch.length < limit - entries.length) {
      const next = await listed.next();
      if (next.done) break;
      batch.push(next.value);
    }
    if (batch.length === 0) return { entries };
    const read = await mapAll(batch, READ_CONCURRENCY, async (candidate) => {
      const stored = await store.get<ConfirmationEntry>(candidate.stateKey);
      const entry = stored?.value;
      if (
        candidate.marker !== undefined &&
        (!entry || !markersOf(candidate.stateKey, entry).includes(candidate.marker.key))
      ) {
        // Judged from the listing (age, ETag): a stale marker costs no read beyond its entry.
        await retireListedMarker(store, candidate.marker, now);
        return undefined;
      }
      return entry;
    });
    batch.forEach((candidate, at) => {
      const entry = read[at];
      last = candidate.position;
      if (!entry) return;
      if (wanted && !wanted.has(entry.state)) return;
      if (gtin && !gtinsOf(entry).includes(gtin)) return;
      entries.push({ stateKey: candidate.stateKey, entry });
    });
    if (entries.length >= limit) {
      const more = await listed.next();
      await listed.return?.(undefined);
      return more.done ? { entries } : { entries, next: last as string };
    }
  }
}

/** Entries read at once while answering a page. */
const READ_CONCURRENCY = 16;

/**
 * The states asked for, each in the ledger's own spelling (matched in any case: `review` is REVIEW),
 * or {@link UnknownConfirmationStateError} naming the valid ones. The valid states are the ledger's
 * own plus every status it has recorded (the index records them); the record is only read when a
 * state is not one of the ledger's own.
 *
 * @example
 * ```ts
 * await resolveStates(store, ['overdue', 'Review']); // ['OVERDUE', 'REVIEW']
 * ```
 */
export async function resolveStates(store: StateStore, requested: readonly string[]): Promise<string[]> {
  const canonical = (known: readonly string[], state: string) =>
    known.find((candidate) => candidate === state) ??
    known.find((candidate) => candidate.toUpperCase() === state.toUpperCase());
  if (requested.every((state) => canonical(LEDGER_STATES, state) !== undefined)) {
    return requested.map((state) => canonical(LEDGER_STATES, state) as string);
  }
  const known = await knownStates(store);
  const unknown = requested.filter((state) => canonical(known, state) === undefined);
  if (unknown.length > 0) throw new UnknownConfirmationStateError(unknown, known);
  return requested.map((state) => canonical(known, state) as string);
}

/** How many entries are in each state. */
export function countByState(entries: readonly StoredEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { entry } of entries) counts[entry.state] = (counts[entry.state] ?? 0) + 1;
  return counts;
}
