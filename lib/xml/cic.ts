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

export type GdsnVersion = '3.1' | '2.8';

export interface CicDescription {
  languageCode?: string;
  text: string;
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
  /** The confirmation's own `catalogueItemConfirmationIdentification/entityIdentification`. */
  confirmationIdentifier?: string;
  /** The confirmation's `creationDateTime`, else the header's `CreationDateAndTime`, as written. */
  creationDateTime?: string;
  statuses: CicStatus[];
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

function statusesOf(confirmation: XmlElement): CicStatus[] {
  const statuses: CicStatus[] = [];
  for (const detail of children(confirmation, 'catalogueItemConfirmationStatusDetail')) {
    const gtin = optionalText(child(child(detail, 'confirmationStatusCatalogueItem'), 'gtin'));
    for (const status of children(detail, 'catalogueItemConfirmationStatus')) {
      statuses.push({
        code: textOf(child(status, 'confirmationStatusCode')),
        ...(gtin === undefined ? {} : { gtin }),
        descriptions: children(status, 'confirmationStatusCodeDescription').map((description) => {
          const languageCode = attributeOf(description, 'languageCode');
          return { ...(languageCode === undefined ? {} : { languageCode }), text: textOf(description) };
        }),
        correctiveActions: children(status, 'correctiveAction').map((action) => {
          const information = optionalText(child(action, 'expectedCorrectiveInformation'));
          return {
            code: textOf(child(action, 'correctiveActionCode')),
            ...(information === undefined ? {} : { expectedCorrectiveInformation: information }),
          };
        }),
      });
    }
  }
  return statuses;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

function summarise(
  confirmation: XmlElement,
  header: { documentIdentifier?: string | undefined; creationDateTime?: string | undefined },
): CicSummary | undefined {
  const stateElement = child(confirmation, STATE);
  const stateCode = optionalText(child(stateElement, 'catalogueItemConfirmationStateCode'));
  const stateAttribute = attributeOf(stateElement, 'state')?.trim() || undefined;
  const state = stateCode ?? stateAttribute;
  const reference = child(confirmation, 'catalogueItemReference');
  const gtin = optionalText(child(reference, 'gtin'));
  if (state === undefined || gtin === undefined) return undefined;

  return withoutUndefined<CicSummary>({
    gdsnVersion: stateCode === undefined ? '2.8' : '3.1',
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
    confirmationIdentifier: optionalText(
      child(child(confirmation, 'catalogueItemConfirmationIdentification'), 'entityIdentification'),
    ),
    creationDateTime: optionalText(child(confirmation, 'creationDateTime')) ?? header.creationDateTime,
    statuses: statusesOf(confirmation),
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
  const identification = child(
    findFirst(document.root, 'StandardBusinessDocumentHeader', HEADER_SEARCH_DEPTH),
    'DocumentIdentification',
  );
  const header = {
    documentIdentifier: optionalText(child(identification, 'InstanceIdentifier')),
    creationDateTime: optionalText(child(identification, 'CreationDateAndTime')),
  };
  const summaries = confirmations
    .map((confirmation) => summarise(confirmation, header))
    .filter((summary): summary is CicSummary => summary !== undefined);
  return summaries.length === 0 ? undefined : summaries;
}
