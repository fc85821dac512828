/**
 * A single linear pass over well-formed XML markup that collects what the tree parser drops:
 * namespace declarations (fast-xml-parser's `removeNSPrefix` discards `xmlns` attributes) and the
 * root element's qualified name. It also refuses any DOCTYPE, so DTD entities never reach a parser,
 * and every element name the document's shape cannot hold (an empty local name, a property of
 * `Object.prototype`), before fast-xml-parser would refuse or rename it.
 *
 * It runs after `XMLValidator.validate`, so it can rely on markup being balanced; comments,
 * CDATA sections and processing instructions are skipped so text inside them is never mistaken
 * for markup.
 */
import { decodeXmlEntities } from './entities.ts';
import { positionOf, XmlParseError } from './errors.ts';
import { type CountLimits, DEFAULT_COUNT_LIMITS } from './limits.ts';

export interface MarkupScan {
  /** Qualified name of the root element as written, e.g. `cic:catalogueItemConfirmation`. */
  rootQualifiedName: string;
  /** Namespace URI of the root element, when its prefix (or the default namespace) is declared. */
  rootNamespace: string | undefined;
  /** Prefix → URI for every declaration in the document (`''` is the default namespace); first one wins. */
  namespaces: Record<string, string>;
}

const WHITESPACE = /\s/;

function skipPast(xml: string, from: number, terminator: string): number {
  const end = xml.indexOf(terminator, from);
  return end === -1 ? xml.length : end + terminator.length;
}

function refuseDoctype(xml: string, index: number): never {
  const { line, column } = positionOf(xml, index);
  throw new XmlParseError(
    'DOCTYPE_REFUSED',
    `XML document declares a DOCTYPE at line ${line}, column ${column}: DTDs and entity declarations are refused so that no entity is ever expanded (XXE, entity bombs). GDSN messages never need one; ask the sender to remove the DOCTYPE.`,
    { line, column },
  );
}

/**
 * Reads one start tag beginning at `lt` (the `<`); returns its name, its namespace declarations
 * and the index after the tag. Quoted attribute values may contain `>` and are skipped whole.
 */
function readStartTag(
  xml: string,
  lt: number,
): {
  name: string;
  declarations: Array<[string, string]>;
  attributes: number;
  selfClosing: boolean;
  next: number;
} {
  let i = lt + 1;
  let attributes = 0;
  const nameStart = i;
  while (i < xml.length && !WHITESPACE.test(xml[i] as string) && xml[i] !== '>' && xml[i] !== '/') i++;
  const name = xml.slice(nameStart, i);
  const declarations: Array<[string, string]> = [];
  while (i < xml.length) {
    const char = xml[i] as string;
    if (char === '>') return { name, declarations, attributes, selfClosing: xml[i - 1] === '/', next: i + 1 };
    if (WHITESPACE.test(char) || char === '/') {
      i++;
      continue;
    }
    const attrStart = i;
    while (i < xml.length && xml[i] !== '=' && !WHITESPACE.test(xml[i] as string) && xml[i] !== '>') i++;
    const attrName = xml.slice(attrStart, i);
    while (i < xml.length && WHITESPACE.test(xml[i] as string)) i++;
    if (xml[i] !== '=') continue;
    i++;
    while (i < xml.length && WHITESPACE.test(xml[i] as string)) i++;
    const quote = xml[i];
    if (quote !== '"' && quote !== "'") continue;
    const valueEnd = xml.indexOf(quote, i + 1);
    const end = valueEnd === -1 ? xml.length : valueEnd;
    const value = xml.slice(i + 1, end);
    i = end + 1;
    attributes++;
    if (attrName === 'xmlns') declarations.push(['', decodeXmlEntities(value)]);
    else if (attrName.startsWith('xmlns:')) declarations.push([attrName.slice(6), decodeXmlEntities(value)]);
  }
  return { name, declarations, attributes, selfClosing: false, next: i };
}

/**
 * Element names fast-xml-parser cannot keep as they are: names that are properties of
 * `Object.prototype` (`constructor`, `toString`, `__proto__`, …) would reach the prototype of the
 * element objects, so it refuses some and renames others (`toString` → `__toString`), which would
 * break document.ts's promise that elements keep their local names.
 */
const RESERVED_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__', 'prototype']);

/**
 * Refuses an element name the document shape cannot hold: a name whose local part is empty (`a:`,
 * not a valid qualified name) or a local name of {@link RESERVED_NAMES}. Local name as the tree
 * parser takes it: everything after the first colon.
 */
