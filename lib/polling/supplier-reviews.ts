/**
 * The supplier-review poller: for every watched primary key, list its reviews, take those whose
 * fingerprint (fingerprint.ts) is not yet recorded on the key's watch entry, fetch and parse the XML
 * each points to, emit `pds.supplier-review.received`, and record the fingerprints only after SQS
 * accepted the events. A crash in between re-emits the same reviews with identical event ids.
 *
 * Per key (`pollReviewKeys`, used inline by the scheduled run and by the fan-out worker):
 * - no watch entry (removed meanwhile): skipped; expired entry: purged (`purgeIfExpired`);
 * - 404 on the reviews (the item no longer exists): counted on every run, and warned about once (the
 *   key's progress records `missingSince`; the warning comes again only after the item was back); the
 *   key stays watched until it expires, so an item that comes back is picked up again and nothing is
 *   dropped silently;
 * - any other failure, of the listing or of one review's XML, or SQS refusing a review's event as
 *   invalid: counted, that key's unemitted reviews are tried again on the next run; the other keys go
 *   on. A 404 on a review's XML is final: the review is emitted without its message, with
 *   `messageError`. So is a review that failed on `failureLimit` consecutive runs (poison.ts; the
 *   count is kept on the watch entry's `failing`), so one review cannot fail its key for ever.
 *
 * Concurrency: one limiter caps the PDS requests in flight (`concurrency`, default 8) across all keys;
 * keys are worked on four times that wide so that state-store and SQS calls overlap PDS calls. With the fan-out,
 * each worker invocation has its own limiter: the PDS sees at most (the worker's event-source maximum
 * concurrency + 1) × `concurrency` requests from the review polling.
 *
 * The scheduled run (`pollSupplierReviews`) lists the watched keys, grows the progress layout when
 * the watch list outgrew it (review-progress.ts), and polls them inline, or, above
 * `inlineMax` keys and with a fan-out queue, sends them in chunks aligned to the progress shards.
 */

import type { ConfirmationRecorder } from '../confirmations/ports.ts';
import {
  createLimiter,
  errorFields,
  errorSummary,
  type Limiter,
  type Log,
  type Settled,
  silentLog,
} from '../core/index.ts';
import type { CloudEvent, EventSink, MessageFetchError } from '../events/index.ts';
import type { PdsClient, SupplierReview } from '../pds/index.ts';
import { PdsNotFoundError } from '../pds/index.ts';
import {
  purgeIfExpired,
  readWatchEntry,
  type StateStore,
  type WatchedKey,
  watchedKeys,
} from '../state/index.ts';
import { CoalescingSink } from './coalescing-sink.ts';
import { ProgressLayoutChangedError } from './errors.ts';
import { missingMessageError, pollEventOptions, reviewEvent } from './events.ts';
import { reviewFingerprint } from './fingerprint.ts';
import { checkedFailureLimit, describeRefusal, passedFetchError, publishPassingRefused } from './poison.ts';
import {
  currentLevel,
  growLayout,
  type KeyProgress,
  type LoadedShard,
  loadProgressShard,
  nextProgress,
  type ProgressLayout,
  progressShardOf,
  readLayout,
  writeProgressShard,
} from './review-progress.ts';
import { chunkKeys, DEFAULT_CHUNK_SIZE, type ReviewKeyQueue } from './review-queue.ts';

export interface ReviewPollDeps {
  pds: Pick<PdsClient, 'listSupplierReviews' | 'getMessagingAsset'>;
  store: StateStore;
  sink: EventSink;
  logger?: Log;
  /** The confirmation ledger, told of each review SQS accepted; a failure retries the key's reviews. */
  confirmations?: ConfirmationRecorder;
}

export interface ReviewPollOptions {
  /** PDS requests in flight at once; default 8. */
  concurrency?: number;
  /** Epoch ms after which no further key is started (its reviews wait for the next run). */
  deadline?: number;
  /** Consecutive failed runs after which a review is emitted with `messageError` and passed; default 5. */
  failureLimit?: number;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string;
  now?: () => Date;
  /** The progress layout the keys were grouped by (a fan-out chunk's `levels`); read when absent. */
  layout?: ProgressLayout;
}

