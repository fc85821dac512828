/**
 * A typed summary of GDSN CatalogueItemConfirmation (CIC) messages, read from a parsed document.
 *
 * Both generations are recognised by structure, not by prefix or root:
 * - 3.1: `catalogueItemConfirmationState/catalogueItemConfirmationStateCode` (RECEIVED, REVIEW,
 *   REJECTED, SYNCHRONISED), usually inside `catalogueItemConfirmationMessage/transaction/documentCommand`.
 * - 2.8: the state is the attribute `state` of `catalogueItemConfirmationState` (ACCEPTED exists),
 *   and the target market may be nested as `targetMarket/targetMarketCountryCode/countryISOCode`.
 *
 * Every `catalogueItemConfirmation` element holding a `catalogueItemConfirmationState`, wherever it
 * sits in the document, yields one summary; one transaction may hold several. A confirmation
 * without a state or a GTIN cannot be routed and is not summarised (the document still carries it).
 */
import { attributeOf, child, children, type ParsedDocument, textOf, type XmlElement } from './document.ts';
import { GDSN_SUMMARY_CAPS, type GdsnTruncation, Truncation } from './gdsn/caps.ts';

export type GdsnVersion = '3.1' | '2.8';

export interface CicDescription {
  languageCode?: string;
  text: string;
}

/**
 * A description in either form: 3.1 `<x languageCode="en">text</x>`; 2.8
 * `<x><description><language><languageISOCode>en</languageISOCode></language><text>…</text></description></x>`
 * (the `description` wrapper may be left out) or, for 2.8's long descriptions,
 * `<x><language>…</language><longText>…</longText></x>`. The text is `''` when the sender gave none.
 */
export function descriptionOf(element: XmlElement): CicDescription {
  const nested = child(element, 'description') ?? element;
  const text =
    textOf(element) ||
    textOf(child(nested, 'text')) ||
    textOf(child(nested, 'longText')) ||
    textOf(child(nested, 'shortText'));
  const languageCode =
    attributeOf(element, 'languageCode') ??
    attributeOf(child(nested, 'text'), 'languageCode') ??
    (optionalText(child(child(nested, 'language'), 'languageISOCode')) ||
      optionalText(child(nested, 'languageCode')));
  return { ...(languageCode === undefined ? {} : { languageCode }), text };
}

export interface CicCorrectiveAction {
  /** e.g. ACTION_NEEDED, WARNING. */
  code: string;
  expectedCorrectiveInformation?: string;
}

export interface CicStatus {
  /** e.g. CIC999; `''` when the sender left it out. */
  code: string;
  /** GTIN of the item of the hierarchy the status is about (`confirmationStatusCatalogueItem`). */
  gtin?: string;
  descriptions: CicDescription[];
  /** `additionalConfirmationStatusLongDescription`: where recipients put the real text. */
  longDescriptions?: CicDescription[];
  correctiveActions: CicCorrectiveAction[];
}

/**
 * One confirmation. `state` and `gtin` are always present; the other fields are mandatory in
 * GDSN but optional here, so a sloppy message still yields what it does say.
 */
export interface CicSummary {
  gdsnVersion: GdsnVersion;
  /** RECEIVED, REVIEW, REJECTED, SYNCHRONISED (3.1) or ACCEPTED, … (2.8); the set is open. */
  state: string;
  gtin: string;
  recipientGln?: string;
  recipientDataPool?: string;
  dataSource?: string;
  /** ISO 3166 numeric code, e.g. 276 (Germany), 528 (Netherlands). */
  targetMarketCountryCode?: string;
  /** The Standard Business Document Header's InstanceIdentifier (one per message). */
  documentIdentifier?: string;
  /**
   * The confirmation's own identification: `catalogueItemConfirmationIdentification/entityIdentification`
   * (3.1) or `…/uniqueCreatorIdentification` (2.8).
   */
  confirmationIdentifier?: string;
  /**
   * The confirmation's own creation time, as written: the element `creationDateTime` (3.1) or the
   * attribute `creationDateTime` of the confirmation (2.8); else the header's `CreationDateAndTime`.
   */
  creationDateTime?: string;
  /**
   * GLN of the confirmation's creator: the identification's `contentOwner/gln`, else the message
   * header's sender.
   */
  creatorGln?: string;
  /**
   * GLN of the system that wrote the confirmation: `catalogueItemConfirmationState/messageCreatorGLN`
   * (3.1, mandatory: the recipient or a data pool acting for it); in 2.8, which has no such element,
   * the content owner of the message's own `entityIdentification`.
   */
  messageCreatorGln?: string;
  /** `messageCreatorName` (3.1, optional). */
  messageCreatorName?: string;
  statuses: CicStatus[];
  /** What the caps left out of this confirmation (docs/events.md); absent when nothing was. */
  truncated?: GdsnTruncation;
}

