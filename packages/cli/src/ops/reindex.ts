/**
 * `pds bridge reindex`: writes the activity-index markers (packages/bridge/src/state/activity-index.ts) of ingest
 * and publication records written before the index existed, so that `status` and `replay` find them.
 * Run once after upgrading; safe while the bridge runs, and running it again writes nothing new.
 */
import { mapAll } from '@pds-bridge/bridge/core';
import { INGEST_PROGRESS_PREFIX, isIngestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import {
  INGEST_ACTIVITY,
  type IngestProgressRecord,
  isFinished,
} from '@pds-bridge/bridge/ingest/progress.ts';
import { PUBLICATIONS_PREFIX } from '@pds-bridge/bridge/publications/keys.ts';
import {
  notifiedAtTime,
  PUBLICATION_ACTIVITY,
  type PublicationRecord,
} from '@pds-bridge/bridge/publications/records.ts';
import type { StateStore } from '@pds-bridge/bridge/state';
import {
  openMarkerKey,
  timeMarkerKey,
  writeActivityMarker,
} from '@pds-bridge/bridge/state/activity-index.ts';

/** What a reindex did. */
export interface ActivityReindexReport {
  /** Progress records read. */
  ingests: number;
  /** Publication records read. */
  publications: number;
  /** Markers written because they were missing. */
  markersWritten: number;
}

/**
 * Gives every ingest progress record the marker it lacks (open while unfinished, by the hour it
 * finished once done or failed) and every notified publication its marker by the hour of its outcome.
 *
 * @example
 * ```ts
 * const report = await reindexActivity(store);
 * ```
 */
export async function reindexActivity(
  store: StateStore,
  options: { now?: number; concurrency?: number } = {},
): Promise<ActivityReindexReport> {
  const now = options.now ?? Date.now();
  const concurrency = options.concurrency ?? 8;
  const report: ActivityReindexReport = { ingests: 0, publications: 0, markersWritten: 0 };
  const ensure = async (markerKey: string, recordKey: string) => {
    if (await store.get(markerKey)) return;
    await writeActivityMarker(store, markerKey, recordKey, now);
    report.markersWritten++;
  };
  const sweep = async (prefix: string, each: (key: string) => Promise<void>) => {
    let batch: string[] = [];
    const flush = async () => {
      await mapAll(batch, concurrency, each);
      batch = [];
    };
    for await (const key of store.list(prefix)) {
      batch.push(key);
      if (batch.length >= 256) await flush();
    }
    await flush();
  };
  await sweep(INGEST_PROGRESS_PREFIX, async (key) => {
    if (!isIngestProgressKey(key)) return;
    const record = (await store.get<IngestProgressRecord>(key))?.value;
    if (!record) return;
    report.ingests++;
    await ensure(
      isFinished(record)
        ? timeMarkerKey(INGEST_ACTIVITY, key, record.updatedAt)
        : openMarkerKey(INGEST_ACTIVITY, key),
      key,
    );
  });
  await sweep(PUBLICATIONS_PREFIX, async (key) => {
    const record = (await store.get<PublicationRecord>(key))?.value;
    if (!record) return;
    report.publications++;
    const at = notifiedAtTime(record);
    if (at !== undefined) await ensure(timeMarkerKey(PUBLICATION_ACTIVITY, key, at), key);
  });
  return report;
}
