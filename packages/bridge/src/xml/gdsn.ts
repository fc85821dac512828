/**
 * A typed summary of every GDSN message a source-side or recipient-side integration receives, read
 * from a parsed document, in both generations (3.1 and 2.8). The type is recognised by the local name
 * of the message's business element, wherever it sits (prefixes, namespaces and the root vary by
 * sender), never by the root alone:
 *
 * | type | 3.1 element | 2.8 element | what is summarised |
 * |---|---|---|---|
 * | `catalogueItemConfirmation` | `catalogueItemConfirmation` | the same | the items confirmed (the full summary is `cic`, ./cic.ts) |
 * | `gs1Response` | `gS1Response` (gS1Exception, gS1Error) | `response`/`gDSNResponse` (gDSNException, gDSNError) | status, the message it answers, every error with its code, description and the transaction/command/document it refers to |
 * | `catalogueItemRegistrationResponse` | `catalogueItemRegistrationResponse` | the same | status per item registered or refused |
 * | `requestForCatalogueItemNotification` | `requestForCatalogueItemNotification` | the same | who asks for which items, `isReload` (reload vs resend) |
 * | `catalogueItemHierarchicalWithdrawal` | `catalogueItemHierarchicalWithdrawal` | the same | the items withdrawn and why |
 * | `catalogueItemNotification` | `catalogueItemNotification` | the same | each item's GTIN, information provider, target market, the publication (document command, isReload) and its hierarchy |
 *
 * The version: the header's `TypeVersion` when it says 2.x or 3.x, else the form (2.8 writes states,
 * flags and times as attributes and identifications as `uniqueCreatorIdentification`).
 * Anything else stays a generic document (no summary).
 */
import { type CicSummary, identificationOf, type MessageHeader, messageHeaderOf } from './cic.ts';
import { attributeOf, child, type ParsedDocument, type XmlElement } from './document.ts';
import {
  commandsByDocument,
  confirmationItems,
  notificationItems,
  requestItems,
  withdrawalItems,
} from './gdsn/items.ts';
import {
  eachChild,
  elementOrAttribute,
  findAll,
  flag,
  recipientOf,
  SEARCH_DEPTH,
  targetMarketOf,
  withoutUndefined,
} from './gdsn/read.ts';
import { registrationItems, responseSummary } from './gdsn/responses.ts';
import type { GdsnMessageSummary, GdsnMessageType } from './gdsn/types.ts';

export type { GdsnError, GdsnItem, GdsnMessageSummary, GdsnMessageType } from './gdsn/types.ts';

/** Business elements by type: the first found decides (a CIC wins over anything inside it). */
const ELEMENTS: ReadonlyArray<[string, GdsnMessageType]> = [
  ['catalogueItemConfirmation', 'catalogueItemConfirmation'],
  ['gS1Response', 'gs1Response'],
  ['gDSNResponse', 'gs1Response'],
  ['catalogueItemRegistrationResponse', 'catalogueItemRegistrationResponse'],
  ['requestForCatalogueItemNotification', 'requestForCatalogueItemNotification'],
  ['catalogueItemHierarchicalWithdrawal', 'catalogueItemHierarchicalWithdrawal'],
  ['catalogueItemNotification', 'catalogueItemNotification'],
];
const TYPE_OF = new Map(ELEMENTS);
/** 2.8 responses are `eanucc:response` holding a `gDSNException`, or a `gDSNResponse`. */
const RESPONSE_28 = 'response';
const REFUSED_STATUSES = new Set(['REJECTED', 'ERROR', 'REFUSED']);

