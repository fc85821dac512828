/**
 * The ledger read back: the entries of one publication, and pages of entries by item, GTIN or state
 * (the exception list). Only reads; the API and the CLI use it.
 */
import { mapAll } from '../core/index.ts';
import type { Destination } from '../pds/index.ts';
import type { StateStore } from '../state/index.ts';
import type { ConfirmationEntry } from './entry.ts';
import { gtin14 } from './facts.ts';
import { CONFIRMATIONS_PREFIX, confirmationChannelPrefix, confirmationItemPrefix } from './keys.ts';

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
  /** Start after this state key (the `next` of the previous page). */
  after?: string;
  limit?: number;
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

/**
 * A page of entries in state-key order, filtered by item, GTIN and states, and the cursor (a state
 * key) of the next page. A GTIN filter reads every entry: GTINs are not part of the keys.
 */
export async function listEntries(
  store: StateStore,
  options: ListOptions = {},
): Promise<{ entries: StoredEntry[]; next?: string }> {
  const limit = Math.min(options.limit ?? 100, MAX_PAGE);
  const prefix =
    options.primaryKey !== undefined ? confirmationItemPrefix(options.primaryKey) : CONFIRMATIONS_PREFIX;
  const states = options.states && options.states.length > 0 ? new Set(options.states) : undefined;
  const gtin = options.gtin === undefined ? undefined : gtin14(options.gtin);
  const entries: StoredEntry[] = [];
  for await (const stateKey of store.list(prefix)) {
    if (options.after !== undefined && stateKey <= options.after) continue;
    const stored = await store.get<ConfirmationEntry>(stateKey);
    if (!stored) continue;
    const entry = stored.value;
    if (states && !states.has(entry.state)) continue;
    if (gtin && entry.key.gtin !== gtin && gtin14(entry.key.primaryKey) !== gtin) continue;
    if (entries.length === limit) return { entries, next: entries.at(-1)?.stateKey as string };
    entries.push({ stateKey, entry });
  }
  return { entries };
}

/** How many entries are in each state. */
export function countByState(entries: readonly StoredEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { entry } of entries) counts[entry.state] = (counts[entry.state] ?? 0) + 1;
  return counts;
}
