/**
 * A typed summary of every GDSN message a source-side or recipient-side integration receives, read
 * from a parsed document, in both generations (3.1 and 2.8), as the published GS1 schemas and real 2.8
 * traffic write them (test/fixtures/gdsn/README.md cites the schema or instance behind each fixture).
 * The type is recognised by the local name of the message's business element, wherever it sits
 * (prefixes, namespaces and the root vary by sender), never by the root alone:
 *
 * | type | 3.1 element | 2.8 element | what is summarised |
 * |---|---|---|---|
 * | `catalogueItemConfirmation` | `catalogueItemConfirmation` | the same | the items confirmed, the message creator (the full summary is `cic`, ./cic.ts) |
 * | `gs1Response` | `gS1Response`, one or more | `gDSNException` / `eANUCCResponse` in the message (or in a `response`/`gDSNResponse` wrapper) | the status per transaction, the message answered, every error with its code, text, time, level, what it refers to and, for an attribute, its name, value and xPath |
 * | `catalogueItemRegistrationResponse` | `catalogueItemRegistrationResponse` | the same | status and registration times per item |
 * | `requestForCatalogueItemNotification` | `requestForCatalogueItemNotification` | the same | who asks (recipient, its data pool) for what (GTIN, provider, GPC category, market), reload or resend and why |
 * | `catalogueItemHierarchicalWithdrawal` | `catalogueItemHierarchicalWithdrawal` | the same | the items withdrawn, from whom (every recipient), why, their state and dates |
 * | `catalogueItemNotification` | `catalogueItemNotification` | the same | each item's GTIN, provider, market, recipient, source data pool, state and dates, the publication (document command, isReload) and its hierarchy with quantities |
 *
 * Every list and text is capped (./gdsn/caps.ts); what a cap leaves out is counted in `truncated`.
 * The version: the header's `TypeVersion` when it says 2.x or 3.x, else the form (2.8 writes states,
 * flags and times as attributes and identifications as `uniqueCreatorIdentification`).
 * Anything else stays a generic document (no summary).
 */
import {
  type CicSummary,
  identificationOf,
  type MessageHeader,
  messageHeaderOf,
  summariseCatalogueItemConfirmation,
} from './cic.ts';
import { attributeOf, child, type ParsedDocument, type XmlElement } from './document.ts';
import { GDSN_SUMMARY_CAPS, Truncation } from './gdsn/caps.ts';
import {
  commandsByDocument,
  confirmationItems,
  notificationItems,
  requestItems,
  requestSummary,
  withdrawalItems,
} from './gdsn/items.ts';
import {
  eachChild,
  elementOrAttribute,
  findAll,
  findAllNamed,
  optionalText,
  SEARCH_DEPTH,
  withoutUndefined,
} from './gdsn/read.ts';
import {
  emptyReading,
  isRefusedStatus,
  type ResponseReading,
  readResponse,
  registrationErrors,
  registrationItems,
} from './gdsn/responses.ts';
import type { GdsnItem, GdsnMessageSummary, GdsnMessageType } from './gdsn/types.ts';

export type {
  GdsnError,
  GdsnItem,
  GdsnMessageSummary,
  GdsnMessageType,
  GdsnTransactionResponse,
  GdsnTruncation,
} from './gdsn/types.ts';

/** Business elements by type: the first found decides (a CIC wins over anything inside it). */
const ELEMENTS: ReadonlyArray<[string, GdsnMessageType]> = [
  ['catalogueItemConfirmation', 'catalogueItemConfirmation'],
  ['gS1Response', 'gs1Response'],
  ['gDSNResponse', 'gs1Response'],
  ['gDSNException', 'gs1Response'],
  ['eANUCCResponse', 'gs1Response'],
  ['catalogueItemRegistrationResponse', 'catalogueItemRegistrationResponse'],
  ['requestForCatalogueItemNotification', 'requestForCatalogueItemNotification'],
  ['catalogueItemHierarchicalWithdrawal', 'catalogueItemHierarchicalWithdrawal'],
  ['catalogueItemNotification', 'catalogueItemNotification'],
];
const TYPE_OF = new Map(ELEMENTS);
/** The elements of a GS1 Response message: 3.1 responses, 2.8 exceptions and responses, wrappers. */
/** A wrapper some 2.8 senders add: `eanucc:response` holding a status or an exception. */
const RESPONSE_28 = 'response';
const RESPONSE_NAMES = new Set([
  'gS1Response',
  'gDSNResponse',
  'gDSNException',
  'eANUCCResponse',
  RESPONSE_28,
]);

