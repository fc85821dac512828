/**
 * Parsing a messaging asset into the shape of document.ts, safely.
 *
 * Safety: the size is checked before anything else (default 10 MiB), a DOCTYPE is refused outright
 * (so no XXE and no entity bomb is possible), only XML's predefined entities and character
 * references are decoded, and nesting is bounded (default 100 levels).
 *
 * Two paths give the same document. The one pass (one-pass.ts) reads documents in the form senders
 * write and returns nothing for anything else; then the general path decides: fast-xml-parser's
 * `XMLValidator` checks well-formedness (its errors carry line and column), scan.ts collects the
 * namespace declarations and refuses a DOCTYPE, and fast-xml-parser builds the tree. So every error
 * and every unusual document is handled exactly as before the one pass existed, and the common
 * document costs one pass instead of three (test/unit/xml-characterization.test.ts holds the results).
 */

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { boundedText, checkInteger } from '../core/index.ts';
import { ATTRIBUTE_PREFIX, type ParsedDocument, TEXT_KEY, type XmlElement } from './document.ts';
import { xmlOnlyEntityDecoder } from './entities.ts';
import { XmlParseError } from './errors.ts';
import {
  type CountLimits,
  DEFAULT_COUNT_LIMITS,
  DEFAULT_MAX_XML_ATTRIBUTES,
  DEFAULT_MAX_XML_ELEMENTS,
} from './limits.ts';
import { parseInOnePass } from './one-pass.ts';
import { scanMarkup } from './scan.ts';

/** Default size limit: 10 MiB of UTF-8. */
export const DEFAULT_MAX_XML_BYTES = 10 * 1024 * 1024;
/** Default nesting limit; GDSN messages nest about 10 levels deep. */
export const DEFAULT_MAX_XML_DEPTH = 100;

export interface ParseOptions {
  /** Largest accepted document in UTF-8 bytes; default {@link DEFAULT_MAX_XML_BYTES}. */
  maxBytes?: number;
  /**
   * Deepest accepted nesting below the root element (the root itself is not counted, as
   * fast-xml-parser counts): `maxDepth` 100 accepts a root with 100 levels of elements inside it.
   * Default {@link DEFAULT_MAX_XML_DEPTH}.
   */
  maxDepth?: number;
  /** Most elements accepted in the document (the root included); default {@link DEFAULT_MAX_XML_ELEMENTS}. */
  maxElements?: number;
  /**
   * Most attributes accepted in the document, namespace declarations included; default
   * {@link DEFAULT_MAX_XML_ATTRIBUTES}.
   */
  maxAttributes?: number;
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
  // The validator lists every unclosed tag; the list is cut so the sender's advice stays in the message.
  const problem = boundedText(msg.replace(/\.$/, ''), 1000);
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
        // One at a time: spreading a list of a million siblings overflows the stack.
        for (const nested of value) pending.push(nested);
      }
    }
  }
}

/**
 * Parses a messaging asset into the stable shape described in document.ts.
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
  const limits: CountLimits = {
    maxElements: positiveInteger('maxElements', options.maxElements, DEFAULT_MAX_XML_ELEMENTS),
    maxAttributes: positiveInteger('maxAttributes', options.maxAttributes, DEFAULT_MAX_XML_ATTRIBUTES),
  };
  checkSize(xml, maxBytes);
  return parseInOnePass(xml, maxDepth, limits) ?? parseWithFastXmlParser(xml, maxDepth, limits);
}

/**
 * The general path (size already checked): validator, markup scan, fast-xml-parser. Exported for
 * the tests that hold the one pass to it.
 */
export function parseWithFastXmlParser(
  xml: string,
  maxDepth: number,
  limits: CountLimits = DEFAULT_COUNT_LIMITS,
): ParsedDocument {
  checkWellFormed(xml);
  // The scan counts elements and attributes and refuses too many before the tree is built.
  const scan = scanMarkup(xml, limits);

  let tree: Record<string, XmlElement[]>;
  try {
    const parser = maxDepth === DEFAULT_MAX_XML_DEPTH ? defaultParser : createParser(maxDepth);
    tree = parser.parse(xml) as Record<string, XmlElement[]>;
  } catch (error) {
    const detail = boundedText(error instanceof Error ? error.message : String(error), 1000);
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
