/**
 * Ingests one object write, exactly once under at-least-once delivery:
 *
 * 1. claim its progress record (packages/bridge/src/ingest/progress.ts); a finished record makes this a duplicate;
 * 2. unless the record already says `uploaded`: stream the object from S3 into `POST /gatherings`
 *    (exact Content-Length, nothing buffered) and record the gathering key and entries;
 * 3. start the import of every entry not yet recorded as imported, `importConcurrency` at a time,
 *    recording each as soon as the PDS accepted it (./import-ledger.ts: one record write in flight,
 *    carrying every import accepted meanwhile). A transient PDS answer to 2 or 3 is repeated within
 *    the invocation when `retry` allows (./step-retry.ts), before it is left to SQS;
 * 4. emit `pds.ingest.completed`, tag the object (best effort: a tag that cannot be written is logged
 *    and counted, never a reason to retry), mark the record `done`.
 *
 * Permanent failures (object gone or replaced, the PDS refusing with a 4xx other than 429) end as
 * `pds.ingest.failed`, a tag where the object still is ours, and a `failed` record; the function then
 * returns normally so the message is acknowledged. Everything else is thrown for SQS to retry, after
 * the claim was given back so that retry can start at once.
 *
 * The event is emitted before the record is finished: a crash in between emits it again with the
 * same id, which consumers drop; the other order could lose it.
 */
import { errorSummary, type Log, mapLimit, silentLog } from '../core/index.ts';
import type { IngestFailureCode } from '../events/data/index.ts';
import { type EventSink, pdsFailureCode } from '../events/index.ts';
import type { GatheringEntry } from '../pds/index.ts';
import { PdsError, PdsHttpError } from '../pds/index.ts';
import type { StateStore } from '../state/index.ts';
import { checkWhileStreaming } from './content/check.ts';
import type { ContentProblem } from './content/problem.ts';
import {
  IngestInProgressError,
  IngestRejectedError,
  IngestUnreadableError,
  ObjectSourceError,
} from './errors.ts';
import { completedEvent, failedEvent } from './events.ts';
import { DEFAULT_IMPORT_CONCURRENCY, ImportLedger } from './import-ledger.ts';
import { countIndexes, missingIndexes } from './index-ranges.ts';
import { ingestProgressKey } from './keys.ts';
import type { IngestPdsClient, ObjectRef, ObjectSource, ObjectTagger, TagResult } from './ports.ts';
import { claimIngest, type IngestClaim, type IngestProgressRecord } from './progress.ts';
import {
  carryOverInlineEntries,
  type GatheringEntryRef,
  type GatheringProgress,
  readGatheringProgress,
  storeGatheringEntries,
} from './progress-entries.ts';
import type { ObjectWriteEvent } from './s3-event.ts';
import { retryPdsStep, type StepRetryEvent, type StepRetryOptions } from './step-retry.ts';
import { uploadContentType, uploadFileName } from './upload-name.ts';

/** Tag keys written on the dropped object. */
export const INGEST_TAG_KEYS = Object.freeze({
  gatheringKey: 'pds-gathering-key',
  outcome: 'pds-ingest-outcome',
  /** On a failed ingest only: the failed event's `code` (e.g. `unreadable`). */
  code: 'pds-ingest-code',
});

export interface IngestObjectDeps {
  pds: IngestPdsClient;
  store: StateStore;
  events: EventSink;
  source: ObjectSource;
  /** Leave out to write no tags (the local emulator corrupts objects on tagging). */
  tagger?: ObjectTagger;
  /** Identifies this delivery in the progress record (invocation id and message id). */
  owner: string;
  /** Claim lease; longer than the function timeout. */
  leaseMs: number;
  now?: () => number;
  log?: Log;
  /** CloudEvents `source`; defaults to the envelope's default. */
  eventSource?: string;
  /**
   * Repeats the upload or an import after a transient PDS answer within this invocation (see
   * ./step-retry.ts). Default: none, every transient answer is left to SQS.
   */
  retry?: StepRetryOptions;
  /** Told of every such repetition (metrics); it is logged either way. */
  onStepRetry?: (event: StepRetryEvent) => void;
  /**
   * Imports of one gathering in flight at once (`INGEST_IMPORT_CONCURRENCY`); also how many accepted
   * imports a kill can leave unrecorded. Default {@link DEFAULT_IMPORT_CONCURRENCY}.
   */
  importConcurrency?: number;
  /**
   * Checks CSV, JSON and ZIP members while they stream (./content/check.ts) and fails a file the
   * PDS cannot import instead of importing it (`INGEST_CONTENT_CHECK`). Default true.
   */
  checkContent?: boolean;
}

