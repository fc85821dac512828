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
import {
  type CicDescription,
  type CicSummary,
  descriptionOf,
  identificationOf,
  type MessageHeader,
  messageHeaderOf,
  summariseCatalogueItemConfirmation,
} from './cic.ts';
import { attributeOf, child, children, type ParsedDocument, textOf, type XmlElement } from './document.ts';

export type GdsnMessageType =
  | 'catalogueItemConfirmation'
  | 'gs1Response'
  | 'catalogueItemRegistrationResponse'
  | 'requestForCatalogueItemNotification'
  | 'catalogueItemHierarchicalWithdrawal'
  | 'catalogueItemNotification';

/** An item a message names: a GTIN at an information provider, in a target market. */
export interface GdsnItem {
  gtin: string;
  /** GLN of the information provider (`dataSource`, `informationProviderOfTradeItem`). */
  informationProvider?: string;
  /** ISO 3166 numeric code. */
  targetMarketCountryCode?: string;
  /** GLN of the recipient the message is about (`dataRecipient`, `recipientGLN`). */
  recipientGln?: string;
  /** A registration response's status for this item (ACCEPTED, REJECTED, …), as written. */
  status?: string;
  /** A withdrawal's reason code, e.g. PUBLICATION_WITHDRAWAL. */
  reasonCode?: string;
  /** A notification's document command: ADD, CHANGE_BY_REFRESH, CORRECT, DELETE. */
  documentCommand?: string;
  /** A notification or request: whether it is a reload (all items again) rather than one resend. */
  isReload?: boolean;
  /** A notification: GTINs of the next lower level of the item's hierarchy. */
  childGtins?: string[];
}

/** One error of a data pool's or the Global Registry's response. */
export interface GdsnError {
  /** e.g. GDSN.1091 (3.1) or 1091 (2.8); `''` when the sender left it out. */
  code: string;
  description?: string;
  languageCode?: string;
  /** Where it was raised: `message`, `transaction`, `command`, `document` or `attribute`. */
  level: 'message' | 'transaction' | 'command' | 'document' | 'attribute';
  /** The identifier of the transaction, command or document the error refers to. */
  transactionIdentifier?: string;
  commandIdentifier?: string;
  documentIdentifier?: string;
  /** GTINs the error names (in its refused document or its own text). */
  gtins?: string[];
}

export interface GdsnMessageSummary {
  messageType: GdsnMessageType;
  gdsnVersion: '3.1' | '2.8';
  /** The header's InstanceIdentifier. */
  documentIdentifier?: string;
  /** The message's own creation time, as written (the business document's, else the header's). */
  creationDateTime?: string;
  /** GLN of the sender (the header's), else the document's content owner. */
  senderGln?: string;
  receiverGln?: string;
  /** Responses: ACCEPTED, RECEIVED, REJECTED, …, as written. */
  status?: string;
  /** Responses: the identifier of the message answered. */
  originalMessageIdentifier?: string;
  /** Responses: every error, message level first, in document order. */
  errors?: GdsnError[];
  /** Resend requests: true for a reload (everything again), false for a resend of what it names. */
  isReload?: boolean;
  /** Resend requests: the recipient asking. */
  recipientGln?: string;
  /** Resend requests: the target market asked about. */
  targetMarketCountryCode?: string;
  /**
   * True when this message says a publication was refused before it reached the recipient: a
   * response with errors or a REJECTED status, a registration response REJECTED.
   */
  refusal?: boolean;
  items: GdsnItem[];
}

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
/** Business documents sit within about 8 levels of the root (SBD, message, transaction, command, operand). */
const SEARCH_DEPTH = 10;
const REFUSED_STATUSES = new Set(['REJECTED', 'ERROR', 'REFUSED']);

function optionalText(element: XmlElement | undefined): string | undefined {
  const text = textOf(element);
  return text === '' ? undefined : text;
}

