/**
 * The stable fingerprint of a supplier review: how the poller tells a new review from one it already
 * emitted. The PDS gives reviews no id of their own, so the fingerprint is built from the fields that
 * identify one review: `primaryKey`, `messagingAssetId`, `channelId`, `supplierId`, `reviewStatus` and
 * `date`. Fields that describe the review (`comment`, `reviewer`, `supplier` names) are left out, so a
 * corrected comment or a renamed reviewer does not make an old review new again, while a new status
 * or a new message always does.
 *
 * The value is the first 32 hex digits (128 bits) of the SHA-256 of those fields as a JSON array:
 * short enough to keep a thousand per watched key, far from any collision.
 */
import { createHash } from 'node:crypto';
import type { SupplierReview } from '../../pds/index.ts';

/** Hex digits kept of the SHA-256. */
export const FINGERPRINT_LENGTH = 32;

/**
 * The fingerprint of a review; the same review always gives the same one, across runs and processes.
 *
 * @example
 * reviewFingerprint({ primaryKey: '04012345678901', messagingAssetId: 42, channelId: 'gdsn-de', supplierId: '4012345000009',
 *   reviewStatus: 'APPROVED', date: 1767603600000, supplier: 'ACME', reviewer: 'Retail', comment: '', messagingCreatorType: 'REVIEW' });
 * // '5e0c…' (32 hex digits)
 */
export function reviewFingerprint(review: SupplierReview): string {
  // A JSON array keeps field boundaries and types apart: ['a', 1] never equals ['a1'].
  const identity = JSON.stringify([
    review.primaryKey,
    review.messagingAssetId,
    review.channelId,
    review.supplierId,
    review.reviewStatus,
    review.date,
  ]);
  return createHash('sha256').update(identity, 'utf8').digest('hex').slice(0, FINGERPRINT_LENGTH);
}
