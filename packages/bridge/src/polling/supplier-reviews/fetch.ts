/**
 * The fetch and parse stages of the supplier-review poller, per key: each fresh review's message
 * fetched and its event built. A 404 on the message is final (emitted with `messageError`); another
 * failure is kept for a retry, or passed at the failure limit (../poison.ts).
 */
import { errorFields } from '../../core/index.ts';
import { PdsNotFoundError, type SupplierReview } from '../../pds/index.ts';
import { missingMessageError, pollEventOptions, reviewEvent } from '../events.ts';
import { passedFetchError } from '../poison.ts';
import type { KeyProgress } from './review-progress.ts';
import type { Built, KeyBatch, KeyContext } from './types.ts';

/** The fresh reviews of a key with what their events are built with. */
export function keyBatch(
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
export function buildReviewEvents(batch: KeyBatch, context: KeyContext): Promise<Built[]> {
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
