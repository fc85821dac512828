/**
 * The entries of an ingest's gathering and which of them were imported, whatever layout its progress
 * record has:
 *
 * - since issue 20, the entries (path, asset key) are one document per gathering beside the record,
 *   written once with If-None-Match, and the record holds `entryCount` and `importedRanges`;
 * - before, the record held `entries` with an `imported` flag each. Such records are read as they are
 *   (operators' `pds bridge why` and `replay`), and a delivery resuming one carries it over first.
 */

import { type StateStore, StateValueError } from '../state/index.ts';
import { hasIndex, type IndexRanges, normaliseRanges, rangesOfFlags } from './index-ranges.ts';
import { ingestEntriesKey } from './keys.ts';
import type { IngestClaim, IngestProgressRecord } from './progress.ts';

/** One entry of a gathering: what is imported and the asset the PDS made of it. */
export interface GatheringEntryRef {
  path: string;
  assetKey: string;
}

/** The document stored under ingestEntriesKey. */
export interface IngestEntriesDocument {
  gatheringKey: string;
  entries: GatheringEntryRef[];
}

/** The gathering of an uploaded write and its imports so far. */
export interface GatheringProgress {
  gatheringKey: string;
  entries: GatheringEntryRef[];
  imported: IndexRanges;
}

/**
 * Stores the entries of `gatheringKey` beside the record (If-None-Match). The document of one
 * gathering never changes, so one that is already there (an earlier attempt wrote it) is kept.
 *
 * @example
 * ```ts
 * await storeGatheringEntries(store, claim.key, 'g-17', [{ path: 'a.csv', assetKey: 'g-17-a0' }]);
 * ```
 */
export async function storeGatheringEntries(
  store: StateStore,
  progressKey: string,
  gatheringKey: string,
  entries: readonly GatheringEntryRef[],
): Promise<void> {
  const document: IngestEntriesDocument = {
    gatheringKey,
    entries: entries.map(({ path, assetKey }) => ({ path, assetKey })),
  };
  await store.create(ingestEntriesKey(progressKey, gatheringKey), document);
}

/**
 * The gathering, its entries and the imports recorded, or `undefined` while nothing was uploaded.
 *
 * @throws StateValueError when the record points to entries that are not stored (fix or delete the record)
 */
export async function readGatheringProgress(
  store: StateStore,
  progressKey: string,
  record: Readonly<IngestProgressRecord>,
): Promise<GatheringProgress | undefined> {
  if (record.gatheringKey === undefined) return undefined;
  if (record.entries !== undefined) {
    return {
      gatheringKey: record.gatheringKey,
      entries: record.entries.map(({ path, assetKey }) => ({ path, assetKey })),
      imported: rangesOfFlags(record.entries.map((entry) => entry.imported)),
    };
  }
  if (record.entryCount === undefined) return undefined;
  const entriesKey = ingestEntriesKey(progressKey, record.gatheringKey);
  const stored = await store.get<IngestEntriesDocument>(entriesKey);
  if (stored === undefined || stored.value.entries.length !== record.entryCount) {
    throw new StateValueError(
      progressKey,
      `the record names ${record.entryCount} entries of gathering ${record.gatheringKey}, but ${entriesKey} ${stored ? `holds ${stored.value.entries.length}` : 'is missing'}; delete the record to ingest the object again`,
    );
  }
  let imported: IndexRanges;
  try {
    imported = normaliseRanges(record.importedRanges ?? []);
  } catch (error) {
    throw new StateValueError(progressKey, (error as Error).message, { cause: error });
  }
  return { gatheringKey: record.gatheringKey, entries: stored.value.entries, imported };
}

/** Each entry with whether it was imported: how operators read the progress. */
export function entriesWithFlags(
  progress: GatheringProgress | undefined,
): Array<{ path: string; assetKey: string; imported: boolean }> {
  if (progress === undefined) return [];
  return progress.entries.map(({ path, assetKey }, index) => ({
    path,
    assetKey,
    imported: hasIndex(progress.imported, index),
  }));
}

/**
 * Carries a resumed record of the earlier layout (entries inline) over to the current one: stores its
 * entries beside it, then rewrites the record with ranges and without the inline entries. From then on
 * each import rewrites the small record, as for a write begun today.
 */
export async function carryOverInlineEntries(
  store: StateStore,
  claim: IngestClaim,
  progress: GatheringProgress,
): Promise<void> {
  if (claim.record.entries === undefined) return;
  await storeGatheringEntries(store, claim.key, progress.gatheringKey, progress.entries);
  await claim.advance({
    entries: undefined,
    entryCount: progress.entries.length,
    importedRanges: progress.imported.map(([from, to]) => [from, to]),
  });
}
