import { describe, expect, it } from 'vitest';
import type { SupplierReview } from '../../packages/bridge/src/pds/types.ts';
import {
  FINGERPRINT_LENGTH,
  reviewFingerprint,
} from '../../packages/bridge/src/polling/supplier-reviews/fingerprint.ts';
import { approvedReview } from '../helpers/polling.ts';

const REVIEW: SupplierReview = { ...approvedReview('0614141123452'), messagingAssetId: 42 };

describe('reviewFingerprint', () => {
  it('is the same for the same review, whatever the key order or descriptive fields', () => {
    // prepare
    const reordered = Object.fromEntries(Object.entries(REVIEW).reverse()) as unknown as SupplierReview;

    // act / assess
    expect(reviewFingerprint(reordered)).toBe(reviewFingerprint(REVIEW));
    expect(reviewFingerprint({ ...REVIEW, comment: 'typo fixed', reviewer: 'Someone else' })).toBe(
      reviewFingerprint(REVIEW),
    );
    expect(reviewFingerprint(REVIEW)).toMatch(new RegExp(`^[0-9a-f]{${FINGERPRINT_LENGTH}}$`));
  });

  it('changes with each identifying field', () => {
    // prepare
    const variants: SupplierReview[] = [
      { ...REVIEW, primaryKey: '0614141123469' },
      { ...REVIEW, messagingAssetId: 43 },
      { ...REVIEW, channelId: 'gdsn-nl' },
      { ...REVIEW, supplierId: '0614141000029' },
      { ...REVIEW, reviewStatus: 'REVIEW' },
      { ...REVIEW, date: REVIEW.date + 1 },
    ];

    // act
    const fingerprints = new Set([REVIEW, ...variants].map(reviewFingerprint));

    // assess
    expect(fingerprints.size).toBe(variants.length + 1);
  });
});