interface Found {
  type: GdsnMessageType;
  /** The elements of its kind, each with the local name it has. */
  elements: Array<{ name: string; element: XmlElement }>;
}

/** The first business element of a known type, and every element of its kind. */
function businessElements(document: ParsedDocument): Found | undefined {
  const rootType = TYPE_OF.get(document.rootName);
  if (rootType) return { type: rootType, elements: [{ name: document.rootName, element: document.root }] };
  if (document.rootName === RESPONSE_28 && isResponse28(document.root)) {
    return { type: 'gs1Response', elements: [{ name: RESPONSE_28, element: document.root }] };
  }
  let first: { type: GdsnMessageType; name: string } | undefined;
  const visit = (current: XmlElement, left: number): void =>
    eachChild(current, (name, candidate) => {
      if (first !== undefined) return;
      const type =
        TYPE_OF.get(name) ?? (name === RESPONSE_28 && isResponse28(candidate) ? 'gs1Response' : undefined);
      if (type) first = { type, name };
      else if (left > 1) visit(candidate, left - 1);
    });
  visit(document.root, SEARCH_DEPTH);
  if (first === undefined) return undefined;
  if (first.type !== 'gs1Response') {
    return { type: first.type, elements: findAllNamed(document.root, new Set([first.name])) };
  }
  // Every response of the message, whatever its form: several gS1Response, 2.8 exceptions side by side.
  const elements = findAllNamed(document.root, RESPONSE_NAMES).filter(
    ({ name, element }) => name !== RESPONSE_28 || isResponse28(element),
  );
  return { type: 'gs1Response', elements };
}

/** A 2.8 `response` element: it has a status attribute or element, or an exception. */
function isResponse28(element: XmlElement): boolean {
  return (
    elementOrAttribute(element, 'responseStatus') !== undefined ||
    child(element, 'gDSNException') !== undefined ||
    child(element, 'originalMessageIdentification') !== undefined
  );
}

function versionOf(
  header: MessageHeader,
  elements: readonly XmlElement[],
  namespaces: Record<string, string>,
): '3.1' | '2.8' {
  const declared = header.typeVersion?.trim();
  if (declared?.startsWith('2')) return '2.8';
  if (declared?.startsWith('3')) return '3.1';
  if (Object.values(namespaces).some((uri) => /^urn:gs1:gdsn:/.test(uri))) return '3.1';
  const first = elements[0];
  const twoEight =
    Object.values(namespaces).some((uri) => /^urn:ean\.ucc:/.test(uri)) ||
    (first !== undefined && attributeOf(first, 'creationDateTime') !== undefined);
  return twoEight ? '2.8' : '3.1';
}

/** Every text field of an item within the text cap, its lists within theirs. */
function cappedItem(item: GdsnItem, caps: Truncation): GdsnItem {
  const result = capped(item, caps);
  if (item.recipientGlns) {
    result.recipientGlns = caps
      .take(item.recipientGlns, GDSN_SUMMARY_CAPS.recipients, 'recipients')
      .map((gln) => caps.text(gln));
  }
  if (item.childGtins)
    result.childGtins = caps
      .take(item.childGtins, GDSN_SUMMARY_CAPS.items, 'items')
      .map((gtin) => caps.text(gtin));
  if (item.childItems) {
    result.childItems = caps
      .take(item.childItems, GDSN_SUMMARY_CAPS.items, 'items')
      .map((one) => withoutUndefined({ gtin: caps.text(one.gtin), quantity: caps.text(one.quantity) }));
  }
  return result;
}