/** `<x>v</x>` or `x="v"` on `owner`. */
function elementOrAttribute(owner: XmlElement | undefined, name: string): string | undefined {
  return optionalText(child(owner, name)) ?? (attributeOf(owner, name)?.trim() || undefined);
}

function flag(owner: XmlElement | undefined, name: string): boolean | undefined {
  const value = elementOrAttribute(owner, name)?.toLowerCase();
  return value === undefined ? undefined : value === 'true' || value === '1';
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function eachChild(element: XmlElement, visit: (name: string, candidate: XmlElement) => void): void {
  for (const name in element) {
    const value = element[name];
    if (Array.isArray(value)) for (const candidate of value) visit(name, candidate);
  }
}

/** Every element named one of `names` below `element` (not inside a found one), in document order. */
function findAll(element: XmlElement, names: ReadonlySet<string>, depth = SEARCH_DEPTH): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (current: XmlElement, left: number): void =>
    eachChild(current, (name, candidate) => {
      if (names.has(name)) found.push(candidate);
      else if (left > 1) visit(candidate, left - 1);
    });
  visit(element, depth);
  return found;
}

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

function countryCode(element: XmlElement | undefined): string | undefined {
  return optionalText(element) ?? optionalText(child(element, 'countryISOCode'));
}

/** `targetMarketCountryCode` directly, or under `targetMarket` / `targetMarketInformation`. */
function targetMarketOf(owner: XmlElement | undefined): string | undefined {
  return (
    countryCode(child(owner, 'targetMarketCountryCode')) ??
    countryCode(child(child(owner, 'targetMarket'), 'targetMarketCountryCode')) ??
    countryCode(child(child(owner, 'targetMarketInformation'), 'targetMarketCountryCode'))
  );
}

function glnOf(element: XmlElement | undefined): string | undefined {
  return optionalText(element) ?? optionalText(child(element, 'gln'));
}

/** The GTIN of an owner: `gtin`, or 2.8's `tradeItemIdentification/gtin`. */
function gtinOf(owner: XmlElement | undefined): string | undefined {
  return (
    optionalText(child(owner, 'gtin')) ?? optionalText(child(child(owner, 'tradeItemIdentification'), 'gtin'))
  );
}

/** An item reference (`catalogueItemReference` and its kin): GTIN, data source, target market. */
function referenceOf(reference: XmlElement | undefined): GdsnItem | undefined {
  const gtin = gtinOf(reference);
  if (gtin === undefined) return undefined;
  return withoutUndefined<GdsnItem>({
    gtin,
    informationProvider: glnOf(child(reference, 'dataSource')),
    targetMarketCountryCode: targetMarketOf(reference),
  });
}

function recipientOf(owner: XmlElement | undefined): string | undefined {
  return glnOf(child(owner, 'dataRecipient')) ?? glnOf(child(owner, 'recipientGLN'));
}

const REFERENCES = new Set(['catalogueItemReference', 'catalogueItem']);

function confirmationItems(document: ParsedDocument, known: readonly CicSummary[] | undefined): GdsnItem[] {
  return (known ?? summariseCatalogueItemConfirmation(document) ?? []).map((cic) =>
    withoutUndefined<GdsnItem>({
      gtin: cic.gtin,
      informationProvider: cic.dataSource,
      targetMarketCountryCode: cic.targetMarketCountryCode,
      recipientGln: cic.recipientGln,
      status: cic.state,
    }),
  );
}

// --- responses ----------------------------------------------------------------------------------

const LEVELS: ReadonlyArray<[string, GdsnError['level']]> = [
  ['messageException', 'message'],
  ['transactionException', 'transaction'],
  ['commandException', 'command'],
  ['documentException', 'document'],
  ['attributeException', 'attribute'],
];
const ERROR_NAMES = ['gS1Error', 'gDSNError', 'error'];
const GTIN_IN_TEXT = /\b\d{14}\b/g;

