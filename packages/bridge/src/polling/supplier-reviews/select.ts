/**
 * The select stage of the supplier-review poller, per key: the progress to start from (its watch
 * entry read only when the listing shows it changed), an expired entry purged, the key's reviews
 * listed, and of those the fresh ones (fingerprints not recorded yet).
 */
import { errorFields, errorSummary } from '../../core/index.ts';
import { PdsNotFoundError, type SupplierReview } from '../../pds/index.ts';
import type { StateStore } from '../../state/index.ts';
import { purgeIfExpired, readWatchEntry } from '../../state/watch-list.ts';
import { reviewFingerprint } from './fingerprint.ts';
import type { KeyProgress } from './review-progress.ts';
import type { KeyContext, KeyOutcome, PolledKey } from './types.ts';

/**
 * The progress to start from: the remembered one when the listing shows the watch entry unchanged
 * since (no read), else the entry read now, with its progress carried over (from an entry written
 * before progress was kept apart, the entry's own `seen` and `failing`).
 */
export async function startingProgress(
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

/** An expired watch entry: purged, or deferred when someone refreshed it meanwhile. */
export async function purgeExpired(
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
export async function listReviews(
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
export function freshReviews(entry: KeyProgress, reviews: SupplierReview[]): Map<string, SupplierReview> {
  const seen = new Set(entry.seen);
  const fresh = new Map<string, SupplierReview>();
  for (const review of reviews) {
    const fingerprint = reviewFingerprint(review);
    if (!seen.has(fingerprint) && !fresh.has(fingerprint)) fresh.set(fingerprint, review);
  }
  return fresh;
}
