/**
 * What the pollers and the publish worker heard, turned into ledger facts (./entry.ts). Each fact's
 * id depends only on the message it comes from, so the review poller and the messaging-asset poller
 * reading the same CIC give the same fact, and the ledger keeps it once.
 */
import type { ConfirmationCorrectiveAction, ConfirmationReason } from '../events/data/index.ts';
import type { SupplierReview } from '../pds/index.ts';
import type { CicSummary, GdsnError, GdsnMessageSummary } from '../xml/index.ts';
import { type Fact, REFUSED_BY_DATA_POOL } from './entry.ts';

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
    const description = status.descriptions.find((one) => one.text !== '')?.text;
    const longDescription = status.longDescriptions?.find((one) => one.text !== '')?.text;
    const base = {
      statusCode: status.code,
      ...(description ? { description } : {}),
      ...(status.gtin ? { gtin: status.gtin } : {}),
      ...(longDescription ? { longDescription } : {}),
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

/**
 * Why the recipient answered as it did: the first long description (GS1's own sample puts the real
 * text there; the short one is often boilerplate), else the first description; `undefined` when the
 * confirmation gives no text.
 */
export function confirmationReason(cic: CicSummary): ConfirmationReason | undefined {
  const texts = cic.statuses.flatMap((status) => [
    ...(status.longDescriptions ?? []).map((long) => ({ code: status.code, text: long.text, long: true })),
    ...status.descriptions.map((description) => ({ code: status.code, text: description.text, long: false })),
  ]);
  const chosen = texts.find((text) => text.long && text.text) ?? texts.find((text) => text.text);
  if (chosen === undefined) return undefined;
  const senderGln = cic.creatorGln ?? cic.recipientGln;
  return {
    source: 'recipient',
    ...(chosen.code ? { code: chosen.code } : {}),
    text: chosen.text,
    ...(senderGln ? { senderGln } : {}),
  };
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
    ...withReason(confirmationReason(cic)),
    gtin,
    ...(cic.recipientGln ? { recipientGln: cic.recipientGln } : {}),
    ...(cic.targetMarketCountryCode ? { targetMarket: cic.targetMarketCountryCode } : {}),
  };
}

function withReason(reason: ConfirmationReason | undefined): { reason?: ConfirmationReason } {
  return reason ? { reason } : {};
}

/** The most specific error first: document and attribute errors name the refused item. */
const LEVEL_ORDER: Record<GdsnError['level'], number> = {
  document: 0,
  attribute: 1,
  command: 2,
  transaction: 3,
  message: 4,
};

/** The one-line reason of a refusal: its most specific error with a text, else its status. */
export function refusalReason(gdsn: GdsnMessageSummary): ConfirmationReason {
  const errors = [...(gdsn.errors ?? [])].sort((a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level]);
  const error = errors.find((one) => one.description) ?? errors[0];
  const text =
    error?.description ??
    `${gdsn.messageType === 'catalogueItemRegistrationResponse' ? 'registration' : 'message'} ${gdsn.status ?? 'refused'} by ${gdsn.senderGln ?? 'the data pool'}, no error text given`;
  return {
    source: 'data-pool',
    ...(error?.code ? { code: error.code } : {}),
    text,
    ...(gdsn.senderGln ? { senderGln: gdsn.senderGln } : {}),
  };
}

/**
 * The fact of a refusal by the data pool or the Global Registry (messaging asset `messagingAssetId`):
 * REFUSED_BY_DATA_POOL at the message's own time, each error as a corrective action (its code as the
 * status code). The same id whichever poller read it.
 */
export function refusalFact(
  gdsn: GdsnMessageSummary,
  messagingAssetId: number,
  fallbackTime: Date,
  reviewId?: string,
): Fact {
  return {
    id: `refusal:${messagingAssetId}`,
    kind: 'refusal',
    state: REFUSED_BY_DATA_POOL,
    at: factTime(gdsn.creationDateTime, fallbackTime),
    messagingAssetId,
    ...(reviewId ? { reviewId } : {}),
    correctiveActions: (gdsn.errors ?? []).map((error) => ({
      statusCode: error.code,
      code: '',
      ...(error.description ? { description: error.description } : {}),
      ...(error.gtins?.length === 1 ? { gtin: error.gtins[0] } : {}),
    })),
    reason: refusalReason(gdsn),
  };
}

/** The primary keys a refusal names: the asset's own, else the GTIN-14 of each item it names. */
export function refusedKeys(gdsn: GdsnMessageSummary, primaryKey: string | undefined): string[] {
  if (primaryKey) return [primaryKey];
  return [...new Set(gdsn.items.map((item) => gtin14(item.gtin)).filter(Boolean))];
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
