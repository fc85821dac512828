/**
 * Reading the fields GDSN messages share, in both generations: texts, flags, GLNs, GTINs, target
 * markets and item references, wherever a sender puts them (element or attribute, 3.1 or 2.8 form).
 */
import { attributeOf, child, children, textOf, type XmlElement } from '../document.ts';
import type { GdsnItem } from './types.ts';

/** Business documents sit within about 8 levels of the root (SBD, message, transaction, command, operand). */
export const SEARCH_DEPTH = 10;

export function optionalText(element: XmlElement | undefined): string | undefined {
  const text = textOf(element);
  return text === '' ? undefined : text;
}

/** `<x>v</x>` or `x="v"` on `owner`. */
export function elementOrAttribute(owner: XmlElement | undefined, name: string): string | undefined {
  return optionalText(child(owner, name)) ?? (attributeOf(owner, name)?.trim() || undefined);
}

export function flag(owner: XmlElement | undefined, name: string): boolean | undefined {
  const value = elementOrAttribute(owner, name)?.toLowerCase();
  return value === undefined ? undefined : value === 'true' || value === '1';
}

export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function eachChild(element: XmlElement, visit: (name: string, candidate: XmlElement) => void): void {
  for (const name in element) {
    const value = element[name];
    if (Array.isArray(value)) for (const candidate of value) visit(name, candidate);
  }
}

/** Every element named one of `names` below `element` (not inside a found one), in document order. */
export function findAll(element: XmlElement, names: ReadonlySet<string>, depth = SEARCH_DEPTH): XmlElement[] {
  return findAllNamed(element, names, depth).map((found) => found.element);
}

/** {@link findAll}, with the local name each element was found under. */
export function findAllNamed(
  element: XmlElement,
  names: ReadonlySet<string>,
  depth = SEARCH_DEPTH,
): Array<{ name: string; element: XmlElement }> {
  const found: Array<{ name: string; element: XmlElement }> = [];
  const visit = (current: XmlElement, left: number): void =>
    eachChild(current, (name, candidate) => {
      if (names.has(name)) found.push({ name, element: candidate });
      else if (left > 1) visit(candidate, left - 1);
    });
  visit(element, depth);
  return found;
}

export function countryCode(element: XmlElement | undefined): string | undefined {
  return optionalText(element) ?? optionalText(child(element, 'countryISOCode'));
}

/** `targetMarketCountryCode` directly, or under `targetMarket` / `targetMarketInformation`. */
export function targetMarketOf(owner: XmlElement | undefined): string | undefined {
  return (
    countryCode(child(owner, 'targetMarketCountryCode')) ??
    countryCode(child(child(owner, 'targetMarket'), 'targetMarketCountryCode')) ??
    countryCode(child(child(owner, 'targetMarketInformation'), 'targetMarketCountryCode'))
  );
}

export function glnOf(element: XmlElement | undefined): string | undefined {
  return optionalText(element) ?? optionalText(child(element, 'gln'));
}

/** The GTIN of an owner: `gtin`, 2.8's `gTIN` (a subscription or resend request), or 2.8's `tradeItemIdentification/gtin`. */
export function gtinOf(owner: XmlElement | undefined): string | undefined {
  return (
    optionalText(child(owner, 'gtin')) ??
    optionalText(child(owner, 'gTIN')) ??
    optionalText(child(child(owner, 'tradeItemIdentification'), 'gtin'))
  );
}

/** An item reference (`catalogueItemReference` and its kin): GTIN, data source, target market. */
export function referenceOf(reference: XmlElement | undefined): GdsnItem | undefined {
  const gtin = gtinOf(reference);
  if (gtin === undefined) return undefined;
  return withoutUndefined<GdsnItem>({
    gtin,
    informationProvider: glnOf(child(reference, 'dataSource')),
    targetMarketCountryCode: targetMarketOf(reference),
  });
}

export function recipientOf(owner: XmlElement | undefined): string | undefined {
  return glnOf(child(owner, 'dataRecipient')) ?? glnOf(child(owner, 'recipientGLN'));
}

/** Every `dataRecipient` of an owner (a withdrawal names one or more), in document order. */
export function recipientsOf(owner: XmlElement | undefined): string[] {
  return children(owner, 'dataRecipient')
    .map(glnOf)
    .filter((gln): gln is string => gln !== undefined);
}
