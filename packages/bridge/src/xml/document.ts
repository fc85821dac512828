/**
 * Messaging-asset XML → a JSON document whose shape does not depend on the data.
 *
 * The shape (stable whatever an element's count, attributes or emptiness):
 * - The root element is `document.root`, named by `document.rootName` (its local name).
 * - Every element is an object ({@link XmlElement}). Every child element is listed under its
 *   local name in an ARRAY, even when it occurs once: `root.transaction[0].documentCommand[0]`.
 * - Attributes are strings under `@_` + local name: `state="ACCEPTED"` → `{ '@_state': 'ACCEPTED' }`.
 * - Text (trimmed; CDATA merged in; the text of mixed content concatenated) is a string under
 *   `#text`, present only when not empty. So a value is always `el.name[0]['#text']`, and
 *   `textOf(child(el, 'name'))` reads it without caring whether it is there.
 * - Every value is a string: nothing is converted to numbers or booleans, so GTINs and GLNs keep
 *   their leading zeros (`00614141123452`).
 * - Namespace prefixes are removed from element and attribute names, so
 *   `catalogue_item_confirmation:catalogueItemConfirmation` and `cic:catalogueItemConfirmation`
 *   parse the same. The declarations are kept in `document.namespaces` (prefix → URI) and the root's
 *   namespace in `document.rootNamespace`. Elements of different namespaces with the same local name
 *   share one array: consumers match on local names.
 * - Comments, processing instructions and the XML declaration are dropped.
 * - Every element keeps its local name. So that it can, an element whose local name is a property
 *   of `Object.prototype` (`constructor`, `toString`, `__proto__`, …) or is empty (`<a:>`) makes the
 *   document a parse error (`NAME_REFUSED`, `MALFORMED`) instead of being renamed or dropped.
 *
 * parse.ts builds it (and says how it is kept safe); this file is the shape and its accessors.
 */

/** Prefix of attribute keys in an {@link XmlElement}. */
export const ATTRIBUTE_PREFIX = '@_';
/** Key of an element's text in an {@link XmlElement}. */
export const TEXT_KEY = '#text';

/** One element: `#text`, `@_<attribute>` strings and `<child>` arrays (see the module comment). */
export type XmlElement = { [key: string]: string | XmlElement[] };

/** A parsed messaging asset. */
export interface ParsedDocument {
  /** Local name of the root element, e.g. `catalogueItemConfirmationMessage`. */
  rootName: string;
  /** Namespace URI of the root element, when declared. */
  rootNamespace?: string;
  /** Every namespace declaration in the document: prefix → URI (`''` = default namespace). */
  namespaces: Record<string, string>;
  root: XmlElement;
}

/**
 * The child elements named `name` (local name) of `element`; an empty array when there are none.
 *
 * @example
 * children(doc.root, 'transaction').length; // how many transactions
 */
export function children(element: XmlElement | undefined, name: string): XmlElement[] {
  const value = element?.[name];
  return Array.isArray(value) ? value : [];
}

/** The first child element named `name`, or undefined. */
export function child(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return children(element, name)[0];
}

/** The text of `element` (`''` when it has none or is undefined). */
export function textOf(element: XmlElement | undefined): string {
  const value = element?.[TEXT_KEY];
  return typeof value === 'string' ? value : '';
}

/** The value of attribute `name` (local name) of `element`, or undefined. */
export function attributeOf(element: XmlElement | undefined, name: string): string | undefined {
  const value = element?.[`${ATTRIBUTE_PREFIX}${name}`];
  return typeof value === 'string' ? value : undefined;
}
