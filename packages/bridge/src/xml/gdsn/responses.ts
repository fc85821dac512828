/**
 * The answers of a data pool or the Global Registry: a GS1 Response (3.1 `gS1Response`, 2.8
 * `response`/`gDSNResponse`) with every error of its exceptions, and a registration response's items.
 */
import { type CicDescription, descriptionOf } from '../cic.ts';
import { attributeOf, child, children, textOf, type XmlElement } from '../document.ts';
import { elementOrAttribute, findAll, optionalText, referenceOf, withoutUndefined } from './read.ts';
import type { GdsnError, GdsnItem, GdsnMessageSummary } from './types.ts';

export const LEVELS: ReadonlyArray<[string, GdsnError['level']]> = [
  ['messageException', 'message'],
  ['transactionException', 'transaction'],
  ['commandException', 'command'],
  ['documentException', 'document'],
  ['attributeException', 'attribute'],
];
export const ERROR_NAMES = ['gS1Error', 'gDSNError', 'error'];
export const GTIN_IN_TEXT = /\b\d{14}\b/g;

export function identifierOf(exception: XmlElement, names: readonly string[]): string | undefined {
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

export const IDENTIFIERS: Record<string, readonly string[]> = {
  transaction: ['transactionIdentification', 'transactionIdentifier', 'entityIdentification'],
  command: ['commandIdentification', 'commandIdentifier', 'entityIdentification'],
  document: ['documentIdentification', 'documentIdentifier', 'entityIdentification'],
};

export function errorOf(
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
export function errorsOf(exception: XmlElement): GdsnError[] {
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

export function responseSummary(
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

const REFERENCES = new Set(['catalogueItemReference', 'catalogueItem']);

/** A registration response: each item registered or refused, with its status, and its errors. */
export function registrationItems(element: XmlElement): { items: GdsnItem[]; errors: GdsnError[] } {
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
