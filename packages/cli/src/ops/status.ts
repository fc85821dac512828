/**
 * `status`: how the bridge is doing, from its own records and its queues. Poller checkpoint and
 * lease records (last run, last successful run: packages/bridge/src/state/lease.ts), watch-list size, ingests in
 * flight (progress records not finished), the ingests that finished in a recent window (how many,
 * and the failed ones), queue and dead-letter-queue depths with the age of their oldest message (from
 * the connection's age source), what the event destinations did not accept in the window, and the
 * scheduled audit's last report. What it reads of the ingests follows the
 * window and what is in flight, never every record ever written (the activity index).
 */
import { mapAll } from '@pds-bridge/bridge/core';
import { type DestinationFailures, recentPublishFailures } from '@pds-bridge/bridge/events';
import { INGEST_PROGRESS_PREFIX, isIngestProgressKey } from '@pds-bridge/bridge/ingest/keys.ts';
import {
  INGEST_ACTIVITY,
  type IngestProgressRecord,
  isFinished,
} from '@pds-bridge/bridge/ingest/progress.ts';
import { parseCheckpoint } from '@pds-bridge/bridge/polling/checkpoint.ts';
import { POLLER_LEASES } from '@pds-bridge/bridge/polling/exclusive.ts';
import {
  type AuditRecord,
  MESSAGING_ASSETS_CHECKPOINT,
  readAuditRecord,
} from '@pds-bridge/bridge/polling/messaging-assets';
import { deleteIfUnchanged, leaseKey, type StateStore, WATCH_PREFIX } from '@pds-bridge/bridge/state';
import {
  ACTIVITY_MARKER_GRACE_MS,
  type ActivityMarker,
  markedInWindow,
  openMarkerKey,
  openMarkerPrefix,
  recordKeyOfMarker,
} from '@pds-bridge/bridge/state/activity-index.ts';
import type { LeaseRecord, LeaseRunOutcome } from '@pds-bridge/bridge/state/lease.ts';
import type { OperatorQueues, QueueAge, QueueAgeSource } from './ports.ts';
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
  /** The age of its oldest message, when the stage's age source has a recent figure (`queueAges` says where from). */
  age?: QueueAge;
  deadLetter?: { name: string; exists: boolean; visible?: number; age?: QueueAge };
}