/** What happened to one key. */
export type KeyStatus = 'polled' | 'purged' | 'unwatched' | 'not-found' | 'failed' | 'deferred';

export interface KeyOutcome {
  primaryKey: string;
  status: KeyStatus;
  /** Events SQS accepted for this key. */
  emitted: number;
  /** Of those, reviews whose XML could not be parsed. */
  parseErrors: number;
  /** Reviews that could not be emitted this time (fetch failed or SQS refused). */
  reviewsFailed: number;
  /** Of the emitted, reviews passed with `messageError` after failing on `failureLimit` consecutive runs. */
  emittedAsFailed: number;
  error?: string;
}

/** Totals of one `pollReviewKeys` call. */
export interface ReviewPollReport {
  keys: number;
  /** Keys whose reviews were listed and handled completely. */
  keysPolled: number;
  /** Keys with at least one failure; their unemitted reviews are tried again next run. */
  keysFailed: number;
  keysPurged: number;
  /** Keys the PDS answered 404 for; they stay watched until they expire. */
  keysNotFound: number;
  /** Keys removed from the watch list since they were listed. */
  keysUnwatched: number;
  /** Keys not started because the deadline came. */
  keysDeferred: number;
  reviewsEmitted: number;
  parseErrors: number;
  reviewsFailed: number;
  /** Of the emitted, reviews passed with `messageError` after failing on consecutive runs. */
  reviewsEmittedAsFailed: number;
  /** The failed keys (at most 50), for logs and errors. */
  failedKeys: string[];
}

const LISTED_FAILED_KEYS = 50;

interface KeyContext {
  deps: ReviewPollDeps;
  logger: Log;
  sink: EventSink;
  limit: Limiter;
  now: () => Date;
  source: string | undefined;
  failureLimit: number;
}

type Built =
  | { ok: true; fingerprint: string; event: CloudEvent<'pds.supplier-review.received'>; passed?: boolean }
  | { ok: false; fingerprint: string; error: unknown };

/** A key to poll: its primary key, and the ETag of its watch entry when the caller listed it. */
export type KeyToPoll = string | { primaryKey: string; etag?: string | undefined };

/** One key's outcome, and its progress to record: a new value, `null` to forget it, or unchanged. */
interface PolledKey {
  outcome: KeyOutcome;
  progress?: KeyProgress | null;
}

/**
 * The progress to start from: the remembered one when the listing shows the watch entry unchanged
 * since (no read), else the entry read now, with its progress carried over (from an entry written
 * before progress was kept apart, the entry's own `seen` and `failing`).
 */
async function startingProgress(
  key: { primaryKey: string; etag?: string | undefined },
  remembered: KeyProgress | undefined,
  store: StateStore,
): Promise<{ progress: KeyProgress; reread: boolean } | undefined> {
  if (remembered && key.etag !== undefined && remembered.watchEtag === key.etag) {
    return { progress: remembered, reread: false };
  }
  const read = await readWatchEntry(store, key.primaryKey);
  if (!read) return undefined;
  const failing = remembered ? remembered.failing : read.entry.failing;
  const missingSince = remembered?.missingSince;
  return {
    progress: {
      watchEtag: read.etag,
      expiresAt: read.entry.expiresAt,
      seen: remembered?.seen ?? read.entry.seen ?? [],
      ...(failing ? { failing } : {}),
      ...(missingSince ? { missingSince } : {}),
    },
    reread: true,
  };
}

/** The fresh reviews of one key being polled, and what the steps that emit them share. */
interface KeyBatch {
  primaryKey: string;
  fresh: Map<string, SupplierReview>;
  options: { time: Date; source?: string };
  /** This run's count of consecutive failed runs of a review. */
  failedRuns: (fingerprint: string) => number;
  /** The event that passes a review on without its message, at the failure limit. */
  passedEvent: (
    fingerprint: string,
    messageError: MessageFetchError,
  ) => CloudEvent<'pds.supplier-review.received'>;
}

type Accepted = Built & { ok: true };

