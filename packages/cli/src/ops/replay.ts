/**
 * `replay`: the events of finished ingests and publications in a time window, built again from their
 * records with the ids they were first sent with, so consumers that already have them
 * drop them and a consumer that lost them gets them. A dry run lists them; sending is rate-capped.
 *
 * A failed ingest recorded before records kept the failure code (`code`) cannot be rebuilt exactly
 * and is listed as skipped.
 */
import { sleep } from '@pds-bridge/bridge/core';
import type { CloudEvent, EventSink } from '@pds-bridge/bridge/events';
import { completedEvent, failedEvent } from '@pds-bridge/bridge/ingest/events.ts';
import { INGEST_PROGRESS_PREFIX, isIngestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import {
  INGEST_ACTIVITY,
  type IngestProgressRecord,
  objectWriteOf,
} from '@pds-bridge/bridge/ingest/progress.ts';
import { readGatheringProgress } from '@pds-bridge/bridge/ingest/progress-entries.ts';
import { publicationOutcomeEvent } from '@pds-bridge/bridge/publications/events.ts';
import { PUBLICATIONS_PREFIX } from '@pds-bridge/bridge/publications/keys.ts';
import {
  notifiedAtTime,
  PUBLICATION_ACTIVITY,
  type PublicationRecord,
} from '@pds-bridge/bridge/publications/records.ts';
import { compareKeys, type StateStore } from '@pds-bridge/bridge/state';
import { markedInWindow } from '@pds-bridge/bridge/state/activity-index.ts';

/** What can be replayed. */
export const REPLAY_KINDS = ['ingest', 'publication'] as const;
export type ReplayKind = (typeof REPLAY_KINDS)[number];

export interface ReplayWindow {
  /** Epoch ms, inclusive. */
  since: number;
  /** Epoch ms, exclusive. */
  until: number;
  /** Default both. */
  kinds?: readonly ReplayKind[];
  /**
   * `index` (default): only the records the activity index marks in the window's hours
   * (packages/bridge/src/state/activity-index.ts). `full`: every record of the chosen kinds, for a bucket whose
   * records were written before the index and not reindexed yet (`pds bridge reindex`).
   */
  read?: 'index' | 'full';
}

export interface ReplayPlan {
  since: string;
  until: string;
  /** Oldest first. */
  events: CloudEvent[];
  /** Finished records in the window whose event cannot be rebuilt, with why. */
  skipped: Array<{ record: string; reason: string }>;
}

/**
 * Finds the finished ingests and publications whose outcome was recorded in the window and builds
 * their events. Reads the records the activity index marks in the window's hours (one LIST page per
 * 1,000 markers, one GET each), or with `read: 'full'` every record of the chosen kinds.
 *
 * @example
 * ```ts
 * const plan = await planReplay(store, { since: Date.now() - 86_400_000, until: Date.now() });
 * plan.events.map((event) => event.id);
 * ```
 */
export async function planReplay(store: StateStore, window: ReplayWindow): Promise<ReplayPlan> {
  const kinds = window.kinds ?? REPLAY_KINDS;
  const found: Array<{ at: number; event: CloudEvent }> = [];
  const skipped: ReplayPlan['skipped'] = [];
  const inWindow = (at: number) => at >= window.since && at < window.until;
  const full = window.read === 'full';
  if (kinds.includes('ingest')) {
    const keys = full
      ? store.list(INGEST_PROGRESS_PREFIX)
      : markedInWindow(store, INGEST_ACTIVITY, window.since, window.until);
    for await (const key of keys) {
      if (!isIngestProgressKey(key)) continue;
      const record = (await store.get<IngestProgressRecord>(key))?.value;
      if (!record || !inWindow(record.updatedAt)) continue;
      const built = await ingestEvent(store, key, record);
      if (built === undefined) continue;
      if (typeof built === 'string') skipped.push({ record: key, reason: built });
      else found.push({ at: record.updatedAt, event: built });
    }
  }
  if (kinds.includes('publication')) {
    const keys = full
      ? store.list(PUBLICATIONS_PREFIX)
      : markedInWindow(store, PUBLICATION_ACTIVITY, window.since, window.until);
    for await (const key of keys) {
      if (!key.startsWith(PUBLICATIONS_PREFIX)) continue;
      const record = (await store.get<PublicationRecord>(key))?.value;
      // Only publications whose event was sent: the worker sends the others itself.
      const at = record ? notifiedAtTime(record) : undefined;
      if (!record || at === undefined || !inWindow(at)) continue;
      const event = publicationOutcomeEvent(record);
      if (event) found.push({ at, event });
    }
  }
  found.sort((a, b) => a.at - b.at || a.event.id.localeCompare(b.event.id));
  skipped.sort((a, b) => compareKeys(a.record, b.record));
  return {
    since: new Date(window.since).toISOString(),
    until: new Date(window.until).toISOString(),
    events: found.map(({ event }) => event),
    skipped,
  };
}

/** The event a finished ingest sent, its `time` the moment its outcome was recorded; a string says why there is none. */
async function ingestEvent(
  store: StateStore,
  key: string,
  record: IngestProgressRecord,
): Promise<CloudEvent | string | undefined> {
  const write = objectWriteOf(record);
  const time = new Date(record.updatedAt).toISOString();
  if (record.status === 'done') {
    const gathering = await readGatheringProgress(store, key, record);
    const event = completedEvent(write, {
      size: record.size ?? 0,
      gatheringKey: record.gatheringKey ?? '',
      entries: gathering?.entries ?? [],
    });
    return { ...event, time };
  }
  if (record.status !== 'failed') return undefined;
  const code = record.code ?? (record.outcome === 'superseded' ? 'superseded' : undefined);
  if (code === undefined) {
    return 'recorded before failure codes were kept: its pds.ingest.failed cannot be rebuilt exactly';
  }
  const event = failedEvent(write, {
    code,
    reason: record.reason ?? '',
    pdsStatus: record.pdsStatus,
    retryable: false,
  });
  return { ...event, time };
}

/**
 * Sends the events at most `perSecond` a second (in batches of up to 10 through the sink).
 *
 * @example
 * ```ts
 * await sendReplay(sink, plan.events, { perSecond: 10 });
 * ```
 */
export async function sendReplay(
  sink: EventSink,
  events: readonly CloudEvent[],
  options: { perSecond: number; onSent?: (sent: number) => void },
): Promise<number> {
  const batch = Math.max(1, Math.min(10, options.perSecond));
  let sent = 0;
  for (let index = 0; index < events.length; index += batch) {
    const started = Date.now();
    const slice = events.slice(index, index + batch);
    await sink.publish(slice);
    sent += slice.length;
    options.onSent?.(sent);
    const due = (slice.length * 1000) / options.perSecond - (Date.now() - started);
    if (due > 0 && sent < events.length) await sleep(due);
  }
  return sent;
}