/** How one delivery ended (thrown errors aside). */
export type IngestOutcome =
  | {
      status: 'imported';
      progressKey: string;
      gatheringKey: string;
      /** Entries of the gathering, all imported now. */
      entries: number;
      /** Imports this delivery started (fewer than `entries` when it resumed). */
      importsStarted: number;
      /** Bytes this delivery streamed to the PDS (0 when the upload was done by an earlier one). */
      bytesUploaded: number;
      /** True when an earlier delivery had started this write. */
      resumed: boolean;
      tag?: TagResult;
    }
  | {
      status: 'failed' | 'superseded';
      progressKey: string;
      reason: string;
      pdsStatus?: number;
      tag?: TagResult;
    }
  | {
      status: 'duplicate';
      progressKey: string;
      /** What the earlier delivery ended with. */
      previous: IngestProgressRecord['outcome'];
    };

/**
 * Ingests one object write; see the module comment for the steps.
 *
 * @throws a retryable error (`retryable: true`, or an error that does not say) for SQS to retry:
 * `IngestInProgressError`, retryable `PdsError`s, `ObjectSourceError` of S3 trouble, `StateStoreError`,
 * `EventPublishError`
 * @example
 * ```ts
 * const outcome = await ingestObject(write, { pds, store, events, source, tagger, owner: requestId, leaseMs: 960_000 });
 * if (outcome.status === 'imported') metrics.addMetric('IngestCompleted', 'Count', 1);
 * ```
 */
export async function ingestObject(write: ObjectWriteEvent, deps: IngestObjectDeps): Promise<IngestOutcome> {
  const log = deps.log ?? silentLog;
  const claimed = await claimIngest(deps.store, write, {
    owner: deps.owner,
    leaseMs: deps.leaseMs,
    ...(deps.now ? { now: deps.now } : {}),
  });
  if (claimed.kind === 'finished') {
    return {
      status: 'duplicate',
      progressKey: ingestProgressKey(write),
      previous: claimed.record.outcome,
    };
  }
  const { claim } = claimed;
  if (claimed.takenOver) {
    log.info('Resuming an ingest whose earlier delivery stopped', {
      progressKey: claim.key,
      status: claim.record.status,
      attempts: claim.record.attempts,
      lastError: claim.record.lastError,
    });
  }
  try {
    try {
      return await carryOut(write, claim, claimed.takenOver, deps);
    } catch (error) {
      if (!isPermanent(error)) throw error;
      return await fail(write, claim, error, deps);
    }
  } catch (error) {
    // Someone else holds the record now: it is theirs to release.
    if (!(error instanceof IngestInProgressError)) {
      const released = await claim.release(errorSummary(error));
      if (!released) log.warn('Could not release the ingest claim', { progressKey: claim.key });
    }
    throw error;
  }
}

async function carryOut(
  write: ObjectWriteEvent,
  claim: IngestClaim,
  takenOver: boolean,
  deps: IngestObjectDeps,
): Promise<IngestOutcome> {
  const resumed = takenOver || claim.record.status !== 'claimed';
  let bytesUploaded = 0;
  let gathering = await readGatheringProgress(deps.store, claim.key, claim.record);
  if (gathering === undefined) {
    const uploaded = await upload(write, deps);
    // The entries first: a record saying `uploaded` always points to stored entries.
    await storeGatheringEntries(deps.store, claim.key, uploaded.gatheringKey, uploaded.entries);
    await claim.advance({
      status: 'uploaded',
      size: uploaded.size,
      gatheringKey: uploaded.gatheringKey,
      entryCount: uploaded.entries.length,
      importedRanges: [],
    });
    bytesUploaded = uploaded.size;
    gathering = { gatheringKey: uploaded.gatheringKey, entries: uploaded.entries, imported: [] };
  } else {
    await carryOverInlineEntries(deps.store, claim, gathering);
  }

  const importsStarted = await importEntries(write, claim, gathering, deps);
  const { gatheringKey, entries } = gathering;
  await deps.events.publish([
    completedEvent(write, { size: claim.record.size ?? 0, gatheringKey, entries }, deps.eventSource),
  ]);
  const tag = await tagObject(write, { gatheringKey, outcome: 'imported' }, deps);
  await claim.advance({ status: 'done', outcome: 'imported', leaseUntil: 0 });
  return {
    status: 'imported',
    progressKey: claim.key,
    gatheringKey,
    entries: entries.length,
    importsStarted,
    bytesUploaded,
    resumed,
    ...(tag ? { tag } : {}),
  };
}