async function pollKey(
  key: { primaryKey: string; etag?: string | undefined },
  remembered: KeyProgress | undefined,
  context: KeyContext,
): Promise<PolledKey> {
  const { primaryKey } = key;
  const outcome: KeyOutcome = {
    primaryKey,
    status: 'polled',
    emitted: 0,
    parseErrors: 0,
    reviewsFailed: 0,
    emittedAsFailed: 0,
  };
  const now = context.now();
  const start = await startingProgress(key, remembered, context.deps.store);
  if (!start)
    return { outcome: { ...outcome, status: 'unwatched' }, progress: remembered ? null : undefined };
  const { progress: entry, reread } = start;
  // A re-read entry is remembered (its ETag and expiry) even when nothing else changes.
  const unchanged = reread ? entry : undefined;
  if (entry.expiresAt <= now.toISOString()) return purgeExpired(primaryKey, entry, outcome, now, context);

  const listed = await listReviews(primaryKey, entry, context);
  if (!Array.isArray(listed)) {
    if (listed.status === 'not-found' && entry.missingSince === undefined) {
      return { outcome: { ...outcome, ...listed }, progress: { ...entry, missingSince: now.toISOString() } };
    }
    return { outcome: { ...outcome, ...listed }, progress: unchanged };
  }
  const { missingSince, ...present } = entry;
  if (missingSince !== undefined) {
    context.logger.info('The PDS knows this watched item again', { primaryKey, missingSince });
  }
  const fresh = freshReviews(present, listed);
  if (fresh.size === 0) return { outcome, progress: missingSince !== undefined ? present : unchanged };

  const batch = keyBatch(primaryKey, fresh, present, now, context);
  const built = await buildReviewEvents(batch, context);
  const { accepted, failed, publishError } = await publishReviewEvents(batch, built, context);
  // Before the progress is recorded: should the ledger fail, the key's reviews come again next run
  // (the same events, the same ids) and the ledger applies them then.
  const ledgerError = await recordConfirmations(primaryKey, accepted, context);
  if (ledgerError !== undefined) {
    const failedOutcome = { ...outcome, status: 'failed' as const, emitted: accepted.length };
    return { outcome: { ...failedOutcome, error: errorSummary(ledgerError.error) }, progress: unchanged };
  }
  const progress = nextProgress(present, { emitted: accepted.map((item) => item.fingerprint), failed, now });

  outcome.emitted = accepted.length;
  outcome.parseErrors = accepted.filter((item) => item.event.data.parseError !== undefined).length;
  outcome.emittedAsFailed = accepted.filter((item) => item.passed).length;
  outcome.reviewsFailed = fresh.size - accepted.length;
  if (outcome.reviewsFailed > 0) {
    outcome.status = 'failed';
    outcome.error = publishError ? publishError.message : failed[0]?.reason;
  }
  logPassedAndUnparsed(primaryKey, accepted, context.logger);
  return { outcome, progress };
}

/** An expired watch entry: purged, or deferred when someone refreshed it meanwhile. */
async function purgeExpired(
  primaryKey: string,
  entry: KeyProgress,
  outcome: KeyOutcome,
  now: Date,
  context: KeyContext,
): Promise<PolledKey> {
  const purged = await purgeIfExpired(context.deps.store, primaryKey, now);
  if (purged) context.logger.info('Watch entry expired; purged', { primaryKey, expiresAt: entry.expiresAt });
  // Not purged means someone refreshed it meanwhile: it is polled on the next run.
  return purged
    ? { outcome: { ...outcome, status: 'purged' }, progress: null }
    : { outcome: { ...outcome, status: 'deferred' } };
}

/** The key's supplier reviews, or the key's outcome when the PDS could not list them. */
async function listReviews(
  primaryKey: string,
  entry: KeyProgress,
  context: KeyContext,
): Promise<SupplierReview[] | Pick<KeyOutcome, 'status' | 'error'>> {
  const { deps, logger, limit } = context;
  try {
    return await limit(() => deps.pds.listSupplierReviews(primaryKey));
  } catch (error) {
    if (error instanceof PdsNotFoundError) {
      // Warned once (the caller records missingSince); the later runs only count it.
      if (entry.missingSince === undefined) {
        logger.warn('The PDS does not know this watched item; it stays watched until it expires', {
          primaryKey,
          expiresAt: entry.expiresAt,
        });
      }
      return { status: 'not-found' };
    }
    logger.warn('Supplier reviews could not be listed; the key is polled again on the next run', {
      primaryKey,
      ...errorFields(error),
    });
    return { status: 'failed', error: errorSummary(error) };
  }
}