/** Every text field of `fields` within the text cap. */
function capped<T extends object>(fields: T, caps: Truncation): T {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key, typeof value === 'string' ? caps.text(value) : value]),
  ) as T;
}

/** The items within the item cap, each within its own caps. */
function cappedItems(items: readonly GdsnItem[], caps: Truncation): GdsnItem[] {
  return caps.take(items, GDSN_SUMMARY_CAPS.items, 'items').map((item) => cappedItem(item, caps));
}

/** The summary of a GS1 Response (3.1) or GDSNResponse (2.8): every response of the message. */
function responseSummary(found: Found, document: ParsedDocument, caps: Truncation): ResponseParts {
  const reading: ResponseReading = emptyReading();
  const requesting = requestingDocument(document);
  for (const { name, element } of found.elements) readResponse(element, name, reading, caps, requesting);
  const refusedTransaction = reading.transactions.find((transaction) => isRefusedStatus(transaction.status));
  const status =
    refusedTransaction?.status ??
    reading.ownStatuses.find(isRefusedStatus) ??
    reading.transactions[0]?.status ??
    reading.ownStatuses[0];
  return withoutUndefined({
    status,
    originalMessageIdentifier: caps.text(reading.originalMessageIdentifier),
    transactions: reading.transactions.length === 0 ? undefined : reading.transactions,
    errors: reading.errors,
    refusal: reading.errors.length > 0 || reading.gtins.size > 0 || isRefusedStatus(status),
    items: [...reading.gtins].map((gtin) => ({ gtin })),
  });
}

type ResponseParts = Pick<
  GdsnMessageSummary,
  'status' | 'originalMessageIdentifier' | 'transactions' | 'errors' | 'refusal' | 'items'
>;

/** A registration response: each item with its status and times, and the errors some senders add. */
function registrationSummary(found: Found, caps: Truncation): ResponseParts {
  const reading = emptyReading();
  const items = found.elements.flatMap(({ element }) => {
    registrationErrors(element, reading, caps);
    return registrationItems(element, caps);
  });
  const refusal = reading.errors.length > 0 || items.some((item) => isRefusedStatus(item.status));
  return withoutUndefined({
    status: items.find((item) => isRefusedStatus(item.status))?.status ?? items[0]?.status,
    errors: reading.errors.length === 0 ? undefined : reading.errors,
    refusal,
    items,
  });
}

/** The header's `RequestingDocumentInstanceIdentifier`: the message a response answers, in 2.8. */
function requestingDocument(document: ParsedDocument): string | undefined {
  const header = findAll(document.root, new Set(['StandardBusinessDocumentHeader']), 3)[0];
  const scope = child(child(header, 'BusinessScope'), 'Scope');
  return optionalText(child(child(scope, 'CorrelationInformation'), 'RequestingDocumentInstanceIdentifier'));
}

/** What the message says, by type (the common fields are the caller's). */
function contentOf(
  found: Found,
  document: ParsedDocument,
  cic: readonly CicSummary[] | undefined,
  caps: Truncation,
): Partial<GdsnMessageSummary> & { items: GdsnItem[] } {
  const elements = found.elements.map(({ element }) => element);
  switch (found.type) {
    case 'catalogueItemConfirmation':
      return { items: confirmationItems(cic ?? []) };
    case 'gs1Response':
      return responseSummary(found, document, caps);
    case 'catalogueItemRegistrationResponse':
      return registrationSummary(found, caps);
    case 'requestForCatalogueItemNotification': {
      const request = requestSummary(elements[0] as XmlElement);
      const capped = Object.fromEntries(
        Object.entries(request).map(([key, value]) => [
          key,
          typeof value === 'string' ? caps.text(value) : value,
        ]),
      );
      return { ...capped, items: elements.flatMap(requestItems) };
    }
    case 'catalogueItemHierarchicalWithdrawal':
      return { items: elements.flatMap(withdrawalItems) };
    case 'catalogueItemNotification': {
      const commands = commandsByDocument(document.root, found.elements[0]?.name ?? '');
      return { items: elements.flatMap((element) => notificationItems(element, commands.get(element))) };
    }
  }
}

