/**
 * One watched key through the supplier-review poller's stages: select what is new (select.ts) →
 * fetch and parse (fetch.ts) → publish, and tell the ledger (publish.ts) → the progress to record,
 * handed back to the shard it belongs to (shards.ts writes it). Each stage returns what the next one
 * needs; the key's outcome is built from what they returned.
 */
import { errorSummary } from '../../core/index.ts';
import type { SupplierReview } from '../../pds/index.ts';
import { buildReviewEvents, keyBatch } from './fetch.ts';
import { logPassedAndUnparsed, publishReviewEvents, recordConfirmations } from './publish.ts';
import { type KeyProgress, nextProgress } from './review-progress.ts';
import { freshReviews, listReviews, purgeExpired, startingProgress } from './select.ts';
import type { KeyContext, KeyOutcome, PolledKey } from './types.ts';

/** A key's outcome before anything happened to it. */
export function emptyKeyOutcome(primaryKey: string): KeyOutcome {
  return { primaryKey, status: 'polled', emitted: 0, parseErrors: 0, reviewsFailed: 0, emittedAsFailed: 0 };
}

/** Polls one key: its outcome, and its progress to record (a new value, `null` to forget it, or unchanged). */
export async function pollKey(
  key: { primaryKey: string; etag?: string | undefined },
  remembered: KeyProgress | undefined,
  context: KeyContext,
): Promise<PolledKey> {
  const { primaryKey } = key;
  const outcome = emptyKeyOutcome(primaryKey);
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
  return emitFresh(primaryKey, fresh, { present, unchanged, now }, context);
}

/** The fresh reviews of a key fetched, parsed, published and told to the ledger; the progress to record. */
async function emitFresh(
  primaryKey: string,
  fresh: Map<string, SupplierReview>,
  progress: { present: KeyProgress; unchanged: KeyProgress | undefined; now: Date },
  context: KeyContext,
): Promise<PolledKey> {
  const { present, unchanged, now } = progress;
  const batch = keyBatch(primaryKey, fresh, present, now, context);
  const built = await buildReviewEvents(batch, context);
  const { accepted, failed, publishError } = await publishReviewEvents(batch, built, context);
  // Before the progress is recorded: should the ledger fail, the key's reviews come again next run
  // (the same events, the same ids) and the ledger applies them then.
  const ledger = await recordConfirmations(batch, accepted, context);
  if ('error' in ledger) {
    const failedOutcome = {
      ...emptyKeyOutcome(primaryKey),
      status: 'failed' as const,
      emitted: accepted.length,
    };
    return { outcome: { ...failedOutcome, error: errorSummary(ledger.error) }, progress: unchanged };
  }
  // A review the ledger failed on is kept for a retry like any poison review (its event was sent).
  const notApplied = new Set(ledger.failed.map((item) => item.fingerprint));
  failed.push(...ledger.failed);
  const emitted = accepted
    .filter((item) => !notApplied.has(item.fingerprint))
    .map((item) => item.fingerprint);
  const next = nextProgress(present, { emitted, failed, now });
  const reviewsFailed = fresh.size - emitted.length;
  const outcome: KeyOutcome = {
    primaryKey,
    status: reviewsFailed > 0 ? 'failed' : 'polled',
    emitted: accepted.length,
    parseErrors: accepted.filter((item) => item.event.data.parseError !== undefined).length,
    reviewsFailed,
    emittedAsFailed: accepted.filter((item) => item.passed).length,
    ...(reviewsFailed > 0 ? { error: publishError ? publishError.message : failed[0]?.reason } : {}),
  };
  logPassedAndUnparsed(primaryKey, accepted, context.logger);
  return { outcome, progress: next };
}