function identifierOf(exception: XmlElement, names: readonly string[]): string | undefined {
  for (const name of names) {
    const owner = child(exception, name);
    const text =
      optionalText(child(owner, 'entityIdentification')) ??
      optionalText(child(owner, 'uniqueCreatorIdentification')) ??
      optionalText(owner);
    if (text !== undefined) return text;
  }
  return attributeOf(exception, 'identifier') ?? undefined;
}

const IDENTIFIERS: Record<string, readonly string[]> = {
  transaction: ['transactionIdentification', 'transactionIdentifier', 'entityIdentification'],
  command: ['commandIdentification', 'commandIdentifier', 'entityIdentification'],
  document: ['documentIdentification', 'documentIdentifier', 'entityIdentification'],
};

function errorOf(
  error: XmlElement,
  level: GdsnError['level'],
  context: Pick<GdsnError, 'transactionIdentifier' | 'commandIdentifier' | 'documentIdentifier'>,
  extraGtins: readonly string[],
): GdsnError {
  const descriptionElement = child(error, 'errorDescription');
  const description: CicDescription | undefined = descriptionElement
    ? descriptionOf(descriptionElement)
    : attributeOf(error, 'errorDescription') !== undefined
      ? { text: attributeOf(error, 'errorDescription') ?? '' }
      : undefined;
  const text = description?.text || undefined;
  const gtins = [...new Set([...extraGtins, ...(text?.match(GTIN_IN_TEXT) ?? [])])];
  return withoutUndefined<GdsnError>({
    code: elementOrAttribute(error, 'errorCode') ?? '',
    description: text,
    languageCode: description?.languageCode,
    level,
    ...context,
    gtins: gtins.length === 0 ? undefined : gtins,
  });
}

/** Every error of an exception tree, parents before children. */
function errorsOf(exception: XmlElement): GdsnError[] {
  const errors: GdsnError[] = [];
  const walk = (
    element: XmlElement,
    level: GdsnError['level'],
    context: Pick<GdsnError, 'transactionIdentifier' | 'commandIdentifier' | 'documentIdentifier'>,
  ): void => {
    const nextContext = { ...context };
    const ids = IDENTIFIERS[level];
    if (ids) {
      const id = identifierOf(element, ids);
      if (id !== undefined) nextContext[`${level as 'transaction' | 'command' | 'document'}Identifier`] = id;
    }
    const gtins = [
      ...new Set(
        findAll(element, new Set(['gtin']), 4)
          .map(textOf)
          .filter(Boolean),
      ),
    ];
    for (const name of ERROR_NAMES) {
      for (const error of children(element, name))
        errors.push(errorOf(error, level, withoutUndefined(nextContext), gtins));
    }
    for (const [name, nested] of LEVELS) {
      for (const inner of children(element, name)) walk(inner, nested, nextContext);
    }
  };
  for (const [name, level] of LEVELS) {
    for (const inner of children(exception, name)) walk(inner, level, {});
  }
  // An exception holding errors directly (some senders leave out the level).
  for (const name of ERROR_NAMES) {
    for (const error of children(exception, name)) errors.push(errorOf(error, 'message', {}, []));
  }
  return errors;
}

function responseSummary(
  response: XmlElement,
): Pick<GdsnMessageSummary, 'status' | 'originalMessageIdentifier' | 'errors'> {
  const status =
    elementOrAttribute(response, 'responseStatusCode') ?? elementOrAttribute(response, 'responseStatus');
  const original =
    child(response, 'originatingMessageIdentifier') ?? child(response, 'originalMessageIdentification');
  const exceptions = [...children(response, 'gS1Exception'), ...children(response, 'gDSNException')];
  return withoutUndefined({
    status,
    originalMessageIdentifier:
      optionalText(child(original, 'entityIdentification')) ??
      optionalText(child(original, 'uniqueCreatorIdentification')) ??
      optionalText(original),
    errors: exceptions.flatMap(errorsOf),
  });
}

// --- item-bearing messages ----------------------------------------------------------------------

