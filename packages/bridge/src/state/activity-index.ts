/**
 * The activity index: markers that let `pds bridge status` and `pds bridge replay` (packages/cli/src/ops) read
 * only the records they are asked about instead of every ingest and publication record ever written
 * (docs/operations.md, "The activity index").
 *
 * - `activity-index/<family>/open/<record key>`: the record may be unfinished (ingest records that
 *   are not done or failed). `status` lists these instead of every progress record.
 * - `activity-index/<family>/at/<YYYY-MM-DD>/<HH>/<record key>`: the record reached the outcome
 *   `replay` looks for in that UTC hour. Keys list in time order (by hour), so a window is one
 *   listing that starts after the window's first hour (`startAfter`) and stops after its last.
 *
 * Order of writes (the ledger's, packages/bridge/src/confirmations/entry-index.ts): a marker is written *before* the
 * record it points to, so a crash in between leaves a stale marker, never a missing one. Readers
 * read the record behind every marker and apply the same test the full read applied, so the answer
 * is exact; a stale marker costs one read until it is retired.
 *
 * Records written before the index have no markers: `pds bridge reindex` writes them once.
 */
import { statePrefix } from './keys.ts';
import type { StateStore } from './store.ts';

/** `activity-index/`. */
export const ACTIVITY_INDEX_PREFIX = statePrefix('activity-index', 'packages/bridge/src/state');

/** A marker younger than this is never retired while its record is missing: a writer may be between the two. */
export const ACTIVITY_MARKER_GRACE_MS = 60 * 60_000;

/** What a marker stores. */
export interface ActivityMarker {
  /** The record's state key. */
  record: string;
  /** When the marker was written (ISO). */
  writtenAt: string;
}

/** `activity-index/<family>/`: the markers of one kind of record (`ingest`, `publications`). */
export function activityFamilyPrefix(family: string): string {
  if (!/^[a-z][a-z0-9-]*$/.test(family)) {
    throw new TypeError(`activity family must be lower-case letters, digits and "-", got '${family}'`);
  }
  return `${ACTIVITY_INDEX_PREFIX}${family}/`;
}

/** `activity-index/<family>/open/<record key>`. */
export function openMarkerKey(family: string, recordKey: string): string {
  return `${activityFamilyPrefix(family)}open/${recordKey}`;
}

/** `activity-index/<family>/open/`. */
export function openMarkerPrefix(family: string): string {
  return `${activityFamilyPrefix(family)}open/`;
}

/** `activity-index/<family>/at/`. */
export function timeMarkerPrefix(family: string): string {
  return `${activityFamilyPrefix(family)}at/`;
}

/** The UTC hour of an epoch-ms time as a key part: `YYYY-MM-DD/HH`. */
export function hourOf(at: number): string {
  if (!Number.isFinite(at)) throw new TypeError(`cannot index a time that is not a number (${at})`);
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 10)}/${iso.slice(11, 13)}`;
}

/** `activity-index/<family>/at/<YYYY-MM-DD>/<HH>/<record key>`. */
export function timeMarkerKey(family: string, recordKey: string, at: number): string {
  return `${timeMarkerPrefix(family)}${hourOf(at)}/${recordKey}`;
}

/** The record key a marker under `prefix` points to (the open prefix, or a time prefix). */
export function recordKeyOfMarker(prefix: string, markerKey: string): string {
  const rest = markerKey.slice(prefix.length);
  // Time markers: `YYYY-MM-DD/HH/` before the record key.
  return prefix.endsWith('/at/') ? rest.slice('YYYY-MM-DD/HH/'.length) : rest;
}

/** Writes (or refreshes) a marker pointing to `recordKey`. */
export async function writeActivityMarker(
  store: StateStore,
  markerKey: string,
  recordKey: string,
  now: number,
): Promise<void> {
  const writtenAt = new Date(now).toISOString();
  await store.mutate<ActivityMarker>(markerKey, () => ({ record: recordKey, writtenAt }), {
    maxAttempts: 20,
  });
}

/**
 * The record keys marked in the hours that overlap [since, until), in marker order (hour, then key),
 * each once. One listing from the first hour, stopped after the last: hours outside the window are
 * never read.
 *
 * @example
 * ```ts
 * for await (const key of markedInWindow(store, 'ingest', since, until)) await store.get(key);
 * ```
 */
export async function* markedInWindow(
  store: StateStore,
  family: string,
  since: number,
  until: number,
): AsyncIterable<string> {
  if (!(until > since)) return;
  const prefix = timeMarkerPrefix(family);
  const first = hourOf(since);
  const last = hourOf(until - 1);
  const seen = new Set<string>();
  // `<prefix><first>` sorts before every key of the first hour (it is their prefix) and after every earlier hour.
  for await (const markerKey of store.list(prefix, { startAfter: `${prefix}${first}` })) {
    const hour = markerKey.slice(prefix.length, prefix.length + 'YYYY-MM-DD/HH'.length);
    if (hour > last) break;
    const recordKey = recordKeyOfMarker(prefix, markerKey);
    if (seen.has(recordKey)) continue;
    seen.add(recordKey);
    yield recordKey;
  }
}
