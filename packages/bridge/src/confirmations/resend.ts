/**
 * A recipient's resend request (RequestForCatalogueItemNotification, RFCIN) matched to the ledger,
 * and the republication it may trigger (REPUBLISH_ON_RESEND_REQUEST, off by default).
 *
 * The request is always a `pds.messaging-asset.received` event with its `gdsn` summary (consumers act
 * on it). With the setting on, the messaging-asset poller's ledger also republishes each item the
 * request names that the bridge published, to the channel it published it to, through the durable
 * publication path POST /publications uses (a publication record, then the publication queue, then
 * the publish worker; packages/bridge/src/publications/submit.ts). Never the PDS directly.
 *
 * Exactly once per request: the Idempotency-Key is derived from the messaging asset's id and the
 * channel ({@link resendIdempotencyKey}) under the caller `resend-request`, so a
 * re-polled asset, an audit's re-emission or a replay names the same publication record, and the
 * publication path answers it as a replay instead of queueing a second publication.
 */
import type { GdsnMessageSummary } from '../xml/index.ts';
import type { ConfirmationEntry, ResendRequestLink } from './entry.ts';
import { gtin14 } from './facts.ts';

/** Resend requests remembered per entry, the latest. */
export const MAX_RESEND_REQUESTS = 20;

/**
 * At most one republication per item and channel in this window, whatever the number of resend
 * requests (a recipient, or anyone writing its GLN, cannot make the bridge republish without limit).
 */
export const RESEND_WINDOW_MS = 24 * 3_600_000;

/**
 * The republication an earlier resend request (another messaging asset) triggered on these entries
 * within {@link RESEND_WINDOW_MS} before `now`, if any: the request at hand is then not republished.
 * The same asset read again is no earlier request: its replay is answered by the idempotency key.
 */
export function republishedWithin(
  entries: ReadonlyArray<{ entry: Pick<ConfirmationEntry, 'resendRequests'> }>,
  messagingAssetId: number,
  now: Date,
): ResendRequestLink | undefined {
  const since = now.getTime() - RESEND_WINDOW_MS;
  for (const { entry } of entries) {
    const link = (entry.resendRequests ?? []).find(
      (one) => one.messagingAssetId !== messagingAssetId && Date.parse(one.recordedAt) > since,
    );
    if (link) return link;
  }
  return undefined;
}

/** True when a messaging asset's summary is a resend (or reload) request. */
export function isResendRequest(gdsn: GdsnMessageSummary | undefined): boolean {
  return gdsn?.messageType === 'requestForCatalogueItemNotification';
}

/**
 * The primary keys a resend request names: the asset's own, else the GTIN-14 of each item it names.
 * A reload that names no item (everything the recipient subscribed to) names none: the bridge cannot
 * tell what "everything" is, so only the event tells of it.
 */
export function resendRequestedKeys(gdsn: GdsnMessageSummary, primaryKey: string | undefined): string[] {
  if (primaryKey) return [primaryKey];
  return [...new Set(gdsn.items.map((item) => gtin14(item.gtin)).filter(Boolean))].sort();
}

/**
 * The channel of an item's entries a resend request from `recipientGln` is about: the one channel the
 * item was published to; else the one channel whose entries name this recipient. `undefined` when
 * there is none or it cannot be told for sure (nothing is guessed).
 */
export function resendChannel(
  entries: ReadonlyArray<{ entry: Pick<ConfirmationEntry, 'key'> }>,
  recipientGln: string | undefined,
): string | undefined {
  const channels = new Set(entries.map(({ entry }) => entry.key.channelId));
  if (channels.size === 1) return [...channels][0];
  if (!recipientGln) return undefined;
  const named = new Set(
    entries
      .filter(({ entry }) => entry.key.recipientGln === recipientGln)
      .map(({ entry }) => entry.key.channelId),
  );
  return named.size === 1 ? [...named][0] : undefined;
}

/** The Idempotency-Key of the republication of one resend request to one channel. */
export function resendIdempotencyKey(messagingAssetId: number, channelId: string): string {
  return `messaging-asset:${messagingAssetId}:channel:${channelId}`;
}

/** The entry with the link added, or `undefined` when it holds it already (a replay changes nothing). */
export function withResendLink(
  entry: ConfirmationEntry,
  link: ResendRequestLink,
): ConfirmationEntry | undefined {
  const known = entry.resendRequests ?? [];
  if (known.some((one) => one.messagingAssetId === link.messagingAssetId)) return undefined;
  return { ...entry, resendRequests: [...known, link].slice(-MAX_RESEND_REQUESTS) };
}