/** The reviews not emitted before, by fingerprint (a review listed twice counts once). */
function freshReviews(entry: KeyProgress, reviews: SupplierReview[]): Map<string, SupplierReview> {
  const seen = new Set(entry.seen);
  const fresh = new Map<string, SupplierReview>();
  for (const review of reviews) {
    const fingerprint = reviewFingerprint(review);
    if (!seen.has(fingerprint) && !fresh.has(fingerprint)) fresh.set(fingerprint, review);
  }
  return fresh;
}

function keyBatch(
  primaryKey: string,
  fresh: Map<string, SupplierReview>,
  entry: KeyProgress,
  now: Date,
  context: KeyContext,
): KeyBatch {
  const options = pollEventOptions(now, context.source);
  const failedRunsBefore = new Map(
    (entry.failing ?? []).map((failure) => [failure.fingerprint, failure.attempts]),
  );
  return {
    primaryKey,
    fresh,
    options,
    failedRuns: (fingerprint) => (failedRunsBefore.get(fingerprint) ?? 0) + 1,
    passedEvent: (fingerprint, messageError) =>
      reviewEvent(fresh.get(fingerprint) as SupplierReview, fingerprint, { error: messageError }, options),
  };
}

/** Each fresh review's event, its message fetched; a review whose fetch failed is kept for a retry. */
function buildReviewEvents(batch: KeyBatch, context: KeyContext): Promise<Built[]> {
  const { deps, logger, limit } = context;
  const { primaryKey, options, failedRuns } = batch;
  return Promise.all(
    [...batch.fresh].map(async ([fingerprint, review]): Promise<Built> => {
      try {
        const xml = await limit(() => deps.pds.getMessagingAsset(review.messagingAssetId));
        return { ok: true, fingerprint, event: reviewEvent(review, fingerprint, { xml }, options) };
      } catch (error) {
        if (error instanceof PdsNotFoundError) {
          const messageError = missingMessageError(error);
          logger.warn('The message of a supplier review no longer exists; the review is emitted without it', {
            primaryKey,
            messagingAssetId: review.messagingAssetId,
          });
          return {
            ok: true,
            fingerprint,
            event: reviewEvent(review, fingerprint, { error: messageError }, options),
          };
        }
        const messageError = passedFetchError(error, failedRuns(fingerprint), context.failureLimit);
        if (messageError) {
          return { ok: true, fingerprint, event: batch.passedEvent(fingerprint, messageError), passed: true };
        }
        logger.warn(
          'The message of a supplier review could not be fetched; the review is tried again on the next run',
          {
            primaryKey,
            messagingAssetId: review.messagingAssetId,
            failedRuns: failedRuns(fingerprint),
            failureLimit: context.failureLimit,
            ...errorFields(error),
          },
        );
        return { ok: false, fingerprint, error };
      }
    }),
  );
}

/**
 * The built events published. Events SQS refuses as invalid: recorded for a retry, or, at the
 * failure limit, sent again without the message (one more round).
 */
async function publishReviewEvents(
  batch: KeyBatch,
  built: Built[],
  context: KeyContext,
): Promise<{
  accepted: Accepted[];
  failed: Array<{ fingerprint: string; reason: string }>;
  publishError: Error | undefined;
}> {
  const { primaryKey, failedRuns } = batch;
  const failed: Array<{ fingerprint: string; reason: string }> = built
    .filter((item) => !item.ok)
    .map((item) => ({ fingerprint: item.fingerprint, reason: errorSummary(item.error) }));
  const sent = await publishPassingRefused<Accepted>(
    context.sink,
    built.filter((item): item is Accepted => item.ok),
    {
      eventOf: (item) => item.event,
      isPassed: (item) => item.passed === true,
      failedRuns: (item) => failedRuns(item.fingerprint),
      failureLimit: context.failureLimit,
      passed: (item, messageError) => ({
        ok: true,
        fingerprint: item.fingerprint,
        event: batch.passedEvent(item.fingerprint, messageError),
        passed: true,
      }),
    },
  );
  for (const { item, failure } of sent.refused) {
    failed.push({ fingerprint: item.fingerprint, reason: describeRefusal(failure) });
    context.logger.warn(
      'SQS refused the event of a supplier review as invalid; it is tried again on the next run',
      {
        primaryKey,
        messagingAssetId: item.event.data.messagingAssetId,
        failedRuns: failedRuns(item.fingerprint),
        failureLimit: context.failureLimit,
        reason: describeRefusal(failure),
      },
    );
  }
  return { accepted: sent.accepted, failed, publishError: sent.error };
}

