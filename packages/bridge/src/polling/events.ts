/**
 * The events the two pollers emit, and what they say about a fetched XML message. Ids are derived
 * from the item alone (`idParts: [messagingAssetId]`; a review's `[primaryKey, fingerprint]`), so an
 * event built again after a crash, or passed without its message later, carries the same id and
 * consumers drop the duplicate.
 *
 * The XML was fetched, so a failure to carry it is a failure of that message, never of the fetch:
 * XML that does not parse, or a parsed document that does not fit the event's schema
 * (`EventDataError`), is carried as a `parseError` (code `UNREPRESENTABLE` for the latter) with the
 * raw XML. An item passed without its message (poison.ts, or a review whose message is gone) carries
 * a `messageError` instead.
 */
import { boundedText } from '../core/index.ts';
import type { MessageFetchError, MessagingAssetReceivedData } from '../events/data/index.ts';
import { type CloudEvent, createEvent, EventDataError } from '../events/index.ts';
import type { MessagingAssetSummary, PdsNotFoundError, SupplierReview } from '../pds/index.ts';
import type {
  CicSummary,
  GdsnMessageSummary,
  ParsedDocument,
  ParseOptions,
  XmlErrorInfo,
} from '../xml/index.ts';
import { parseMessagingAssetSafely } from '../xml/index.ts';

/** The message part of an event's data. */
export type MessageContent =
  | { document: ParsedDocument; cic?: CicSummary[]; gdsn?: GdsnMessageSummary }
  | { parseError: XmlErrorInfo; rawXml: string };

/** The envelope fields a poller sets: the time of its page or key, and its CloudEvents `source`. */
export interface PollEventOptions {
  source?: string;
  time?: Date;
}

/** The options of the events built at `time`, with `source` when one is configured. */
export function pollEventOptions(time: Date, source: string | undefined): { time: Date; source?: string } {
  return { time, ...(source ? { source } : {}) };
}

/**
 * Builds an event with the content of `xml`, falling back to a `parseError` when the document
 * cannot be carried; any other failure of `build` is thrown.
 *
 * @example
 * ```ts
 * const event = withMessageContent(xml, (content) => createEvent({ type, subject, idParts, data: { id, ...content } }));
 * ```
 */
export function withMessageContent<E>(
  xml: string,
  build: (content: MessageContent) => E,
  limits?: ParseOptions,
): E {
  const parsed = parseMessagingAssetSafely(xml, limits);
  if (!parsed.ok) return build({ parseError: parsed.error, rawXml: xml });
  try {
    return build({
      document: parsed.document,
      ...(parsed.cic ? { cic: parsed.cic } : {}),
      ...(parsed.gdsn ? { gdsn: parsed.gdsn } : {}),
    });
  } catch (error) {
    if (!(error instanceof EventDataError)) throw error;
    return build({ parseError: unrepresentable(error), rawXml: xml });
  }
}

function unrepresentable(error: EventDataError): XmlErrorInfo {
  return {
    name: error.name,
    code: 'UNREPRESENTABLE',
    message: boundedText(`The XML parsed, but its document cannot be carried by the event: ${error.issues}`),
  };
}

/**
 * The event of one messaging asset: parsed document and CIC summaries, or the parse error and the raw XML.
 *
 * @example
 * const event = messagingAssetEvent({ id: 42, createdAt: 1767600000000, contentType: 'application/xml' }, xml);
 * event.id; // the same for the same asset, whenever it is built
 */
export function messagingAssetEvent(
  asset: MessagingAssetSummary,
  xml: string,
  options: PollEventOptions = {},
  limits?: ParseOptions,
): CloudEvent<'pds.messaging-asset.received'> {
  return withMessageContent(xml, (content) => assetEvent(asset, content, options), limits);
}

/**
 * The event of an asset passed without its XML after failing on consecutive runs (poison.ts): the
 * same id as its ordinary event, `messageError` instead of `document`.
 *
 * @example
 * passedMessagingAssetEvent(asset, messageErrorOfFetch(error, 5)).data.messageError?.failedRuns; // 5
 */
export function passedMessagingAssetEvent(
  asset: MessagingAssetSummary,
  messageError: MessageFetchError,
  options: PollEventOptions = {},
): CloudEvent<'pds.messaging-asset.received'> {
  return assetEvent(asset, { messageError }, options);
}

function assetEvent(
  asset: MessagingAssetSummary,
  content: Omit<MessagingAssetReceivedData, 'messagingAssetId' | 'createdAt' | 'primaryKey'>,
  options: PollEventOptions,
): CloudEvent<'pds.messaging-asset.received'> {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${asset.id}`,
    idParts: [asset.id],
    ...(options.source ? { source: options.source } : {}),
    ...(options.time ? { time: options.time } : {}),
    data: {
      messagingAssetId: asset.id,
      ...(Number.isSafeInteger(asset.createdAt) ? { createdAt: asset.createdAt } : {}),
      ...(typeof asset.primaryKey === 'string' ? { primaryKey: asset.primaryKey } : {}),
      ...content,
    },
  });
}

/**
 * The event of one review and its message: the fetched XML, or the `messageError` it is passed
 * without (at the failure limit, or `missingMessageError` when its message is gone).
 *
 * @example
 * reviewEvent(review, reviewFingerprint(review), { xml }).subject; // 'item/04012345678901'
 */
export function reviewEvent(
  review: SupplierReview,
  fingerprint: string,
  message: { xml: string } | { error: MessageFetchError },
  options: PollEventOptions = {},
): CloudEvent<'pds.supplier-review.received'> {
  const build = (content: MessageContent | { messageError: MessageFetchError }) =>
    createEvent({
      type: 'pds.supplier-review.received',
      subject: `item/${review.primaryKey}`,
      idParts: [review.primaryKey, fingerprint],
      ...(options.source ? { source: options.source } : {}),
      ...(options.time ? { time: options.time } : {}),
      data: { review, messagingAssetId: review.messagingAssetId, ...content },
    });
  return 'xml' in message ? withMessageContent(message.xml, build) : build({ messageError: message.error });
}

/** The `messageError` of a review whose message the PDS no longer has: final at once, no `failedRuns`. */
export function missingMessageError(error: PdsNotFoundError): MessageFetchError {
  return { name: error.name, message: boundedText(error.message), status: error.status };
}