const CONFIRMATION = 'catalogueItemConfirmation';
const STATE = 'catalogueItemConfirmationState';
/** Headers sit near the root; searching deeper would only cost time. */
const HEADER_SEARCH_DEPTH = 3;

function optionalText(element: XmlElement | undefined): string | undefined {
  const text = textOf(element);
  return text === '' ? undefined : text;
}

/**
 * Calls `visit` with each child element list of `element` (attributes and text skipped) until it
 * returns true. A loop over the keys, not `Object.entries`: the walk runs over every element of every
 * messaging asset, and the arrays of entries were most of its cost.
 */
function someChildList(
  element: XmlElement,
  visit: (name: string, elements: XmlElement[]) => boolean,
): boolean {
  for (const name in element) {
    const value = element[name];
    if (Array.isArray(value) && visit(name, value)) return true;
  }
  return false;
}

function isConfirmation(name: string, element: XmlElement): boolean {
  return name === CONFIRMATION && child(element, STATE) !== undefined;
}

/** Every confirmation element in document order; does not descend into a confirmation. */
function findConfirmations(document: ParsedDocument): XmlElement[] {
  if (isConfirmation(document.rootName, document.root)) return [document.root];
  const found: XmlElement[] = [];
  const visit = (element: XmlElement): boolean =>
    someChildList(element, (name, elements) => {
      for (const candidate of elements) {
        if (isConfirmation(name, candidate)) found.push(candidate);
        else visit(candidate);
      }
      return false;
    });
  visit(document.root);
  return found;
}

function findFirst(element: XmlElement, name: string, depth: number): XmlElement | undefined {
  const direct = child(element, name);
  if (direct !== undefined || depth <= 1) return direct;
  let found: XmlElement | undefined;
  someChildList(element, (_, elements) =>
    elements.some((candidate) => {
      found = findFirst(candidate, name, depth - 1);
      return found !== undefined;
    }),
  );
  return found;
}

/** `<x>528</x>` or `<x><countryISOCode>528</countryISOCode></x>`. */
function countryCode(element: XmlElement | undefined): string | undefined {
  return optionalText(element) ?? optionalText(child(element, 'countryISOCode'));
}

function targetMarketOf(reference: XmlElement | undefined): string | undefined {
  return (
    countryCode(child(reference, 'targetMarketCountryCode')) ??
    countryCode(child(child(reference, 'targetMarket'), 'targetMarketCountryCode'))
  );
}

function statusesOf(confirmation: XmlElement, caps: Truncation): CicStatus[] {
  const statuses: CicStatus[] = [];
  const max = GDSN_SUMMARY_CAPS.statuses;
  for (const detail of children(confirmation, 'catalogueItemConfirmationStatusDetail')) {
    const gtin = optionalText(child(child(detail, 'confirmationStatusCatalogueItem'), 'gtin'));
    for (const status of children(detail, 'catalogueItemConfirmationStatus')) {
      if (statuses.length === max) {
        caps.count('statuses', 1);
        continue;
      }
      statuses.push({
        code: caps.text(textOf(child(status, 'confirmationStatusCode'))),
        ...(gtin === undefined ? {} : { gtin }),
        descriptions: descriptionsOf(status, 'confirmationStatusCodeDescription', caps),
        ...longDescriptionsOf(status, caps),
        correctiveActions: caps.take(children(status, 'correctiveAction'), max, 'statuses').map((action) => {
          const information = caps.text(optionalText(child(action, 'expectedCorrectiveInformation')));
          return {
            code: caps.text(textOf(child(action, 'correctiveActionCode'))),
            ...(information === undefined ? {} : { expectedCorrectiveInformation: information }),
          };
        }),
      });
    }
  }
  return statuses;
}

function descriptionsOf(status: XmlElement, name: string, caps: Truncation): CicDescription[] {
  return caps.take(children(status, name), GDSN_SUMMARY_CAPS.statuses, 'statuses').map((element) => {
    const description = descriptionOf(element);
    return { ...description, text: caps.text(description.text) };
  });
}