/** The accepted reviews recorded in the confirmation ledger, if there is one; the error if not. */
async function recordConfirmations(
  primaryKey: string,
  accepted: Accepted[],
  context: KeyContext,
): Promise<{ error: unknown } | undefined> {
  const { confirmations } = context.deps;
  if (accepted.length === 0 || !confirmations) return undefined;
  try {
    await confirmations.recordReviews(accepted.map((item) => item.event));
    return undefined;
  } catch (error) {
    context.logger.warn(
      'The confirmation ledger could not record the reviews; they are polled again on the next run',
      {
        primaryKey,
        ...errorFields(error),
      },
    );
    return { error };
  }
}

/** Reviews emitted without their message (passed at the failure limit) or with unparsable XML. */
function logPassedAndUnparsed(primaryKey: string, accepted: Accepted[], logger: Log): void {
  for (const item of accepted) {
    if (item.passed) {
      logger.error(
        'Supplier review failed on consecutive runs; emitted with messageError and passed. Fetch its message from the PDS by messagingAssetId if it is needed.',
        {
          primaryKey,
          messagingAssetId: item.event.data.messagingAssetId,
          failedRuns: item.event.data.messageError?.failedRuns,
          reason: item.event.data.messageError?.message,
        },
      );
    }
    if (item.event.data.parseError) {
      logger.warn(
        'The message of a supplier review is not valid XML; emitted with parseError and the raw text',
        {
          primaryKey,
          messagingAssetId: item.event.data.messagingAssetId,
        },
      );
    }
  }
}

/**
 * The shards of the layout's current level the keys fall in, each read once with its keys' progress
 * carried over from older levels; when a newer run split the shards meanwhile (this run's chunk was
 * sent before), the layout is read again and the keys regrouped at the new level.
 */
async function loadShards(
  keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }>,
  store: StateStore,
  given: ProgressLayout | undefined,
): Promise<{ layout: ProgressLayout; shards: Map<number, ShardToPoll> }> {
  let layout = given ?? (await readLayout(store));
  for (let attempt = 1; ; attempt++) {
    const level = currentLevel(layout);
    const grouped = Map.groupBy(keys, (key) => progressShardOf(key.primaryKey, level));
    const shards = new Map<number, ShardToPoll>();
    await Promise.all(
      [...grouped].map(async ([shard, shardKeys]) => {
        const primaryKeys = shardKeys.map((key) => key.primaryKey);
        try {
          shards.set(shard, {
            keys: shardKeys,
            ...(await loadProgressShard(store, layout, shard, primaryKeys, { seal: true })),
          });
        } catch (error) {
          shards.set(shard, { keys: shardKeys, error });
        }
      }),
    );
    const changed = [...shards.values()].some((shard) => shard.error instanceof ProgressLayoutChangedError);
    if (!changed || attempt === 3) return { layout, shards };
    layout = await readLayout(store);
  }
}

type ShardToPoll = { keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }> } & (
  | (LoadedShard & { error?: undefined })
  | { error: unknown; read?: undefined; carried?: undefined }
);

/**
 * Polls the keys shard by shard (review-progress.ts): each shard's progress is read once
 * before its keys and written once after them, only after SQS accepted their events, together with
 * the progress carried over from older levels. Keys of all shards share one window of `width` keys in
 * flight; a key not started by `deadline` is left out.
 */