/**
 * The business document's own identification: `<name>Identification`; a resend request's is its base
 * type's, `catalogueItemSubscriptionIdentification` (RequestForCatalogueItemNotification.xsd extends
 * CatalogueItemSubscriptionType).
 */
function ownIdentification(element: XmlElement, name: string, header: MessageHeader) {
  const named = `${name}Identification`;
  const identification =
    child(element, named) === undefined && child(element, SUBSCRIPTION_IDENTIFICATION) !== undefined
      ? SUBSCRIPTION_IDENTIFICATION
      : named;
  return identificationOf(element, identification, header);
}
const SUBSCRIPTION_IDENTIFICATION = 'catalogueItemSubscriptionIdentification';

/**
 * Who wrote the message's content, never the header's sender: a confirmation's `messageCreatorGLN`
 * (2.8: its message's content owner); else the content owner of the business document's own
 * identification, else (2.8) of the message's.
 */
function messageCreatorOf(
  header: MessageHeader,
  first: { name: string; element: XmlElement } | undefined,
  cic: readonly CicSummary[] | undefined,
): Pick<GdsnMessageSummary, 'messageCreatorGln' | 'messageCreatorName'> {
  const confirmation = cic?.[0];
  if (confirmation !== undefined) {
    return withoutUndefined({
      messageCreatorGln: confirmation.messageCreatorGln,
      messageCreatorName: confirmation.messageCreatorName,
    });
  }
  const identification =
    first === undefined
      ? undefined
      : (child(first.element, `${first.name}Identification`) ??
        child(first.element, SUBSCRIPTION_IDENTIFICATION));
  return withoutUndefined({
    messageCreatorGln:
      optionalText(child(child(identification, 'contentOwner'), 'gln')) ?? header.messageCreatorGln,
  });
}

/**
 * The summary of a GDSN message, or `undefined` when `document` is none of the types above. `cic`,
 * the document's CIC summaries when the caller has them already, saves summarising them again.
 * `senderGln` is the header's sender alone; who wrote the content is `messageCreatorGln`.
 *
 * @example
 * const gdsn = summariseGdsnMessage(parseMessagingAsset(xml));
 * if (gdsn?.refusal) for (const error of gdsn.errors ?? []) show(error.code, error.description);
 * if (gdsn?.truncated) warn('summary capped', gdsn.truncated);
 */
export function summariseGdsnMessage(
  document: ParsedDocument,
  cic?: readonly CicSummary[],
): GdsnMessageSummary | undefined {
  // A confirmation message: its summaries say everything, no second walk over the document.
  const given = cic?.[0] === undefined ? undefined : cic;
  const found: Found | undefined = given
    ? { type: 'catalogueItemConfirmation', elements: [] }
    : businessElements(document);
  if (found === undefined) return undefined;
  const confirmations =
    given ??
    (found.type === 'catalogueItemConfirmation' ? summariseCatalogueItemConfirmation(document) : undefined);
  const caps = new Truncation();
  const header = messageHeaderOf(document);
  const first = found.elements[0];
  const own = first === undefined ? {} : ownIdentification(first.element, first.name, header);
  const { items, ...content } = contentOf(found, document, confirmations, caps);
  const gdsnVersion =
    confirmations?.[0]?.gdsnVersion ??
    versionOf(
      header,
      found.elements.map(({ element }) => element),
      document.namespaces,
    );
  return withoutUndefined<GdsnMessageSummary>({
    messageType: found.type,
    gdsnVersion,
    documentIdentifier: caps.text(header.documentIdentifier),
    creationDateTime: caps.text(confirmations?.[0]?.creationDateTime ?? own.creationDateTime),
    senderGln: caps.text(header.senderGln),
    receiverGln: caps.text(header.receiverGln),
    ...capped(messageCreatorOf(header, first, confirmations), caps),
    ...content,
    items: cappedItems(items, caps),
    truncated: caps.marker(),
  });
}