function longDescriptionsOf(status: XmlElement, caps: Truncation): { longDescriptions?: CicDescription[] } {
  const long = descriptionsOf(status, 'additionalConfirmationStatusLongDescription', caps).filter(
    (description) => description.text !== '',
  );
  return long.length === 0 ? {} : { longDescriptions: long };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function summarise(confirmation: XmlElement, header: MessageHeader): CicSummary | undefined {
  const stateElement = child(confirmation, STATE);
  const stateCode = optionalText(child(stateElement, 'catalogueItemConfirmationStateCode'));
  const stateAttribute = attributeOf(stateElement, 'state')?.trim() || undefined;
  const state = stateCode ?? stateAttribute;
  const reference = child(confirmation, 'catalogueItemReference');
  const gtin = optionalText(child(reference, 'gtin'));
  if (state === undefined || gtin === undefined) return undefined;

  const caps = new Truncation();
  const statuses = statusesOf(confirmation, caps);
  const fields = withoutUndefined({
    state,
    gtin,
    recipientGln:
      optionalText(child(stateElement, 'recipientGLN')) ?? optionalText(child(confirmation, 'recipientGLN')),
    recipientDataPool:
      optionalText(child(stateElement, 'recipientDataPool')) ??
      optionalText(child(confirmation, 'recipientDataPool')),
    dataSource: optionalText(child(reference, 'dataSource')),
    targetMarketCountryCode: targetMarketOf(reference),
    documentIdentifier: header.documentIdentifier,
    ...identificationOf(confirmation, 'catalogueItemConfirmationIdentification', header),
    messageCreatorGln: optionalText(child(stateElement, 'messageCreatorGLN')) ?? header.messageCreatorGln,
    messageCreatorName: optionalText(child(stateElement, 'messageCreatorName')),
  });
  // Every text within the text cap: GLNs, GTINs and identifiers are a partner's text like any other.
  const capped = Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, caps.text(value)]));
  return withoutUndefined<CicSummary>({
    gdsnVersion: stateCode === undefined ? '2.8' : '3.1',
    ...(capped as typeof fields),
    statuses,
    truncated: caps.marker(),
  });
}

/** What the Standard Business Document Header says of the whole message. */
export interface MessageHeader {
  documentIdentifier?: string | undefined;
  creationDateTime?: string | undefined;
  senderGln?: string | undefined;
  receiverGln?: string | undefined;
  /** `TypeVersion`, e.g. 3.1 or 2.8. */
  typeVersion?: string | undefined;
  /**
   * 2.8: the content owner of the message's own identification (`message/entityIdentification`), the
   * party that created the message. 3.1 messages have no such element.
   */
  messageCreatorGln?: string | undefined;
}

/** The header of `document` (empty when it has none). */
export function messageHeaderOf(document: ParsedDocument): MessageHeader {
  const header = findFirst(document.root, 'StandardBusinessDocumentHeader', HEADER_SEARCH_DEPTH);
  const identification = child(header, 'DocumentIdentification');
  return {
    documentIdentifier: optionalText(child(identification, 'InstanceIdentifier')),
    creationDateTime: optionalText(child(identification, 'CreationDateAndTime')),
    senderGln: optionalText(child(child(header, 'Sender'), 'Identifier')),
    receiverGln: optionalText(child(child(header, 'Receiver'), 'Identifier')),
    typeVersion: optionalText(child(identification, 'TypeVersion')),
    messageCreatorGln: optionalText(
      child(
        child(
          child(findFirst(document.root, 'message', HEADER_SEARCH_DEPTH), 'entityIdentification'),
          'contentOwner',
        ),
        'gln',
      ),
    ),
  };
}

/**
 * A document's own identifier, time and creator, in both versions: 3.1 `<x…Identification>
 * <entityIdentification>` and a `creationDateTime` element; 2.8 `uniqueCreatorIdentification` and a
 * `creationDateTime` attribute. The header's time and sender stand in for what the document lacks.
 */
export function identificationOf(
  element: XmlElement,
  identificationName: string,
  header: MessageHeader,
): { confirmationIdentifier?: string; creationDateTime?: string; creatorGln?: string } {
  const identification = child(element, identificationName);
  const identifier =
    optionalText(child(identification, 'entityIdentification')) ??
    optionalText(child(identification, 'uniqueCreatorIdentification'));
  const time =
    optionalText(child(element, 'creationDateTime')) ??
    (attributeOf(element, 'creationDateTime')?.trim() || undefined) ??
    header.creationDateTime;
  const creator = optionalText(child(child(identification, 'contentOwner'), 'gln')) ?? header.senderGln;
  return withoutUndefined({
    confirmationIdentifier: identifier,
    creationDateTime: time,
    creatorGln: creator,
  });
}

/**
 * One summary per CatalogueItemConfirmation in `document`, in document order; `undefined` when the
 * document holds none (it is then an ordinary, generically parsed document).
 *
 * @example
 * const cic = summariseCatalogueItemConfirmation(parseMessagingAsset(xml));
 * if (cic) for (const c of cic) show(c.gtin, c.state, c.statuses.map((s) => s.code));
 */
export function summariseCatalogueItemConfirmation(document: ParsedDocument): CicSummary[] | undefined {
  const confirmations = findConfirmations(document);
  if (confirmations.length === 0) return undefined;
  const header = messageHeaderOf(document);
  const summaries = confirmations
    .map((confirmation) => summarise(confirmation, header))
    .filter((summary): summary is CicSummary => summary !== undefined);
  return summaries.length === 0 ? undefined : summaries;
}