async function pollByShard(
  keys: ReadonlyArray<{ primaryKey: string; etag?: string | undefined }>,
  context: KeyContext,
  options: { width: number; deadline: number | undefined; layout: ProgressLayout | undefined },
): Promise<Map<string, Settled<KeyOutcome>>> {
  const settled = new Map<string, Settled<KeyOutcome>>();
  const keySlot = createLimiter(options.width);
  const { store } = context.deps;
  let loaded: Awaited<ReturnType<typeof loadShards>>;
  try {
    loaded = await loadShards(keys, store, options.layout);
  } catch (error) {
    for (const key of keys) settled.set(key.primaryKey, { ok: false, error });
    return settled;
  }
  await Promise.all(
    [...loaded.shards].map(async ([shard, { keys: shardKeys, read, carried, error }]) => {
      if (read === undefined) {
        for (const key of shardKeys) settled.set(key.primaryKey, { ok: false, error });
        return;
      }
      const changes = new Map<string, KeyProgress | null>();
      await Promise.all(
        shardKeys.map((key) =>
          keySlot(async () => {
            if (options.deadline !== undefined && Date.now() >= options.deadline) return;
            const remembered = read.progress.get(key.primaryKey) ?? carried.get(key.primaryKey);
            try {
              const polled = await pollKey(key, remembered, context);
              settled.set(key.primaryKey, { ok: true, value: polled.outcome });
              const progress = polled.progress === undefined ? carried.get(key.primaryKey) : polled.progress;
              if (progress !== undefined) changes.set(key.primaryKey, progress);
            } catch (error) {
              settled.set(key.primaryKey, { ok: false, error });
            }
          }),
        ),
      );
      try {
        await writeProgressShard(store, loaded.layout, shard, changes, read);
      } catch (error) {
        // Their events went out but are not recorded: the next run sends them again (same ids).
        for (const primaryKey of changes.keys()) settled.set(primaryKey, { ok: false, error });
      }
    }),
  );
  return settled;
}

/**
 * Polls the reviews of the given keys; one key's failure never stops the others.
 *
 * @example
 * const report = await pollReviewKeys({ pds, store, sink, logger }, chunk.keys, { concurrency: 8 });
 * if (report.keysFailed > 0) throw new Error(`keys failed: ${report.failedKeys.join(', ')}`);
 */
export async function pollReviewKeys(
  deps: ReviewPollDeps,
  keys: readonly KeyToPoll[],
  options: ReviewPollOptions = {},
): Promise<ReviewPollReport> {
  const concurrency = options.concurrency ?? 8;
  const context: KeyContext = {
    deps,
    logger: deps.logger ?? silentLog,
    sink: new CoalescingSink(deps.sink),
    limit: createLimiter(concurrency),
    now: options.now ?? (() => new Date()),
    source: options.source,
    failureLimit: checkedFailureLimit(options.failureLimit),
  };
  const unique = uniqueKeys(keys);
  const settled = await pollByShard(unique, context, {
    width: concurrency * 4,
    deadline: options.deadline,
    layout: options.layout,
  });
  const report = emptyReviewPollReport(unique.length);
  for (const { primaryKey } of unique) {
    countOutcome(report, primaryKey, keyOutcomeOf(primaryKey, settled.get(primaryKey), context.logger));
  }
  return report;
}

/** The keys, each once (the first listing of a key wins, with its ETag). */
function uniqueKeys(keys: readonly KeyToPoll[]): Array<{ primaryKey: string; etag?: string | undefined }> {
  const byKey = new Map<string, { primaryKey: string; etag?: string | undefined }>();
  for (const key of keys) {
    const listed = typeof key === 'string' ? { primaryKey: key } : key;
    if (!byKey.has(listed.primaryKey)) byKey.set(listed.primaryKey, listed);
  }
  return [...byKey.values()];
}

function emptyReviewPollReport(keys: number): ReviewPollReport {
  return {
    keys,
    keysPolled: 0,
    keysFailed: 0,
    keysPurged: 0,
    keysNotFound: 0,
    keysUnwatched: 0,
    keysDeferred: 0,
    reviewsEmitted: 0,
    parseErrors: 0,
    reviewsFailed: 0,
    reviewsEmittedAsFailed: 0,
    failedKeys: [],
  };
}

