/**
 * What the pollers and the publish worker heard, turned into ledger facts (./entry.ts). Each fact's
 * id depends only on the message it comes from, so the review poller and the messaging-asset poller
 * reading the same CIC give the same fact, and the ledger keeps it once.
 */
import { boundedText } from '../core/index.ts';
import type { ConfirmationCorrectiveAction, ConfirmationReason } from '../events/data/index.ts';
import type { SupplierReview } from '../pds/index.ts';
import { sha256Hex } from '../state/index.ts';
import type { CicSummary, GdsnError, GdsnMessageSummary } from '../xml/index.ts';
import { type Fact, REFUSED_BY_DATA_POOL, REVIEW_WARNING } from './entry.ts';

/**
 * Characters kept of each text a partner writes into a fact (a reason, a description, a corrective
 * action's expected information); a longer one ends in "… (N more characters left out)". The whole
 * text stays in the message's own event.
 */
export const MAX_FACT_TEXT = 1000;
/** Corrective actions (or a refusal's errors) kept per fact, the first; the rest stay in the event. */
export const MAX_CORRECTIVE_ACTIONS = 20;
/** Characters of a fact id built from a partner's identifiers before it is hashed. */
const MAX_FACT_ID = 200;

function capped(text: string): string {
  return boundedText(text, MAX_FACT_TEXT);
}

/** A fact id as given while short, else its prefix and a hash (ids are remembered in `seen`). */
function boundedFactId(prefix: string, rest: string): string {
  const id = `${prefix}${rest}`;
  return id.length <= MAX_FACT_ID ? id : `${prefix}sha256:${sha256Hex(rest)}`;
}

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
      statusCode: capped(status.code),
      ...(description ? { description: capped(description) } : {}),
      ...(status.gtin ? { gtin: capped(status.gtin) } : {}),
      ...(longDescription ? { longDescription: capped(longDescription) } : {}),
    };
    if (status.correctiveActions.length === 0) {
      // A status without an action still tells the supplier what is wrong.
      actions.push({ ...base, code: '' });
      continue;
    }
    for (const action of status.correctiveActions) {
      actions.push({
        ...base,
        code: capped(action.code),
        ...(action.expectedCorrectiveInformation
          ? { expectedCorrectiveInformation: capped(action.expectedCorrectiveInformation) }
          : {}),
      });
    }
  }
  return actions.slice(0, MAX_CORRECTIVE_ACTIONS);
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
    ...(chosen.code ? { code: capped(chosen.code) } : {}),
    text: capped(chosen.text),
    ...(senderGln ? { senderGln: capped(senderGln) } : {}),
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
    id: boundedFactId(
      `asset:${messagingAssetId}:`,
      `${gtin}:${cic.recipientGln ?? ''}:${cic.targetMarketCountryCode ?? ''}`,
    ),
    kind: 'confirmation',
    state: isWarningOnly(cic) ? REVIEW_WARNING : capped(cic.state),
    at: factTime(cic.creationDateTime, fallbackTime),
    messagingAssetId,
    ...(reviewId ? { reviewId } : {}),
    correctiveActions: correctiveActionsOf(cic),
    ...withReason(confirmationReason(cic)),
    gtin: capped(gtin),
    ...(cic.recipientGln ? { recipientGln: cic.recipientGln } : {}),
    ...(cic.targetMarketCountryCode ? { targetMarket: cic.targetMarketCountryCode } : {}),
  };
}

/**
 * True for a REVIEW whose statuses all carry corrective actions and every one is WARNING: GS1's way
 * (status CIC999, action WARNING) of saying "noted, but the item will synchronise".
 */
export function isWarningOnly(cic: CicSummary): boolean {
  if (cic.state !== 'REVIEW' || cic.statuses.length === 0) return false;
  return cic.statuses.every(
    (status) =>
      status.correctiveActions.length > 0 &&
      status.correctiveActions.every((action) => action.code.trim().toUpperCase() === 'WARNING'),
  );
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
    ...(error?.code ? { code: capped(error.code) } : {}),
    text: capped(text),
    ...(gdsn.senderGln ? { senderGln: capped(gdsn.senderGln) } : {}),
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
    correctiveActions: (gdsn.errors ?? []).slice(0, MAX_CORRECTIVE_ACTIONS).map((error) => ({
      statusCode: capped(error.code),
      code: '',
      ...(error.description ? { description: capped(error.description) } : {}),
      ...(error.gtins?.length === 1 && error.gtins[0] ? { gtin: capped(error.gtins[0]) } : {}),
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
    state: capped(review.reviewStatus),
    at: factTime(review.date, fallbackTime),
    messagingAssetId: review.messagingAssetId,
    reviewId,
  };
}

/**
 * The fact of a publication (AWAITING until an answer created after it, or the deadline): `at` when
 * the PDS accepted it, `requestedAt` when the bridge accepted the request, before anything was sent.
 */
export function publicationFact(publicationId: string, publishedAt: string, requestedAt?: string): Fact {
  return {
    id: `publication:${publicationId}`,
    kind: 'publication',
    state: 'AWAITING',
    at: publishedAt,
    ...(requestedAt && Date.parse(requestedAt) < Date.parse(publishedAt) ? { requestedAt } : {}),
    publicationId,
  };
}
