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
 *
 * Safety: the size is checked before anything else (default 10 MiB), well-formedness is checked
 * with `XMLValidator` (errors carry line and column), a DOCTYPE is refused outright (so no XXE and
 * no entity bomb is possible), only XML's predefined entities and character references are decoded,
 * and nesting is bounded (default 100 levels).
 */

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { checkInteger } from '../core/index.ts';
import { xmlOnlyEntityDecoder } from './entities.ts';
import { XmlParseError } from './errors.ts';
import { scanMarkup } from './scan.ts';

/** Prefix of attribute keys in an {@link XmlElement}. */
export const ATTRIBUTE_PREFIX = '@_';
/** Key of an element's text in an {@link XmlElement}. */
export const TEXT_KEY = '#text';
/** Default size limit: 10 MiB of UTF-8. */
export const DEFAULT_MAX_XML_BYTES = 10 * 1024 * 1024;
/** Default nesting limit; GDSN messages nest about 10 levels deep. */
export const DEFAULT_MAX_XML_DEPTH = 100;

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

export interface ParseOptions {
  /** Largest accepted document in UTF-8 bytes; default {@link DEFAULT_MAX_XML_BYTES}. */
  maxBytes?: number;
  /** Deepest accepted element nesting; default {@link DEFAULT_MAX_XML_DEPTH}. */
  maxDepth?: number;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return checkInteger(name, value, { min: 1 }, undefined, `pass a number such as ${fallback}`);
}

function createParser(maxDepth: number): XMLParser {
  return new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: ATTRIBUTE_PREFIX,
    textNodeName: TEXT_KEY,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    removeNSPrefix: true,
    alwaysCreateTextNode: true,
    // Every element is an array, attributes never are: the shape does not depend on counts.
    isArray: (_name, _path, _isLeaf, isAttribute) => !isAttribute,
    processEntities: true,
    htmlEntities: false,
    entityDecoder: xmlOnlyEntityDecoder,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: maxDepth,
  });
}

const defaultParser = createParser(DEFAULT_MAX_XML_DEPTH);

function checkSize(xml: string, maxBytes: number): void {
  // UTF-8 never needs fewer bytes than UTF-16 code units, so a long string is rejected unmeasured.
  const bytes = xml.length > maxBytes ? xml.length : Buffer.byteLength(xml, 'utf8');
  if (bytes > maxBytes) {
    throw new XmlParseError(
      'TOO_LARGE',
      `XML document of ${xml.length > maxBytes ? 'at least ' : ''}${bytes} bytes exceeds the limit of ${maxBytes} bytes; raise maxBytes if documents this large are expected.`,
    );
  }
}

function checkWellFormed(xml: string): void {
  const result = XMLValidator.validate(xml);
  if (result === true) return;
  const { code, msg, line, col } = result.err;
  const where = `line ${line}${col === undefined ? '' : `, column ${col}`}`;
  const problem = msg.replace(/\.$/, '');
  throw new XmlParseError(
    'MALFORMED',
    `Malformed XML at ${where}: ${problem} (${code}). The messaging asset is not well-formed XML; the sender must correct it.`,
    { line, column: col },
  );
}

/** Drops empty `#text` keys so that text is present exactly when there is some. */
function dropEmptyText(elements: XmlElement[]): void {
  const pending: XmlElement[] = [...elements];
  for (let element = pending.pop(); element !== undefined; element = pending.pop()) {
    for (const [key, value] of Object.entries(element)) {
      if (key === TEXT_KEY) {
        if (value === '') delete element[key];
      } else if (Array.isArray(value)) {
        pending.push(...value);
      }
    }
  }
}

/**
 * Parses a messaging asset into the stable shape described in this module's comment.
 * Throws {@link XmlParseError} for anything that is not acceptable XML.
 *
 * @example
 * const doc = parseMessagingAsset('<x:item xmlns:x="urn:x"><gtin>00614141123452</gtin></x:item>');
 * doc.rootName;                      // 'item'
 * doc.root.gtin;                     // [{ '#text': '00614141123452' }]
 * doc.namespaces;                    // { x: 'urn:x' }
 */
export function parseMessagingAsset(xml: string, options: ParseOptions = {}): ParsedDocument {
  const maxBytes = positiveInteger('maxBytes', options.maxBytes, DEFAULT_MAX_XML_BYTES);
  const maxDepth = positiveInteger('maxDepth', options.maxDepth, DEFAULT_MAX_XML_DEPTH);
  checkSize(xml, maxBytes);
  checkWellFormed(xml);
  const scan = scanMarkup(xml);

  let tree: Record<string, XmlElement[]>;
  try {
    const parser = maxDepth === DEFAULT_MAX_XML_DEPTH ? defaultParser : createParser(maxDepth);
    tree = parser.parse(xml) as Record<string, XmlElement[]>;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (/nested/i.test(detail)) {
      throw new XmlParseError(
        'LIMIT_EXCEEDED',
        `XML document nests elements deeper than ${maxDepth} levels; raise maxDepth if such documents are expected.`,
        undefined,
        { cause: error },
      );
    }
    throw new XmlParseError('MALFORMED', `XML document could not be parsed: ${detail}.`, undefined, {
      cause: error,
    });
  }

  const [rootName, roots] = Object.entries(tree)[0] ?? [];
  const root = roots?.[0];
  if (rootName === undefined || root === undefined) {
    throw new XmlParseError('MALFORMED', 'XML document has no root element; the sender must correct it.');
  }
  dropEmptyText([root]);
  return {
    rootName,
    ...(scan.rootNamespace === undefined ? {} : { rootNamespace: scan.rootNamespace }),
    namespaces: { ...scan.namespaces },
    root,
  };
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