/** A key's outcome: `deferred` when it was not started, `failed` (and logged) when its polling threw. */
function keyOutcomeOf(primaryKey: string, result: Settled<KeyOutcome> | undefined, logger: Log): KeyOutcome {
  const none = (status: KeyStatus): KeyOutcome => ({
    primaryKey,
    status,
    emitted: 0,
    parseErrors: 0,
    reviewsFailed: 0,
    emittedAsFailed: 0,
  });
  if (result === undefined) return none('deferred');
  if (result.ok) return result.value;
  // A state-store failure on this key: counted like any other failure of the key.
  logger.warn('Polling a watched key failed; it is polled again on the next run', {
    primaryKey,
    ...errorFields(result.error),
  });
  return { ...none('failed'), error: errorSummary(result.error) };
}

function countOutcome(report: ReviewPollReport, primaryKey: string, outcome: KeyOutcome): void {
  report.reviewsEmitted += outcome.emitted;
  report.parseErrors += outcome.parseErrors;
  report.reviewsFailed += outcome.reviewsFailed;
  report.reviewsEmittedAsFailed += outcome.emittedAsFailed;
  switch (outcome.status) {
    case 'polled':
      report.keysPolled++;
      break;
    case 'failed':
      report.keysFailed++;
      if (report.failedKeys.length < LISTED_FAILED_KEYS) report.failedKeys.push(primaryKey);
      break;
    case 'purged':
      report.keysPurged++;
      break;
    case 'not-found':
      report.keysNotFound++;
      break;
    case 'unwatched':
      report.keysUnwatched++;
      break;
    case 'deferred':
      report.keysDeferred++;
      break;
  }
}

export interface ScheduledReviewPollOptions extends ReviewPollOptions {
  /** Most keys polled inside the scheduled run; above it the keys are fanned out. Default 200. */
  inlineMax?: number;
  /** Keys per fan-out message; default 100. */
  chunkSize?: number;
  /** The fan-out queue; without it every key is polled inline. */
  queue?: ReviewKeyQueue;
  /** Identifies the run in fan-out messages (the Lambda request id). */
  runId: string;
}

/** What the scheduled run did: polled inline (with the totals), or sent chunks to the worker. */
export type ScheduledReviewPollReport =
  | ({ mode: 'inline'; watched: number } & ReviewPollReport)
  | { mode: 'fan-out'; watched: number; chunks: number };

/**
 * The scheduled run: reads the watch list and polls it inline or fans it out.
 *
 * @example
 * const report = await pollSupplierReviews({ pds, store, sink, logger }, { runId: context.awsRequestId, queue });
 */
export async function pollSupplierReviews(
  deps: ReviewPollDeps,
  options: ScheduledReviewPollOptions,
): Promise<ScheduledReviewPollReport> {
  const inlineMax = options.inlineMax ?? 200;
  const keys: WatchedKey[] = [];
  for await (const key of watchedKeys(deps.store)) keys.push(key);
  const layout = await growLayout(deps.store, keys.length);

  if (keys.length > inlineMax && options.queue) {
    // A shard's keys travel together, so one worker reads and writes its progress once.
    const level = currentLevel(layout);
    const shardOf = (key: WatchedKey) => progressShardOf(key.primaryKey, level);
    const byShard = keys.toSorted((a, b) => shardOf(a) - shardOf(b));
    const chunks = chunkKeys(byShard, {
      chunkSize: options.chunkSize ?? DEFAULT_CHUNK_SIZE,
      runId: options.runId,
      now: (options.now ?? (() => new Date()))(),
      shards: { levels: layout.levels, of: (primaryKey) => progressShardOf(primaryKey, level) },
    });
    await options.queue.send(chunks);
    return { mode: 'fan-out', watched: keys.length, chunks: chunks.length };
  }
  if (keys.length > inlineMax) {
    (deps.logger ?? silentLog).warn(
      'More watched keys than POLL_REVIEWS_INLINE_MAX and no fan-out queue; polling inline',
      {
        watched: keys.length,
        inlineMax,
      },
    );
  }
  return {
    mode: 'inline',
    watched: keys.length,
    ...(await pollReviewKeys(deps, keys, { ...options, layout })),
  };
}