/** Where the queues' ages came from, or why there are none. */
export interface QueueAgesStatus {
  /** The source's label, shown beside the figures (e.g. "age: not available locally …"). */
  source: string;
  available: boolean;
  /** Why the source could not be read (e.g. no `cloudwatch:GetMetricData`); the depths are still exact. */
  error?: string;
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

/** An ingest that failed in the window. */
export interface FailedIngest {
  bucket: string;
  key: string;
  versionId?: string;
  /** When it failed (the record's last write). */
  updatedAt: string;
  /** The failure code of its pds.ingest.failed event, when recorded. */
  code?: string;
  reason?: string;
}

/** The ingests that finished between `since` and `until`. */
export interface IngestWindow {
  since: string;
  until: string;
  /** Finished in the window (done or failed). */
  finished: number;
  /** Of those, the failed ones, latest first (at most {@link MAX_FAILED_SHOWN}). */
  failed: FailedIngest[];
  /** How many failed, when more than are shown. */
  failedCount: number;
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
  ingests: { window: IngestWindow; inFlight: InFlightIngest[] };
  queues: QueueStatus[];
  queueAges: QueueAgesStatus;
  /**
   * What the event destinations (SQS queues, the EventBridge bus) did not accept in the window, per
   * destination (`sqs:<queue>`, `eventbridge:<bus>`), as the functions recorded it by the hour
   * (packages/bridge/src/events/publish-failures.ts); empty when every publish was accepted.
   */
  publishFailures: { since: string; until: string; destinations: Record<string, DestinationFailures> };
  /**
   * The scheduled messaging-asset audit's last record (packages/bridge/src/polling/messaging-assets/audit-record.ts):
   * when it last ran, how it ended, what the last completed one found; `null` when no audit recorded one.
   */
  audit: AuditRecord | null;
}

export interface StatusOptions {
  stage: string;
  stateBucket: string;
  /** Epoch ms; default Date.now. */
  now?: number;
  /** Progress records read at once. Default 16. */
  concurrency?: number;
  /** The window of finished ingests shown, ending now, in ms. Default 24 hours. */
  windowMs?: number;
  /**
   * `index` (default): reads only the progress records the activity index marks as open
   * (packages/bridge/src/state/activity-index.ts). `full`: reads every progress record, for a bucket whose records were
   * written before the index and not reindexed yet (`pds bridge reindex`).
   */
  read?: 'index' | 'full';
  /** Where the queues' ages come from (the connection's `queueAges`). Default: none read. */
  queueAges?: QueueAgeSource;
}

/** The age source of a status that was given none. */
const AGES_NOT_READ: QueueAgeSource = {
  label: 'age: not read',
  available: false,
  ages: async () => new Map(),
};

/** Failed ingests listed in a status, at most (the count says how many more). */
export const MAX_FAILED_SHOWN = 50;

/** The window of finished ingests when none is given. */
export const DEFAULT_STATUS_WINDOW_MS = 24 * 3_600_000;

/**
 * Collects the status. Finds the ingests in flight from the activity index's open markers (one GET per
 * open marker) and those that finished in the window from its time markers (one LIST page per 1,000
 * of the window's hours, one GET per ingest finished in it): the cost follows the window, not the
 * records ever written.
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
  const windowMs = options.windowMs ?? DEFAULT_STATUS_WINDOW_MS;
  const [checkpoint, pollers, watchKeys, ingests, queueStates, audit, publishFailures] = await Promise.all([
    store.get<unknown>(MESSAGING_ASSETS_CHECKPOINT),
    Promise.all(Object.values(POLLER_LEASES).map((name) => pollerStatus(store, name, now))),
    countKeys(store, WATCH_PREFIX),
    ingestStatus(store, now, {
      concurrency: options.concurrency ?? 16,
      read: options.read ?? 'index',
      windowMs,
    }),
    queueStatuses(queues, options.stage),
    readAuditRecord(store),
    recentPublishFailures(store, now - windowMs, now),
  ]);
  const queueAges = await withAges(queueStates, options.queueAges ?? AGES_NOT_READ);
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
    queueAges,
    publishFailures: {
      since: new Date(now - windowMs).toISOString(),
      until: new Date(now).toISOString(),
      destinations: publishFailures,
    },
    audit: audit ?? null,
  };
}

/** Adds each queue's age, and its DLQ's, from `source` (one read for all); a source that fails leaves ages out and says why. */
async function withAges(queues: QueueStatus[], source: QueueAgeSource): Promise<QueueAgesStatus> {
  const status: QueueAgesStatus = { source: source.label, available: source.available };
  if (!source.available) return status;
  const names = queues.flatMap((queue) => [
    ...(queue.exists ? [queue.name] : []),
    ...(queue.deadLetter?.exists ? [queue.deadLetter.name] : []),
  ]);
  let ages: ReadonlyMap<string, QueueAge>;
  try {
    ages = await source.ages(names);
  } catch (error) {
    return { ...status, error: (error as Error).message };
  }
  for (const queue of queues) {
    const age = ages.get(queue.name);
    if (age && queue.exists) queue.age = age;
    const deadLetterAge = queue.deadLetter && ages.get(queue.deadLetter.name);
    if (queue.deadLetter && deadLetterAge) queue.deadLetter.age = deadLetterAge;
  }
  return status;
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

/** The ingests in flight and those finished in the window, by the index or (`full`) by every record. */
async function ingestStatus(
  store: StateStore,
  now: number,
  options: { concurrency: number; read: 'index' | 'full'; windowMs: number },
): Promise<BridgeStatus['ingests']> {
  const since = now - options.windowMs;
  const [open, finished] =
    options.read === 'full'
      ? await everyRecord(store, options.concurrency)
      : await Promise.all([
          indexedOpen(store, now, options.concurrency),
          indexedFinished(store, since, now, options.concurrency),
        ]);
  const inWindow = finished.filter(
    (record) => isFinished(record) && record.updatedAt >= since && record.updatedAt < now,
  );
  return {
    window: windowView(inWindow, since, now),
    inFlight: open.filter((record) => !isFinished(record)).map((record) => inFlightView(record, now)),
  };
}

/** Every progress record, read one by one (records written before the index): open and finished alike. */
async function everyRecord(
  store: StateStore,
  concurrency: number,
): Promise<[IngestProgressRecord[], IngestProgressRecord[]]> {
  const keys: string[] = [];
  for await (const key of store.list(INGEST_PROGRESS_PREFIX)) if (isIngestProgressKey(key)) keys.push(key);
  const records = await readRecords(store, keys, concurrency);
  return [records, records];
}

/** The records the open markers point to; a marker of a finished or missing record is retired. */
async function indexedOpen(
  store: StateStore,
  now: number,
  concurrency: number,
): Promise<IngestProgressRecord[]> {
  const openPrefix = openMarkerPrefix(INGEST_ACTIVITY);
  const keys: string[] = [];
  for await (const marker of store.list(openPrefix)) {
    const key = recordKeyOfMarker(openPrefix, marker);
    if (isIngestProgressKey(key)) keys.push(key);
  }
  const records = await mapAll(keys, concurrency, async (key) => {
    const record = (await store.get<IngestProgressRecord>(key))?.value;
    if (!record || isFinished(record)) await retireOpenMarker(store, key, record, now);
    return record;
  });
  return records.filter((record): record is IngestProgressRecord => record !== undefined);
}

/** The records the time markers of the window's hours point to (a record marked twice is read once). */
async function indexedFinished(
  store: StateStore,
  since: number,
  until: number,
  concurrency: number,
): Promise<IngestProgressRecord[]> {
  const keys: string[] = [];
  for await (const key of markedInWindow(store, INGEST_ACTIVITY, since, until)) {
    if (isIngestProgressKey(key)) keys.push(key);
  }
  return readRecords(store, keys, concurrency);
}

async function readRecords(
  store: StateStore,
  keys: readonly string[],
  concurrency: number,
): Promise<IngestProgressRecord[]> {
  const records = await mapAll(
    keys,
    concurrency,
    async (key) => (await store.get<IngestProgressRecord>(key))?.value,
  );
  return records.filter((record): record is IngestProgressRecord => record !== undefined);
}

function inFlightView(record: IngestProgressRecord, now: number): InFlightIngest {
  return {
    bucket: record.bucket,
    key: record.key,
    ...(record.versionId ? { versionId: record.versionId } : {}),
    status: record.status,
    owner: record.owner,
    attempts: record.attempts,
    claim: record.leaseUntil > now ? 'held' : 'stalled',
    updatedAt: new Date(record.updatedAt).toISOString(),
    ...(record.lastError ? { lastError: record.lastError } : {}),
  };
}

/** How many finished in the window and which failed (latest first), in an order that does not depend on the read. */
function windowView(records: readonly IngestProgressRecord[], since: number, until: number): IngestWindow {
  const failed = records
    .filter((record) => record.status === 'failed')
    .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    since: new Date(since).toISOString(),
    until: new Date(until).toISOString(),
    finished: records.length,
    failed: failed.slice(0, MAX_FAILED_SHOWN).map((record) => ({
      bucket: record.bucket,
      key: record.key,
      ...(record.versionId ? { versionId: record.versionId } : {}),
      updatedAt: new Date(record.updatedAt).toISOString(),
      ...(record.code ? { code: record.code } : {}),
      ...(record.reason ? { reason: record.reason } : {}),
    })),
    failedCount: failed.length,
  };
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
