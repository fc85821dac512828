/**
 * The answers of a data pool or the Global Registry, read as the published schemas write them:
 *
 * - 3.1 GS1 Response (GS1Response.xsd): one or more `gS1Response`, each with the message it answers
 *   (`originatingMessageIdentifier`), a status per transaction (`transactionResponse/
 *   responseStatusCode`) and exceptions (`gS1Exception`: an optional `exceptionMessageTypeCode`, then a
 *   `messageException` or a `transactionException` holding `commandException`s, `documentException`s
 *   and `attributeException`s with `attributeName`, `attributeValue` and `xPath`; every level identified
 *   by its `entityIdentification` and holding `gS1Error`s of `errorCode`, `errorDateTime`,
 *   `errorDescription`).
 * - 2.8 GDSNResponse, as the Global Registry and data pools send it: `gDSNException` or
 *   `eANUCCResponse` (status as the attribute `responseStatus`) directly in the message, the same
 *   levels with `gDSNError`s; identifications as `uniqueCreatorIdentification`; codes, texts and times
 *   as elements or attributes. A `response`/`gDSNResponse` wrapper some senders add is read the same.
 * - Registration responses (CatalogueItemRegistrationResponse.xsd): each item registered or refused,
 *   with its status and times (3.1 `registrationDateTime`/`lastChangedDateTime` elements; 2.8
 *   `catalogueItemRegistrationInformation/@registrationDate`/`@lastChangedDate`).
 */
import { descriptionOf } from '../cic.ts';
import { attributeOf, child, children, textOf, type XmlElement } from '../document.ts';
import { GDSN_SUMMARY_CAPS, type Truncation } from './caps.ts';
import { elementOrAttribute, findAll, optionalText, referenceOf, withoutUndefined } from './read.ts';
import type { GdsnError, GdsnItem, GdsnTransactionResponse } from './types.ts';

type Level = GdsnError['level'];
type Context = Pick<
  GdsnError,
  | 'exceptionMessageType'
  | 'originalMessageIdentifier'
  | 'transactionIdentifier'
  | 'commandIdentifier'
  | 'documentIdentifier'
>;

/** The levels of an exception and the identifier field each sets on the errors below it. */
const LEVELS: ReadonlyArray<[string, Level]> = [
  ['messageException', 'message'],
  ['transactionException', 'transaction'],
  ['commandException', 'command'],
  ['documentException', 'document'],
  ['attributeException', 'attribute'],
];
const IDENTIFIER_FIELD: Partial<Record<Level, keyof Context>> = {
  transaction: 'transactionIdentifier',
  command: 'commandIdentifier',
  document: 'documentIdentifier',
};
/** The schemas' `entityIdentification`, then names some senders use instead. */
const IDENTIFIER_NAMES = [
  'entityIdentification',
  'transactionIdentification',
  'transactionIdentifier',
  'commandIdentification',
  'commandIdentifier',
  'documentIdentification',
  'documentIdentifier',
];
const ERROR_NAMES = ['gS1Error', 'gDSNError', 'error'];
const EXCEPTION_NAMES = ['gS1Exception', 'gDSNException'];
const GTIN_IN_TEXT = /\b\d{14}\b/g;
const REFUSED_STATUSES = new Set(['REJECTED', 'ERROR', 'REFUSED']);

export function isRefusedStatus(status: string | undefined): boolean {
  return REFUSED_STATUSES.has((status ?? '').toUpperCase());
}

/** An identification in either form: 3.1 `<x>id</x>` or `<x><entityIdentification>`, 2.8 `<x><uniqueCreatorIdentification>`. */
export function identificationText(owner: XmlElement | undefined): string | undefined {
  return (
    optionalText(child(owner, 'entityIdentification')) ??
    optionalText(child(owner, 'uniqueCreatorIdentification')) ??
    optionalText(owner)
  );
}