function checkElementName(xml: string, lt: number, name: string): void {
  const local = name.slice(name.indexOf(':') + 1);
  if (local !== '' && !RESERVED_NAMES.has(local)) return;
  const { line, column } = positionOf(xml, lt);
  if (local === '') {
    throw new XmlParseError(
      'MALFORMED',
      `Malformed XML at line ${line}, column ${column}: the element name ${JSON.stringify(name)} has no local name after its namespace prefix. The messaging asset is not well-formed XML; the sender must correct it.`,
      { line, column },
    );
  }
  throw new XmlParseError(
    'NAME_REFUSED',
    `XML element ${JSON.stringify(name)} at line ${line}, column ${column} is refused: element names that are properties of Object.prototype (constructor, toString, __proto__, …) cannot be kept as the document's keys. GDSN messages never use them; ask the sender to check the message.`,
    { line, column },
  );
}

/** The `LIMIT_EXCEEDED` error of a document with more elements or attributes than `limit`. */
export function tooManyError(what: 'elements' | 'attributes', limit: number): XmlParseError {
  const option = what === 'elements' ? 'maxElements' : 'maxAttributes';
  return new XmlParseError(
    'LIMIT_EXCEEDED',
    `XML document holds more than ${limit} ${what}; GDSN messages hold a few thousand. Refused before it is built, so that one document cannot exhaust the memory; raise ${option} if such documents are expected.`,
  );
}

function refuseSecondRoot(xml: string, index: number): never {
  const { line, column } = positionOf(xml, index);
  throw new XmlParseError(
    'MALFORMED',
    `Malformed XML at line ${line}, column ${column}: a second root element starts after the first one ended. The messaging asset is not well-formed XML; the sender must correct it.`,
    { line, column },
  );
}

/**
 * Scans `xml` (already validated as well-formed) for its root element and namespace declarations.
 * Throws {@link XmlParseError} `DOCTYPE_REFUSED` when a DOCTYPE is present, `LIMIT_EXCEEDED` when
 * the document holds more elements or attributes than `limits` allow.
 *
 * @example
 * scanMarkup('<a:x xmlns:a="urn:a"/>'); // { rootQualifiedName: 'a:x', rootNamespace: 'urn:a', namespaces: { a: 'urn:a' } }
 */
export function scanMarkup(xml: string, limits: CountLimits = DEFAULT_COUNT_LIMITS): MarkupScan {
  let elements = 0;
  let attributes = 0;
  // No prototype: a prefix such as `__proto__` must stay an ordinary key.
  const namespaces: Record<string, string> = Object.create(null);
  let rootQualifiedName: string | undefined;
  let rootNamespace: string | undefined;
  let depth = 0;
  let i = 0;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    if (lt === -1) break;
    if (xml.startsWith('<!--', lt)) {
      i = skipPast(xml, lt + 4, '-->');
    } else if (xml.startsWith('<![CDATA[', lt)) {
      i = skipPast(xml, lt + 9, ']]>');
    } else if (xml.startsWith('<?', lt)) {
      i = skipPast(xml, lt + 2, '?>');
    } else if (xml.startsWith('<!', lt)) {
      if (xml.slice(lt + 2, lt + 9).toUpperCase() === 'DOCTYPE') refuseDoctype(xml, lt);
      i = lt + 2;
    } else if (xml[lt + 1] === '/') {
      depth--;
      i = skipPast(xml, lt + 2, '>');
    } else {
      // The validator lets `<a/><b/>` through; a second top-level element is caught here.
      if (depth === 0 && rootQualifiedName !== undefined) refuseSecondRoot(xml, lt);
      const tag = readStartTag(xml, lt);
      checkElementName(xml, lt, tag.name);
      elements++;
      attributes += tag.attributes;
      if (elements > limits.maxElements) throw tooManyError('elements', limits.maxElements);
      if (attributes > limits.maxAttributes) throw tooManyError('attributes', limits.maxAttributes);
      if (!tag.selfClosing) depth++;
      for (const [prefix, uri] of tag.declarations) {
        if (!Object.hasOwn(namespaces, prefix)) namespaces[prefix] = uri;
      }
      if (rootQualifiedName === undefined) {
        rootQualifiedName = tag.name;
        const colon = tag.name.indexOf(':');
        const prefix = colon === -1 ? '' : tag.name.slice(0, colon);
        rootNamespace = tag.declarations.find(([declared]) => declared === prefix)?.[1];
      }
      i = tag.next;
    }
  }
  return { rootQualifiedName: rootQualifiedName ?? '', rootNamespace, namespaces };
}
