/**
 * `status`: how the bridge is doing, from its own records and its queues. Poller checkpoint and
 * lease records (last run, last successful run: packages/bridge/src/state/lease.ts), watch-list size, ingests in
 * flight (progress records not finished), queue and dead-letter-queue depths.
 */
import { mapAll } from '@pds-bridge/bridge/core';
import { INGEST_PROGRESS_PREFIX, isIngestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import {
  INGEST_ACTIVITY,
  type IngestProgressRecord,
  isFinished,
} from '@pds-bridge/bridge/ingest/progress.ts';
import { parseCheckpoint } from '@pds-bridge/bridge/polling/checkpoint.ts';
import { POLLER_LEASES } from '@pds-bridge/bridge/polling/exclusive.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '@pds-bridge/bridge/polling/messaging-assets';
import { deleteIfUnchanged, leaseKey, type StateStore, WATCH_PREFIX } from '@pds-bridge/bridge/state';
import {
  ACTIVITY_MARKER_GRACE_MS,
  type ActivityMarker,
  openMarkerKey,
  openMarkerPrefix,
  recordKeyOfMarker,
} from '@pds-bridge/bridge/state/activity-index.ts';
import type { LeaseRecord, LeaseRunOutcome } from '@pds-bridge/bridge/state/lease.ts';
import type { OperatorQueues } from './ports.ts';
import { FAILED_RUNS_ROLE, QUEUE_ROLES, queueName, SCHEDULE_DLQ_ROLE } from './target.ts';

export interface PollerStatus {
  name: string;
  /** A run holds the lease now. */
  running: boolean;
  runningSince?: string;
  lastRun?: { startedAt: string; endedAt: string; ok: boolean; error?: string };
  lastSuccessAt?: string;
  /** Milliseconds since the last successful run. */
  lastSuccessAgeMs?: number;
}

export interface QueueStatus {
  role: string;
  name: string;
  /** False when the queue does not exist; always for the schedule DLQ and the failed-runs queue, which have no source queue. */
  exists: boolean;
  visible?: number;
  inFlight?: number;
  delayed?: number;
  deadLetter?: { name: string; exists: boolean; visible?: number };
}

export interface InFlightIngest {
  bucket: string;
  key: string;
  versionId?: string;
  status: IngestProgressRecord['status'];
  owner: string;
  attempts: number;
  /** `held` while a delivery's lease runs, `stalled` when it was given back or ran out. */
  claim: 'held' | 'stalled';
  updatedAt: string;
  lastError?: string;
}

export interface BridgeStatus {
  at: string;
  stage: string;
  stateBucket: string;
  checkpoint?: {
    name: string;
    /** Ids recorded as emitted, and the ranges they are kept as. */
    emitted: number;
    ranges: number;
    highestId: number | null;
    /** Whether the PDS pages the listing, as the poller found out. */
    paging: string;
    retry: number;
    updatedAt: string;
    ageMs: number;
  };
  pollers: PollerStatus[];
  watchList: { keys: number };
  ingests: { records: number; inFlight: InFlightIngest[] };
  queues: QueueStatus[];
}

export interface StatusOptions {
  stage: string;
  stateBucket: string;
  /** Epoch ms; default Date.now. */
  now?: number;
  /** Progress records read at once. Default 16. */
  concurrency?: number;
  /**
   * `index` (default): reads only the progress records the activity index marks as open
   * (packages/bridge/src/state/activity-index.ts). `full`: reads every progress record, for a bucket whose records were
   * written before the index and not reindexed yet (`pds bridge reindex`).
   */
  read?: 'index' | 'full';
}

/**
 * Collects the status. Finds the ingests in flight from the activity index's open markers (one GET per
 * open marker); counts the progress records from their keys (one LIST page per 1,000), without reading them.
 *
 * @example
 * ```ts
 * const status = await bridgeStatus(store, queues, { stage: 'prod', stateBucket });
 * status.pollers[0]?.lastSuccessAt;
 * ```
 */
export async function bridgeStatus(
  store: StateStore,
  queues: OperatorQueues,
  options: StatusOptions,
): Promise<BridgeStatus> {
  const now = options.now ?? Date.now();
  const [checkpoint, pollers, watchKeys, ingests, queueStates] = await Promise.all([
    store.get<unknown>(MESSAGING_ASSETS_CHECKPOINT),
    Promise.all(Object.values(POLLER_LEASES).map((name) => pollerStatus(store, name, now))),
    countKeys(store, WATCH_PREFIX),
    ingestsInFlight(store, now, options.concurrency ?? 16, options.read ?? 'index'),
    queueStatuses(queues, options.stage),
  ]);
  const parsed = checkpoint ? parseCheckpoint(checkpoint.value, MESSAGING_ASSETS_CHECKPOINT) : undefined;
  return {
    at: new Date(now).toISOString(),
    stage: options.stage,
    stateBucket: options.stateBucket,
    ...(parsed
      ? {
          checkpoint: {
            name: MESSAGING_ASSETS_CHECKPOINT,
            emitted: parsed.emitted.size,
            ranges: parsed.emitted.rangeCount,
            highestId: parsed.highestId,
            paging: parsed.listing.paging,
            retry: parsed.retry.length,
            updatedAt: parsed.updatedAt,
            ageMs: now - Date.parse(parsed.updatedAt),
          },
        }
      : {}),
    pollers,
    watchList: { keys: watchKeys },
    ingests,
    queues: queueStates,
  };
}

async function pollerStatus(store: StateStore, name: string, now: number): Promise<PollerStatus> {
  const record = (await store.get<LeaseRecord>(leaseKey(name)))?.value;
  if (!record) return { name, running: false };
  const running = record.expiresAt > now;
  return {
    name,
    running,
    ...(running ? { runningSince: new Date(record.acquiredAt).toISOString() } : {}),
    ...(record.lastRun ? { lastRun: runView(record.lastRun) } : {}),
    ...(record.lastSuccessAt !== undefined
      ? {
          lastSuccessAt: new Date(record.lastSuccessAt).toISOString(),
          lastSuccessAgeMs: now - record.lastSuccessAt,
        }
      : {}),
  };
}

function runView(run: LeaseRunOutcome): NonNullable<PollerStatus['lastRun']> {
  return {
    startedAt: new Date(run.startedAt).toISOString(),
    endedAt: new Date(run.endedAt).toISOString(),
    ok: run.ok,
    ...(run.error ? { error: run.error } : {}),
  };
}

async function countKeys(store: StateStore, prefix: string): Promise<number> {
  let count = 0;
  for await (const _key of store.list(prefix)) count += 1;
  return count;
}

async function ingestsInFlight(
  store: StateStore,
  now: number,
  concurrency: number,
  read: 'index' | 'full',
): Promise<BridgeStatus['ingests']> {
  const keys: string[] = [];
  for await (const key of store.list(INGEST_PROGRESS_PREFIX)) if (isIngestProgressKey(key)) keys.push(key);
  const openPrefix = openMarkerPrefix(INGEST_ACTIVITY);
  // Not `push(...keys)`: a million arguments overflow the stack.
  const candidates: string[] = read === 'full' ? keys : [];
  if (read === 'index') {
    for await (const marker of store.list(openPrefix)) {
      const key = recordKeyOfMarker(openPrefix, marker);
      if (isIngestProgressKey(key)) candidates.push(key);
    }
  }
  const records = await mapAll(candidates, concurrency, async (key) => {
    const record = (await store.get<IngestProgressRecord>(key))?.value;
    if (read === 'index' && (!record || isFinished(record))) await retireOpenMarker(store, key, record, now);
    return record;
  });
  const inFlight: InFlightIngest[] = [];
  for (const record of records) {
    if (!record || isFinished(record)) continue;
    inFlight.push({
      bucket: record.bucket,
      key: record.key,
      ...(record.versionId ? { versionId: record.versionId } : {}),
      status: record.status,
      owner: record.owner,
      attempts: record.attempts,
      claim: record.leaseUntil > now ? 'held' : 'stalled',
      updatedAt: new Date(record.updatedAt).toISOString(),
      ...(record.lastError ? { lastError: record.lastError } : {}),
    });
  }
  return { records: keys.length, inFlight };
}

/**
 * Deletes an open marker that no longer points to an unfinished record: at once when the record is
 * finished (it is never claimed again), after the grace period when it is missing (its writer may be
 * between the marker and the record). Best effort: a marker left costs the next status one read.
 */
async function retireOpenMarker(
  store: StateStore,
  key: string,
  record: IngestProgressRecord | undefined,
  now: number,
): Promise<void> {
  const marker = openMarkerKey(INGEST_ACTIVITY, key);
  try {
    if (record) await store.delete(marker);
    else await retireActivityMarker(store, marker, now);
  } catch {
    // Read-only credentials: the answer is exact either way.
  }
}

async function queueStatuses(queues: OperatorQueues, stage: string): Promise<QueueStatus[]> {
  const roles: string[] = [...QUEUE_ROLES, SCHEDULE_DLQ_ROLE, FAILED_RUNS_ROLE];
  return Promise.all(
    roles.map(async (role): Promise<QueueStatus> => {
      // The failed-runs destination holds failures like a DLQ; its name has no -dlq.
      const deadLetterName = queueName(stage, role, { deadLetter: role !== FAILED_RUNS_ROLE });
      const deadLetter = await queues.depth(deadLetterName);
      const deadLetterView = {
        name: deadLetterName,
        exists: deadLetter !== undefined,
        ...(deadLetter ? { visible: deadLetter.visible } : {}),
      };
      if (role === SCHEDULE_DLQ_ROLE)
        return { role, name: deadLetterName, exists: false, deadLetter: deadLetterView };
      const name = queueName(stage, role);
      const depth = await queues.depth(name);
      return {
        role,
        name,
        exists: depth !== undefined,
        ...(depth ? { visible: depth.visible, inFlight: depth.inFlight, delayed: depth.delayed } : {}),
        deadLetter: deadLetterView,
      };
    }),
  );
}

/**
 * Deletes a marker whose record is missing, unless it is younger than {@link ACTIVITY_MARKER_GRACE_MS}
 * or was rewritten since it was read. True when it was deleted.
 */
async function retireActivityMarker(store: StateStore, markerKey: string, now: number): Promise<boolean> {
  const marker = await store.get<ActivityMarker>(markerKey);
  if (!marker) return false;
  if (!(now - Date.parse(marker.value.writtenAt) >= ACTIVITY_MARKER_GRACE_MS)) return false;
  return deleteIfUnchanged(store, markerKey, marker.etag);
}