function identifierOf(exception: XmlElement): string | undefined {
  for (const name of IDENTIFIER_NAMES) {
    const text = identificationText(child(exception, name));
    if (text !== undefined) return text;
  }
  return attributeOf(exception, 'identifier')?.trim() || undefined;
}

/** What one summary collects from every response of a message. */
export interface ResponseReading {
  transactions: GdsnTransactionResponse[];
  errors: GdsnError[];
  /** GTINs the exceptions name (their errors, their elements), each once. */
  gtins: Set<string>;
  /** Statuses a response writes on itself (2.8 `@responseStatus`; some senders' 3.1). */
  ownStatuses: string[];
  originalMessageIdentifier?: string;
}

export function emptyReading(): ResponseReading {
  return { transactions: [], errors: [], gtins: new Set(), ownStatuses: [] };
}

/**
 * Reads one response element (`gS1Response`, `eANUCCResponse`, a wrapper) or one unwrapped 2.8
 * `gDSNException` into `reading`, within the caps.
 */
export function readResponse(
  element: XmlElement,
  name: string,
  reading: ResponseReading,
  caps: Truncation,
  fallbackOriginal: string | undefined,
): void {
  const original =
    identificationText(child(element, 'originatingMessageIdentifier')) ??
    identificationText(child(element, 'originalMessageIdentification')) ??
    fallbackOriginal;
  reading.originalMessageIdentifier ??= original;
  const own =
    elementOrAttribute(element, 'responseStatusCode') ?? elementOrAttribute(element, 'responseStatus');
  if (own !== undefined) reading.ownStatuses.push(caps.text(own));
  for (const transaction of children(element, 'transactionResponse')) {
    if (reading.transactions.length === GDSN_SUMMARY_CAPS.transactions) {
      caps.count('transactions', 1);
      continue;
    }
    const status =
      elementOrAttribute(transaction, 'responseStatusCode') ??
      elementOrAttribute(transaction, 'responseStatus');
    reading.transactions.push(
      withoutUndefined<GdsnTransactionResponse>({
        transactionIdentifier: caps.text(
          identificationText(child(transaction, 'transactionIdentifier')) ?? identifierOf(transaction),
        ),
        status: caps.text(status ?? ''),
        originalMessageIdentifier: caps.text(original),
      }),
    );
  }
  const context = withoutUndefined<Context>({ originalMessageIdentifier: caps.text(original) });
  const exceptions = EXCEPTION_NAMES.includes(name)
    ? [element]
    : EXCEPTION_NAMES.flatMap((exception) => children(element, exception));
  for (const exception of exceptions) readException(exception, context, reading, caps);
}

function readException(
  exception: XmlElement,
  context: Context,
  reading: ResponseReading,
  caps: Truncation,
): void {
  const type = caps.text(optionalText(child(exception, 'exceptionMessageTypeCode')));
  const withType = withoutUndefined<Context>({ ...context, exceptionMessageType: type });
  for (const [name, level] of LEVELS) {
    for (const inner of children(exception, name)) walkLevel(inner, level, withType, reading, caps);
  }
  // An exception holding errors directly (some senders leave out the level).
  for (const errorName of ERROR_NAMES) {
    for (const error of children(exception, errorName))
      addError(error, 'message', withType, {}, reading, caps);
  }
  // GTINs some senders write as elements of the refused document: named once, on the summary's items.
  for (const gtin of findAll(exception, new Set(['gtin', 'gTIN']))) {
    const text = optionalText(gtin);
    if (text !== undefined) reading.gtins.add(text);
  }
}