/**
 * Starts the import of every entry not on record yet, `importConcurrency` at a time, each recorded as
 * soon as the PDS accepted it. After a failure no further import starts; those in flight finish and
 * are recorded, then the first failure is thrown. Returns how many imports the PDS accepted.
 */
async function importEntries(
  write: ObjectWriteEvent,
  claim: IngestClaim,
  gathering: GatheringProgress,
  deps: IngestObjectDeps,
): Promise<number> {
  // Each write is the whole record: the last holder's error (up to 1,000 characters) is dropped with
  // the first one, which says this delivery gets on, so a write stays a few hundred bytes.
  const ledger = new ImportLedger(gathering.imported, (importedRanges) =>
    claim.advance({ importedRanges, lastError: undefined }),
  );
  const pending = missingIndexes(gathering.imported, gathering.entries.length);
  const onRetry = observeRetry(write, deps);
  let accepted = 0;
  let failure: { error: unknown } | undefined;
  await mapLimit(
    pending,
    deps.importConcurrency ?? DEFAULT_IMPORT_CONCURRENCY,
    async (index) => {
      const entry = gathering.entries[index] as GatheringEntryRef;
      try {
        await retryPdsStep(
          'import',
          () => deps.pds.startImport({ gatheringKey: gathering.gatheringKey, path: entry.path }),
          deps.retry,
          onRetry,
        );
        accepted += 1;
        // On record before this slot starts another: no retry repeats this import.
        await ledger.record(index);
      } catch (error) {
        failure ??= { error };
      }
    },
    { shouldStop: () => failure !== undefined },
  );
  if (failure) throw failure.error;
  return accepted;
}

/** Streams the object into one gathering; a repeated upload reads the object afresh. */
async function upload(
  write: ObjectWriteEvent,
  deps: IngestObjectDeps,
): Promise<{ size: number; gatheringKey: string; entries: GatheringEntryRef[] }> {
  const { size, answer, problem } = await retryPdsStep(
    'upload',
    () => uploadOnce(write, deps),
    deps.retry,
    observeRetry(write, deps),
  );
  const first = answer[0];
  if (!first) throw new IngestRejectedError('no-entries', 'it lists no entries (an empty archive?)');
  if (answer.some((entry) => entry.gatheringKey !== first.gatheringKey)) {
    throw new IngestRejectedError('invalid-answer', 'its entries name more than one gatheringKey');
  }
  // Before any import: a file the PDS cannot read is failed whole, never half imported.
  if (problem) throw new IngestUnreadableError(problem, first.gatheringKey);
  return {
    size,
    gatheringKey: first.gatheringKey,
    entries: answer.map((entry) => ({ path: entry.path, assetKey: entry.assetKey })),
  };
}

/**
 * One upload attempt from a freshly opened S3 stream, which is always closed afterwards; the content
 * check reads the bytes on their way.
 */
async function uploadOnce(
  write: ObjectWriteEvent,
  deps: IngestObjectDeps,
): Promise<{ size: number; answer: GatheringEntry[]; problem: ContentProblem | undefined }> {
  const opened = await deps.source.open(refOf(write));
  const checked =
    deps.checkContent === false
      ? { stream: opened.stream, verdict: async () => undefined }
      : checkWhileStreaming(opened.stream, write.key);
  try {
    const answer = await deps.pds.uploadGathering({
      stream: checked.stream,
      size: opened.size,
      fileName: uploadFileName(write.key),
      contentType: uploadContentType(write.key, opened.contentType),
    });
    return { size: opened.size, answer, problem: await checked.verdict() };
  } finally {
    // Also when the upload stopped before the end: the check's iterable is then left unread.
    if (!opened.stream.destroyed) opened.stream.destroy();
  }
}

function observeRetry(write: ObjectWriteEvent, deps: IngestObjectDeps): (event: StepRetryEvent) => void {
  return (event) => {
    (deps.log ?? silentLog).info('Repeating a PDS step after a transient answer', {
      bucket: write.bucket,
      key: write.key,
      step: event.step,
      attempt: event.attempt,
      delayMs: event.delayMs,
      error: { name: event.error.name, message: event.error.message },
    });
    deps.onStepRetry?.(event);
  };
}

/** Errors that trying again cannot fix: they end the ingest with a failed event. */
function isPermanent(error: unknown): error is Error {
  if (error instanceof ObjectSourceError || error instanceof PdsError) return !error.retryable;
  return error instanceof IngestRejectedError || error instanceof IngestUnreadableError;
}

