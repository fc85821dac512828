/**
 * The supplier-review poller: for every watched primary key, list its reviews, take those whose
 * fingerprint (fingerprint.ts) is not yet recorded on the key's watch entry, fetch and parse the XML
 * each points to, emit `pds.supplier-review.received`, and record the fingerprints only after SQS
 * accepted the events. A crash in between re-emits the same reviews with identical event ids.
 *
 * Each key goes through stages that hand values on (key.ts): select what is new (select.ts) → fetch
 * and parse (fetch.ts) → publish and tell the ledger (publish.ts) → the progress to record, written
 * once per shard (shards.ts); the report is folded from the keys' outcomes (report.ts).
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
 *   `messageError`. So is a review that failed on `failureLimit` consecutive runs (../poison.ts; the
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

import { createLimiter, silentLog } from '../../core/index.ts';
import { type WatchedKey, watchedKeys } from '../../state/watch-list.ts';
import { checkedFailureLimit } from '../poison.ts';
import { CoalescingSink } from './coalescing-sink.ts';
import { addOutcome, emptyReviewPollReport, keyOutcomeOf } from './report.ts';
import { currentLevel, growLayout, progressShardOf } from './review-progress.ts';
import { chunkKeys, DEFAULT_CHUNK_SIZE } from './review-queue.ts';
import { pollByShard } from './shards.ts';
import type {
  KeyContext,
  KeyToPoll,
  ReviewPollDeps,
  ReviewPollOptions,
  ReviewPollReport,
  ScheduledReviewPollOptions,
  ScheduledReviewPollReport,
} from './types.ts';

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
  return unique
    .map(({ primaryKey }) => keyOutcomeOf(primaryKey, settled.get(primaryKey), context.logger))
    .reduce(addOutcome, emptyReviewPollReport(unique.length));
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
