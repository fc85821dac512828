/**
 * What the pollers and the publish worker heard, turned into ledger facts (./entry.ts). Each fact's
 * id depends only on the message it comes from, so the review poller and the messaging-asset poller
 * reading the same CIC give the same fact, and the ledger keeps it once.
 */
import type { ConfirmationCorrectiveAction } from '../events/index.ts';
import type { SupplierReview } from '../pds/index.ts';
import type { CicSummary } from '../xml/index.ts';
import type { Fact } from './entry.ts';

/** A GTIN as GTIN-14: digits left-padded with zeros (GTIN-8/12/13 are GTIN-14 with leading zeros). */
export function gtin14(gtin: string): string {
  const trimmed = gtin.trim();
  return /^\d{1,14}$/.test(trimmed) ? trimmed.padStart(14, '0') : trimmed;
}

/** True when the CIC is about the item with this primary key (its GTIN is, or is part of, the key). */
export function cicMatchesItem(cic: CicSummary, primaryKey: string): boolean {
  const gtin = gtin14(cic.gtin);
  return primaryKey === cic.gtin || primaryKey === gtin || primaryKey.includes(gtin);
}

/** A message's creation time as ISO, else `fallback` (a time the PDS gave, or when it was read). */
export function factTime(written: string | number | undefined, fallback: Date): string {
  const parsed = typeof written === 'number' ? written : written ? Date.parse(written) : Number.NaN;
  return Number.isFinite(parsed) ? new Date(parsed).toISOString() : fallback.toISOString();
}

export function correctiveActionsOf(cic: CicSummary): ConfirmationCorrectiveAction[] {
  const actions: ConfirmationCorrectiveAction[] = [];
  for (const status of cic.statuses) {
    const description = status.descriptions[0]?.text;
    const base = {
      statusCode: status.code,
      ...(description ? { description } : {}),
      ...(status.gtin ? { gtin: status.gtin } : {}),
    };
    if (status.correctiveActions.length === 0) {
      // A status without an action still tells the supplier what is wrong.
      actions.push({ ...base, code: '' });
      continue;
    }
    for (const action of status.correctiveActions) {
      actions.push({
        ...base,
        code: action.code,
        ...(action.expectedCorrectiveInformation
          ? { expectedCorrectiveInformation: action.expectedCorrectiveInformation }
          : {}),
      });
    }
  }
  return actions;
}

/** The fact of one CIC of messaging asset `messagingAssetId`. */
export function confirmationFact(
  cic: CicSummary,
  messagingAssetId: number,
  fallbackTime: Date,
  reviewId?: string,
): Fact {
  const gtin = gtin14(cic.gtin);
  return {
    id: `asset:${messagingAssetId}:${gtin}:${cic.recipientGln ?? ''}:${cic.targetMarketCountryCode ?? ''}`,
    kind: 'confirmation',
    state: cic.state,
    at: factTime(cic.creationDateTime, fallbackTime),
    messagingAssetId,
    ...(reviewId ? { reviewId } : {}),
    correctiveActions: correctiveActionsOf(cic),
    gtin,
    ...(cic.recipientGln ? { recipientGln: cic.recipientGln } : {}),
    ...(cic.targetMarketCountryCode ? { targetMarket: cic.targetMarketCountryCode } : {}),
  };
}

/** The fact of a supplier review whose message held no readable confirmation: its own status. */
export function reviewFact(review: SupplierReview, reviewId: string, fallbackTime: Date): Fact {
  return {
    id: `review:${reviewId}`,
    kind: 'review',
    state: review.reviewStatus,
    at: factTime(review.date, fallbackTime),
    messagingAssetId: review.messagingAssetId,
    reviewId,
  };
}

/** The fact of a publication (AWAITING until an answer created after it, or the deadline). */
export function publicationFact(publicationId: string, publishedAt: string): Fact {
  return {
    id: `publication:${publicationId}`,
    kind: 'publication',
    state: 'AWAITING',
    at: publishedAt,
    publicationId,
  };
}