function registrationItems(element: XmlElement): { items: GdsnItem[]; errors: GdsnError[] } {
  const status =
    elementOrAttribute(element, 'responseStatusCode') ?? elementOrAttribute(element, 'responseStatus');
  const references = findAll(element, REFERENCES, 3);
  const items = references
    .map((reference) => referenceOf(reference) ?? referenceOf(child(reference, 'catalogueItemReference')))
    .filter((item): item is GdsnItem => item !== undefined)
    .map((item) => withoutUndefined<GdsnItem>({ ...item, status }));
  const errors = [...children(element, 'gS1Exception'), ...children(element, 'gDSNException')].flatMap(
    errorsOf,
  );
  return { items, errors };
}

/** The items a resend request names (none: it asks for everything the recipient subscribed to). */
function requestItems(element: XmlElement): GdsnItem[] {
  const isReload = flag(element, 'isReload');
  const recipientGln = recipientOf(element);
  const extra = withoutUndefined({ recipientGln, isReload });
  const direct = referenceOf(element);
  const references = findAll(element, new Set(['catalogueItemReference']), 3)
    .map(referenceOf)
    .filter((item): item is GdsnItem => item !== undefined);
  return [...(direct ? [direct] : []), ...references].map((item) => ({ ...item, ...extra }));
}

function withdrawalItems(element: XmlElement): GdsnItem[] {
  const reasonCode =
    elementOrAttribute(element, 'hierarchyDeletionReasonCode') ??
    elementOrAttribute(element, 'catalogueItemDeletionReasonCode');
  const recipientGln = recipientOf(element);
  return findAll(element, new Set(['catalogueItemReference']), 3)
    .map(referenceOf)
    .filter((item): item is GdsnItem => item !== undefined)
    .map((item) => withoutUndefined<GdsnItem>({ ...item, recipientGln, reasonCode }));
}

/** A catalogue item (CIN): its trade item, then each child catalogue item, depth first. */
function notificationItems(notification: XmlElement, documentCommand: string | undefined): GdsnItem[] {
  const isReload = flag(notification, 'isReload');
  const items: GdsnItem[] = [];
  const visit = (catalogueItem: XmlElement, depth: number): void => {
    if (depth > SEARCH_DEPTH) return;
    const tradeItem = child(catalogueItem, 'tradeItem');
    const gtin = gtinOf(tradeItem);
    const information = child(tradeItem, 'tradeItemInformation');
    if (gtin !== undefined) {
      const childGtins = children(child(tradeItem, 'nextLowerLevelTradeItemInformation'), 'childTradeItem')
        .map(gtinOf)
        .filter((value): value is string => value !== undefined);
      const provider =
        glnOf(child(tradeItem, 'informationProviderOfTradeItem')) ??
        glnOf(
          child(child(information ?? tradeItem, 'informationProviderOfTradeItem'), 'informationProvider'),
        ) ??
        glnOf(child(catalogueItem, 'dataSource'));
      items.push(
        withoutUndefined<GdsnItem>({
          gtin,
          informationProvider: provider,
          targetMarketCountryCode: targetMarketOf(tradeItem) ?? targetMarketOf(information),
          recipientGln: recipientOf(catalogueItem) ?? recipientOf(notification),
          documentCommand,
          isReload,
          childGtins: childGtins.length === 0 ? undefined : childGtins,
        }),
      );
    }
    for (const link of children(catalogueItem, 'catalogueItemChildItemLink')) {
      for (const nested of children(link, 'catalogueItem')) visit(nested, depth + 1);
    }
  };
  for (const catalogueItem of children(notification, 'catalogueItem')) visit(catalogueItem, 0);
  return items;
}

/** The document command (`documentCommandHeader/@type`) of the command holding `document`. */
function commandsByDocument(root: XmlElement, name: string): Map<XmlElement, string> {
  const commands = new Map<XmlElement, string>();
  for (const command of findAll(root, new Set(['documentCommand']))) {
    const type = attributeOf(child(command, 'documentCommandHeader'), 'type');
    if (type === undefined) continue;
    for (const document of findAll(command, new Set([name]), 3)) commands.set(document, type);
  }
  return commands;
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