/** Every error of one level and the levels below it, parents before children. */
function walkLevel(
  element: XmlElement,
  level: Level,
  context: Context,
  reading: ResponseReading,
  caps: Truncation,
): void {
  const field = IDENTIFIER_FIELD[level];
  const id = field === undefined ? undefined : caps.text(identifierOf(element));
  const here = field === undefined || id === undefined ? context : { ...context, [field]: id };
  const attribute =
    level === 'attribute'
      ? withoutUndefined({
          attributeName: caps.text(optionalText(child(element, 'attributeName'))),
          attributeValue: caps.text(optionalText(child(element, 'attributeValue'))),
          xPath: caps.text(optionalText(child(element, 'xPath'))),
        })
      : {};
  for (const errorName of ERROR_NAMES) {
    for (const error of children(element, errorName)) addError(error, level, here, attribute, reading, caps);
  }
  for (const [name, nested] of LEVELS) {
    for (const inner of children(element, name)) walkLevel(inner, nested, here, reading, caps);
  }
}

function addError(
  error: XmlElement,
  level: Level,
  context: Context,
  attribute: Pick<GdsnError, 'attributeName' | 'attributeValue' | 'xPath'>,
  reading: ResponseReading,
  caps: Truncation,
): void {
  const gtins = errorGtins(error, attribute);
  for (const gtin of gtins) reading.gtins.add(gtin);
  if (reading.errors.length === GDSN_SUMMARY_CAPS.errors) {
    caps.count('errors', 1);
    return;
  }
  const descriptionElement = child(error, 'errorDescription');
  const description = descriptionElement
    ? descriptionOf(descriptionElement)
    : { text: attributeOf(error, 'errorDescription')?.trim() ?? '' };
  const listed = caps.take(gtins, GDSN_SUMMARY_CAPS.gtinsPerError, 'gtins');
  reading.errors.push(
    withoutUndefined<GdsnError>({
      code: caps.text(elementOrAttribute(error, 'errorCode') ?? ''),
      description: caps.text(description.text || undefined),
      languageCode: caps.text(description.languageCode),
      errorDateTime: caps.text(elementOrAttribute(error, 'errorDateTime')),
      level,
      ...context,
      ...attribute,
      gtins: listed.length === 0 ? undefined : listed,
    }),
  );
}

/** The GTINs an error names: in its text (whole, before any cut) and as the value of a GTIN attribute. */
function errorGtins(
  error: XmlElement,
  attribute: Pick<GdsnError, 'attributeName' | 'attributeValue'>,
): string[] {
  const text = textOf(child(error, 'errorDescription')) || attributeOf(error, 'errorDescription') || '';
  const found = new Set(text.match(GTIN_IN_TEXT) ?? []);
  if (attribute.attributeName !== undefined && /gtin/i.test(attribute.attributeName)) {
    const value = attribute.attributeValue?.trim();
    if (value !== undefined && /^\d{8,14}$/.test(value)) found.add(value);
  }
  return [...found];
}

const REFERENCES = new Set(['catalogueItemReference', 'catalogueItem']);

/** A registration response: each item registered or refused, with its status and times. */
export function registrationItems(element: XmlElement, caps: Truncation): GdsnItem[] {
  const status = caps.text(
    elementOrAttribute(element, 'responseStatusCode') ?? elementOrAttribute(element, 'responseStatus'),
  );
  const information = child(element, 'catalogueItemRegistrationInformation');
  const times = withoutUndefined({
    registrationDateTime: caps.text(
      elementOrAttribute(element, 'registrationDateTime') ??
        elementOrAttribute(information, 'registrationDate'),
    ),
    lastChangedDateTime: caps.text(
      elementOrAttribute(element, 'lastChangedDateTime') ??
        elementOrAttribute(information, 'lastChangedDate'),
    ),
  });
  return findAll(element, REFERENCES, 3)
    .map((reference) => referenceOf(reference) ?? referenceOf(child(reference, 'catalogueItemReference')))
    .filter((item): item is GdsnItem => item !== undefined)
    .map((item) => withoutUndefined<GdsnItem>({ ...item, status, ...times }));
}

/** The errors of a registration response's exceptions (some senders add them to a REJECTED one). */
export function registrationErrors(element: XmlElement, reading: ResponseReading, caps: Truncation): void {
  for (const name of EXCEPTION_NAMES) {
    for (const exception of children(element, name)) readException(exception, {}, reading, caps);
  }
}