/** The first business element of a known type: its type, name and elements of that name. */
function businessElements(
  document: ParsedDocument,
): { type: GdsnMessageType; name: string; elements: XmlElement[] } | undefined {
  const rootType = TYPE_OF.get(document.rootName);
  if (rootType) return { type: rootType, name: document.rootName, elements: [document.root] };
  let first: { type: GdsnMessageType; name: string } | undefined;
  const visit = (current: XmlElement, left: number): void =>
    eachChild(current, (name, candidate) => {
      if (first !== undefined) return;
      const type =
        TYPE_OF.get(name) ?? (name === RESPONSE_28 && isResponse28(candidate) ? 'gs1Response' : undefined);
      if (type) first = { type, name };
      else if (left > 1) visit(candidate, left - 1);
    });
  if (document.rootName === RESPONSE_28 && isResponse28(document.root)) {
    return { type: 'gs1Response', name: RESPONSE_28, elements: [document.root] };
  }
  visit(document.root, SEARCH_DEPTH);
  if (first === undefined) return undefined;
  return { ...first, elements: findAll(document.root, new Set([first.name])) };
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

/**
 * The summary of a GDSN message, or `undefined` when `document` is none of the types above. `cic`,
 * the document's CIC summaries when the caller has them already, saves summarising them again.
 *
 * @example
 * const gdsn = summariseGdsnMessage(parseMessagingAsset(xml));
 * if (gdsn?.refusal) for (const error of gdsn.errors ?? []) show(error.code, error.description);
 */
export function summariseGdsnMessage(
  document: ParsedDocument,
  cic?: readonly CicSummary[],
): GdsnMessageSummary | undefined {
  const first = cic?.[0];
  if (first !== undefined) {
    // A confirmation message: its summaries say everything, no second walk over the document.
    const header = messageHeaderOf(document);
    return withoutUndefined({
      messageType: 'catalogueItemConfirmation' as const,
      gdsnVersion: first.gdsnVersion,
      documentIdentifier: header.documentIdentifier,
      creationDateTime: first.creationDateTime,
      senderGln: header.senderGln ?? first.creatorGln,
      receiverGln: header.receiverGln,
      items: confirmationItems(document, cic),
    });
  }
  const found = businessElements(document);
  if (found === undefined) return undefined;
  const header = messageHeaderOf(document);
  const element = found.elements[0] as XmlElement;
  const own = identificationOf(element, `${found.name}Identification`, header);
  const base = withoutUndefined({
    messageType: found.type,
    gdsnVersion: versionOf(header, found.elements, document.namespaces),
    documentIdentifier: header.documentIdentifier,
    creationDateTime: own.creationDateTime,
    senderGln: header.senderGln ?? own.creatorGln,
    receiverGln: header.receiverGln,
  });
  switch (found.type) {
    case 'catalogueItemConfirmation':
      return { ...base, items: confirmationItems(document, cic) };
    case 'gs1Response': {
      const response = responseSummary(element);
      const errors = response.errors ?? [];
      const refusal = errors.length > 0 || REFUSED_STATUSES.has((response.status ?? '').toUpperCase());
      const gtins = [...new Set(errors.flatMap((error) => error.gtins ?? []))];
      return { ...base, ...response, refusal, items: gtins.map((gtin) => ({ gtin })) };
    }
    case 'catalogueItemRegistrationResponse': {
      const parts = found.elements.map(registrationItems);
      const items = parts.flatMap((part) => part.items);
      const errors = parts.flatMap((part) => part.errors);
      const status = items[0]?.status;
      const refusal =
        errors.length > 0 || items.some((item) => REFUSED_STATUSES.has((item.status ?? '').toUpperCase()));
      return withoutUndefined({
        ...base,
        status,
        errors: errors.length === 0 ? undefined : errors,
        refusal,
        items,
      });
    }
    case 'requestForCatalogueItemNotification':
      return withoutUndefined({
        ...base,
        isReload: flag(element, 'isReload'),
        recipientGln: recipientOf(element),
        targetMarketCountryCode: targetMarketOf(element),
        items: found.elements.flatMap(requestItems),
      });
    case 'catalogueItemHierarchicalWithdrawal':
      return { ...base, items: found.elements.flatMap(withdrawalItems) };
    case 'catalogueItemNotification': {
      const commands = commandsByDocument(document.root, found.name);
      return {
        ...base,
        items: found.elements.flatMap((element) => notificationItems(element, commands.get(element))),
      };
    }
  }
}