async function fail(
  write: ObjectWriteEvent,
  claim: IngestClaim,
  error: Error,
  deps: IngestObjectDeps,
): Promise<IngestOutcome> {
  const superseded = error instanceof ObjectSourceError && error.problem === 'superseded';
  // A deleted or replaced object is no longer this write: tagging would mark someone else's upload.
  const objectStillOurs = !(error instanceof ObjectSourceError && (superseded || error.problem === 'gone'));
  const pdsStatus = error instanceof PdsHttpError ? error.status : undefined;
  const reason = failureReason(error, claim.record);
  const code = failureCode(error);

  await deps.events.publish([
    failedEvent(write, { code, reason, pdsStatus, retryable: false }, deps.eventSource),
  ]);
  const gatheringKey =
    error instanceof IngestUnreadableError ? error.gatheringKey : claim.record.gatheringKey;
  const tag = objectStillOurs
    ? await tagObject(write, { gatheringKey, outcome: 'failed', code }, deps)
    : undefined;
  await claim.advance({
    status: 'failed',
    outcome: superseded ? 'superseded' : 'failed',
    reason,
    code,
    ...(pdsStatus !== undefined ? { pdsStatus } : {}),
    leaseUntil: 0,
  });
  return {
    status: superseded ? 'superseded' : 'failed',
    progressKey: claim.key,
    reason,
    ...(pdsStatus !== undefined ? { pdsStatus } : {}),
    ...(tag ? { tag } : {}),
  };
}

/** The `code` of the failed event; see INGEST_FAILURE_CODES (packages/bridge/src/events/data/ingest.ts). */
function failureCode(error: Error): IngestFailureCode {
  if (error instanceof ObjectSourceError) {
    // 'unavailable' is always retryable (packages/bridge/src/ingest/s3/adapters.ts) and never ends here.
    return error.problem === 'unavailable' ? 'internal' : error.problem;
  }
  if (error instanceof IngestRejectedError) return error.problem;
  if (error instanceof IngestUnreadableError) return 'unreadable';
  if (error instanceof PdsError) return pdsFailureCode(error);
  return 'internal';
}

function failureReason(error: Error, record: Readonly<IngestProgressRecord>): string {
  if (error instanceof ObjectSourceError && error.problem === 'superseded') {
    return `The object was replaced by a newer upload after this notification (${error.message}); the newer upload is ingested through its own notification`;
  }
  if (error instanceof ObjectSourceError && error.problem === 'gone') {
    return `The object was deleted before it could be ingested (${error.message}); upload it again to ingest it`;
  }
  const total = record.entryCount ?? record.entries?.length ?? 0;
  const imported = record.entries
    ? record.entries.filter((entry) => entry.imported).length
    : countIndexes(record.importedRanges ?? []);
  const partial =
    total > 0
      ? ` (gathering ${record.gatheringKey}: ${imported} of ${total} entries were imported before)`
      : '';
  return `${error.message}${partial}`;
}

async function tagObject(
  write: ObjectWriteEvent,
  outcome: { gatheringKey: string | undefined; outcome: 'imported' | 'failed'; code?: IngestFailureCode },
  deps: IngestObjectDeps,
): Promise<TagResult | undefined> {
  if (!deps.tagger) return undefined;
  const tags: Record<string, string> = { [INGEST_TAG_KEYS.outcome]: outcome.outcome };
  if (outcome.gatheringKey) tags[INGEST_TAG_KEYS.gatheringKey] = outcome.gatheringKey;
  if (outcome.code) tags[INGEST_TAG_KEYS.code] = outcome.code;
  let result: TagResult;
  try {
    result = await deps.tagger.tag(refOf(write), tags);
  } catch (error) {
    // Tagging comes after the imports (or the failed event): failing the delivery now would retry a
    // write whose data is already in the PDS until it reached the DLQ. The tags are a courtesy.
    result = { tagged: false, reason: `tagging failed: ${errorSummary(error)}` };
  }
  if (!result.tagged) {
    (deps.log ?? silentLog).warn('The dropped object was not tagged', {
      bucket: write.bucket,
      key: write.key,
      reason: result.reason,
    });
  }
  return result;
}

function refOf(write: ObjectWriteEvent): ObjectRef {
  return {
    bucket: write.bucket,
    key: write.key,
    ...(write.versionId ? { versionId: write.versionId } : {}),
    ...(write.etag ? { etag: write.etag } : {}),
  };
}
