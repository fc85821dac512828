/**
 * Where the confirmation ledger keeps its entries and the publications' deadline marks in the state
 * bucket (docs/architecture.md, "The state bucket").
 */
import { decodeKeySegment, encodeKeyPart, encodeKeySegment, sha256Hex, statePrefix } from '../state/index.ts';

/** `confirmations/`: the ledger, one entry per item, channel and recipient (./ledger.ts). */
export const CONFIRMATIONS_PREFIX = statePrefix('confirmations', 'packages/bridge/src/confirmations');
/** `confirmation-deadlines/`: one mark per publication whose entries turn OVERDUE unless answered (./deadlines.ts). */
export const CONFIRMATION_DEADLINES_PREFIX = statePrefix(
  'confirmation-deadlines',
  'packages/bridge/src/confirmations',
);

/** `confirmation-index/`: markers that find entries by state and by GTIN (./entry-index.ts). */
export const CONFIRMATION_INDEX_PREFIX = statePrefix(
  'confirmation-index',
  'packages/bridge/src/confirmations',
);
/** `confirmation-expiry/`: one marker per settled entry under the day it expires (./entry-index.ts). */
export const CONFIRMATION_EXPIRY_PREFIX = statePrefix(
  'confirmation-expiry',
  'packages/bridge/src/confirmations',
);
/** `confirmation-index/states.json`: every state the ledger has recorded (the open set of review statuses included). */
export const CONFIRMATION_STATES_KEY = `${CONFIRMATION_INDEX_PREFIX}states.json`;

/** `confirmation-index/state/<state>/`: a marker per entry in that state. */
export function confirmationStatePrefix(state: string): string {
  return `${CONFIRMATION_INDEX_PREFIX}state/${encodeKeySegment(state)}/`;
}

/** `confirmation-index/gtin/<gtin>/`: a marker per entry of that GTIN. */
export function confirmationGtinPrefix(gtin: string): string {
  return `${CONFIRMATION_INDEX_PREFIX}gtin/${encodeKeySegment(gtin)}/`;
}

/** `confirmation-expiry/<YYYY-MM-DD>/`: the settled entries that expire that day (UTC). */
export function confirmationExpiryPrefix(day: string): string {
  return `${CONFIRMATION_EXPIRY_PREFIX}${encodeKeySegment(day)}/`;
}

/** The marker under `prefix` of the entry at `stateKey` (the entry key's part after `confirmations/`). */
export function confirmationMarkerKey(prefix: string, stateKey: string): string {
  return `${prefix}${stateKey.slice(CONFIRMATIONS_PREFIX.length)}`;
}

/** The entry a marker under `prefix` points to. */
export function entryKeyOfMarker(prefix: string, markerKey: string): string {
  return `${CONFIRMATIONS_PREFIX}${markerKey.slice(prefix.length)}`;
}

/** The recipient segment of the entry a channel starts with, before a confirmation names a recipient. */
export const FIRST_RECIPIENT = '_';

/**
 * `confirmations/<primaryKey>/<channelId>/<recipient>.json`: one entry of the confirmation ledger.
 * `recipient` is `_` for the channel's first entry, `<gln>.<targetMarket>` for further recipients a
 * channel's confirmations name. Store the parts inside the value too: long ones are hashed.
 */
export function confirmationKey(
  primaryKey: string,
  channelId: string,
  recipient?: { recipientGln?: string | undefined; targetMarket?: string | undefined },
): string {
  const last =
    recipient === undefined
      ? FIRST_RECIPIENT
      : `${encodeKeyPart(recipient.recipientGln || '-')}.${encodeKeyPart(recipient.targetMarket || '-')}`;
  return `${confirmationItemPrefix(primaryKey)}${encodeKeySegment(channelId)}/${last}.json`;
}

/** `confirmations/<primaryKey>/`: every entry of one item, all channels and recipients. */
export function confirmationItemPrefix(primaryKey: string): string {
  return `${CONFIRMATIONS_PREFIX}${encodeKeySegment(primaryKey)}/`;
}

/** `confirmations/<primaryKey>/<channelId>/`: every entry of one item at one channel. */
export function confirmationChannelPrefix(primaryKey: string, channelId: string): string {
  return `${confirmationItemPrefix(primaryKey)}${encodeKeySegment(channelId)}/`;
}

/**
 * `confirmation-deadlines/<deadline>/<sha256 of the publication id>.json`: listed in deadline order,
 * so the deadline check reads only what is due. `deadline` is an ISO time (all of one length, so
 * string order is time order).
 */
export function confirmationDeadlineKey(deadline: string, publicationId: string): string {
  return `${CONFIRMATION_DEADLINES_PREFIX}${encodeKeySegment(deadline)}/${sha256Hex(publicationId)}.json`;
}

/** The deadline of a key from {@link confirmationDeadlineKey}. */
export function deadlineOfConfirmationDeadlineKey(stateKey: string): string | undefined {
  const segment = stateKey.slice(CONFIRMATION_DEADLINES_PREFIX.length).split('/')[0];
  return segment ? decodeKeySegment(segment) : undefined;
}

/** What a deadline mark names: the publication, and each item at each channel whose entries to look at. */
export interface DeadlineMark {
  publicationId: string;
  deadline: string;
  pairs: Array<{ primaryKey: string; channelId: string }>;
}

/** `confirmation-stats/`: per recipient and day, what the ledger's transitions add up to (./recipient-stats.ts). */
export const CONFIRMATION_STATS_PREFIX = statePrefix(
  'confirmation-stats',
  'packages/bridge/src/confirmations',
);
/** `confirmation-stats/recipients/`: one document per recipient the stats have seen (the list the API pages). */
export const RECIPIENT_STATS_PREFIX = `${CONFIRMATION_STATS_PREFIX}recipients/`;

/**
 * `confirmation-stats/recipients/<channelId>/<recipient>.json`: a recipient the stats have seen.
 * `recipient` is `_` (the channel's first recipient, named by its first answer) or a GLN.
 */
export function recipientStatsKey(channelId: string, recipient: string): string {
  return `${RECIPIENT_STATS_PREFIX}${encodeKeySegment(channelId)}/${encodeKeySegment(recipient)}.json`;
}

/** `confirmation-stats/days/<channelId>/<recipient>/<YYYY-MM-DD>.json`: one recipient's day (UTC). */
export function recipientDayKey(channelId: string, recipient: string, day: string): string {
  return `${CONFIRMATION_STATS_PREFIX}days/${encodeKeySegment(channelId)}/${encodeKeySegment(recipient)}/${encodeKeySegment(day)}.json`;
}
