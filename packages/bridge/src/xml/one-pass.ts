/**
 * One pass over a messaging asset that builds the document of document.ts directly, for documents in
 * the form senders write: an optional XML declaration, elements with ASCII names and quoted
 * attributes, text with well-formed references, comments, CDATA sections, processing instructions.
 *
 * It answers only where it is sure to give what the general path (parse.ts: fast-xml-parser's
 * validator, scan.ts, fast-xml-parser's parser) gives, down to the order of keys; for anything else
 * it returns `undefined` and the general path decides. That covers every error (so messages, lines
 * and columns stay the validator's), every DOCTYPE (refused there), a byte order mark, non-ASCII or
 * many-colon names, names that are properties of `Object.prototype`, nesting deeper than the
 * limit, and more elements or attributes than the count limits (packages/bridge/src/xml/limits.ts). It follows the general path's rules where they differ from the XML specification's: text
 * is trimmed piece by piece (a comment joins the pieces around it; a child, a CDATA section or a
 * processing instruction separates them) before references are decoded; CDATA is kept as written;
 * attribute values are trimmed, not normalised; line ends are `\n`.
 */
import type { ParsedDocument, XmlElement } from './document.ts';
import { decodeXmlEntities } from './entities.ts';
import { type CountLimits, DEFAULT_COUNT_LIMITS } from './limits.ts';

const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const SEMICOLON = 0x3b;
const HASH = 0x23;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const COLON = 0x3a;

/** ASCII name characters: 1 may start a name, 2 may follow. Anything else sends a name elsewhere. */
const NAME = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code);
  if (/[A-Za-z_:]/.test(char)) NAME[code] = 1;
  else if (/[0-9.-]/.test(char)) NAME[code] = 2;
}
const startsName = (code: number): boolean => code < 128 && NAME[code] === 1;
const continuesName = (code: number): boolean => code < 128 && NAME[code] !== 0;
const isSpace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isHexDigit = (code: number): boolean =>
  isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
const isWordChar = (code: number): boolean =>
  code === 0x5f || isDigit(code) || (code < 128 && NAME[code] === 1 && code !== COLON);

/** Keys a plain object already has: as element names they would reach its prototype. */
const INHERITED = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

interface Open {
  /** The name as written, prefix included: the end tag must repeat it. */
  qualifiedName: string;
  element: XmlElement;
  /** Attributes, flat (key, value, key, value, …): set when the element closes, after its children and text. */
  attributes: string[] | undefined;
  /** Text pieces so far, each trimmed and decoded; undefined while there is none. */
  text: string | undefined;
  /** Raw text since the last piece. */
  pending: string;
}

/** Index after a reference starting at `at` (the `&`), when the validator would accept it; else -1. */
function referenceEnd(xml: string, at: number): number {
  let i = at + 1;
  if (xml.charCodeAt(i) === HASH) {
    i++;
    const hex = xml.charCodeAt(i) === 0x78; // 'x'; the validator refuses 'X'
    if (hex) i++;
    const start = i;
    while (i - start < 7 && (hex ? isHexDigit(xml.charCodeAt(i)) : isDigit(xml.charCodeAt(i)))) i++;
    return i > start && xml.charCodeAt(i) === SEMICOLON ? i + 1 : -1;
  }
  const start = i;
  while (i - start < 20 && isWordChar(xml.charCodeAt(i))) i++;
  return i > start && xml.charCodeAt(i) === SEMICOLON ? i + 1 : -1;
}

function isBlank(xml: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(xml.charCodeAt(i))) return false;
  return true;
}

/** Adds the raw text collected so far as one piece: trimmed, then decoded, as the general path does. */
function flush(open: Open): void {
  if (open.pending === '') return;
  const trimmed = open.pending.trim();
  open.pending = '';
  if (trimmed === '') return;
  const piece = decodeXmlEntities(trimmed);
  open.text = open.text === undefined ? piece : open.text + piece;
}

function close(open: Open): void {
  flush(open);
  const { element, attributes, text } = open;
  if (text !== undefined && text !== '') element['#text'] = text;
  if (attributes !== undefined) {
    for (let i = 0; i < attributes.length; i += 2)
      element[attributes[i] as string] = attributes[i + 1] as string;
  }
}

/** The local name of a qualified name; undefined for the forms the general path treats oddly. */
function localName(qualified: string): string | undefined {
  const colon = qualified.indexOf(':');
  if (colon === -1) return qualified;
  if (colon === 0 || colon === qualified.length - 1 || qualified.indexOf(':', colon + 1) !== -1)
    return undefined;
  return qualified.slice(colon + 1);
}

/** End of a processing instruction starting at `lt`, or -1 when it is one to leave to the general path. */
function processingInstructionEnd(xml: string, lt: number): number {
  let i = lt + 2;
  if (!startsName(xml.charCodeAt(i)) || xml.charCodeAt(i) === COLON) return -1;
  while (continuesName(xml.charCodeAt(i)) && xml.charCodeAt(i) !== COLON) i++;
  const target = xml.slice(lt + 2, i);
  // The declaration is only accepted first; any other target starting with `xml` is reserved.
  if (/^xml/i.test(target) && !(target === 'xml' && lt === 0)) return -1;
  const after = xml.charCodeAt(i);
  if (after !== 0x20 && after !== QUESTION) return -1;
  const end = xml.indexOf('?>', i);
  if (end === -1) return -1;
  // The parser skips quoted values when it looks for `?>`, the validator does not: they agree
  // only when every quote closes before the first `?>`.
  for (let q = i; q < end; q++) {
    const code = xml.charCodeAt(q);
    if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      q = xml.indexOf(xml[q] as string, q + 1);
      if (q === -1 || q > end) return -1;
    }
  }
  return end + 2;
}

/** What a step answers instead of the next index when the general path must decide. */
const DECLINE = -1;

/**
 * The document of `xml`, or `undefined` when the general path must decide (see the module comment).
 * The caller has checked the size.
 *
 * The loop over the markup stays in one function with its state in locals, and only the steps it
 * calls are split out (a start tag's attributes, end tags, comments, CDATA, references): split
 * into methods over shared state, it read documents of many elements 4 to 8% slower.
 *
 * @example
 * parseInOnePass('<x:item xmlns:x="urn:x"><gtin>0061</gtin></x:item>', 100);
 * // { rootName: 'item', rootNamespace: 'urn:x', namespaces: { x: 'urn:x' }, root: { gtin: [{ '#text': '0061' }] } }
 * parseInOnePass('<a><b></a>', 100); // undefined: the general path words the error
 */
export function parseInOnePass(
  source: string,
  maxDepth: number,
  limits: CountLimits = DEFAULT_COUNT_LIMITS,
): ParsedDocument | undefined {
  // The parser reads `\r\n` and `\r` as `\n`; the markup scan reads namespace values as written.
  const carriageReturns = source.includes('\r');
  const xml = carriageReturns ? source.replace(/\r\n?/g, '\n') : source;
  const length = xml.length;
  // No prototype: a prefix such as `__proto__` must stay an ordinary key (as in scan.ts).
  const namespaces: Record<string, string> = Object.create(null);
  const stack: Open[] = [];
  let root: Open | undefined;
  let rootDone = false;
  const tag: TagReading = {
    namespaces,
    carriageReturns,
    rootNamespace: undefined,
    selfClosing: false,
    attributesLeft: limits.maxAttributes,
  };
  // Over a count limit, the general path refuses the document (its scan counts before building).
  let elementsLeft = limits.maxElements;
  // Found once and moved forward, so that every `&` is looked at once, however many pieces of text.
  let ampersand = xml.indexOf('&');

  let i = 0;
  while (i < length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt === -1 ? length : lt;
    if (textEnd > i) {
      const open = stack[stack.length - 1];
      if (open === undefined) {
        if (!isBlank(xml, i, textEnd)) return undefined;
      } else {
        ampersand = referencesChecked(xml, i, textEnd, ampersand);
        if (ampersand === DECLINE_REFERENCE) return undefined;
        open.pending += xml.slice(i, textEnd);
      }
    }
    if (lt === -1) break;
    const next = xml.charCodeAt(lt + 1);

    if (next === SLASH) {
      const open = stack.pop();
      i = open === undefined ? DECLINE : endTagEnd(xml, lt, open);
      if (stack.length === 0) rootDone = true;
    } else if (next === BANG) {
      i = commentOrCdataEnd(xml, lt, stack[stack.length - 1]);
    } else if (next === QUESTION) {
      i = processingInstructionEnd(xml, lt);
      const open = stack[stack.length - 1];
      if (open !== undefined && i !== DECLINE) flush(open);
    } else {
      if (rootDone || stack.length >= maxDepth || !startsName(next)) return undefined;
      if (--elementsLeft < 0) return undefined;
      let j = lt + 2;
      while (continuesName(xml.charCodeAt(j))) j++;
      const qualifiedName = xml.slice(lt + 1, j);
      const name = localName(qualifiedName);
      if (name === undefined || INHERITED.has(name)) return undefined;

      // The root's namespace is the one its own tag declares for its prefix (as in scan.ts).
      const rootPrefix =
        stack.length === 0 ? qualifiedName.slice(0, Math.max(0, qualifiedName.indexOf(':'))) : undefined;
      const open: Open = { qualifiedName, element: {}, attributes: undefined, text: undefined, pending: '' };
      // Most tags have no attributes: those skip the call.
      if (xml.charCodeAt(j) === GT) {
        j++;
        tag.selfClosing = false;
      } else {
        j = attributesEnd(xml, j, open, rootPrefix, tag);
        if (j === DECLINE) return undefined;
      }

      const parent = stack[stack.length - 1];
      if (parent === undefined) root = open;
      else addChild(parent, name, open);
      if (tag.selfClosing) {
        close(open);
        if (parent === undefined) rootDone = true;
      } else {
        stack.push(open);
      }
      i = j;
    }
    if (i === DECLINE) return undefined;
  }

  if (root === undefined || !rootDone) return undefined;
  return documentOf(root, tag.rootNamespace, namespaces);
}

/** What `referencesChecked` answers when a reference must go to the general path (-1 means no `&` left). */
const DECLINE_REFERENCE = -2;

/**
 * Checks the references in the text from `from` to `to`, the next `&` being at `ampersand` (-1: none
 * left); the next `&` after the text, or `DECLINE_REFERENCE`.
 */
function referencesChecked(xml: string, from: number, to: number, ampersand: number): number {
  let at = ampersand;
  for (; at !== -1 && at < to; at = xml.indexOf('&', at + 1)) {
    // Those before `from` were in markup (attribute values, comments, CDATA): the validator ignores them.
    if (at >= from) {
      const end = referenceEnd(xml, at);
      if (end === -1 || end > to) return DECLINE_REFERENCE;
    }
  }
  return at;
}

/** Index after the end tag at `lt` of `open`, which it closes; `DECLINE` when it is not `open`'s. */
function endTagEnd(xml: string, lt: number, open: Open): number {
  if (!xml.startsWith(open.qualifiedName, lt + 2)) return DECLINE;
  let j = lt + 2 + open.qualifiedName.length;
  while (isSpace(xml.charCodeAt(j))) j++;
  if (xml.charCodeAt(j) !== GT) return DECLINE;
  close(open);
  return j + 1;
}

/** Index after the comment or CDATA section at `lt` (a CDATA section's text goes to `open`). */
function commentOrCdataEnd(xml: string, lt: number, open: Open | undefined): number {
  if (xml.startsWith('--', lt + 2)) {
    // A comment does not end a piece of text: the pieces around it are joined.
    const end = xml.indexOf('-->', lt + 4);
    return end === -1 ? DECLINE : end + 3;
  }
  if (!xml.startsWith('[CDATA[', lt + 2)) return DECLINE; // a DOCTYPE, or not markup at all
  const end = xml.indexOf(']]>', lt + 9);
  if (open === undefined || end === -1) return DECLINE;
  flush(open);
  open.text = (open.text ?? '') + xml.slice(lt + 9, end);
  return end + 3;
}

/** What reading the attributes of start tags shares with the loop: the namespaces, and how the last tag ended. */
interface TagReading {
  readonly namespaces: Record<string, string>;
  /** Whether the source had carriage returns: a namespace value with a line end is declined then. */
  readonly carriageReturns: boolean;
  /** The namespace the root's own tag declares for its prefix (as in scan.ts). */
  rootNamespace: string | undefined;
  /** Whether the last start tag read ended with `/>`. */
  selfClosing: boolean;
  /** Attributes (namespace declarations included) the document may still hold. */
  attributesLeft: number;
}

/**
 * Reads the attributes of a start tag from `at` to its `>` or `/>` (`tag.selfClosing`): namespace
 * declarations go to `tag`, the others to `open`. The index after the tag, or `DECLINE`.
 */
function attributesEnd(
  xml: string,
  at: number,
  open: Open,
  rootPrefix: string | undefined,
  tag: TagReading,
): number {
  let rawNames: Set<string> | undefined;
  let j = at;
  for (;;) {
    let code = xml.charCodeAt(j);
    if (code === GT || code === SLASH) {
      tag.selfClosing = code === SLASH;
      if (code === GT) return j + 1;
      return xml.charCodeAt(j + 1) === GT ? j + 2 : DECLINE;
    }
    if (!isSpace(code)) return DECLINE;
    while (isSpace(xml.charCodeAt(j))) j++;
    code = xml.charCodeAt(j);
    if (code === GT || code === SLASH) continue;
    if (!startsName(code)) return DECLINE;
    const nameStart = j;
    while (continuesName(xml.charCodeAt(j))) j++;
    const rawName = xml.slice(nameStart, j);
    if (--tag.attributesLeft < 0) return DECLINE;
    const quoteAt = valueStart(xml, j);
    const valueEnd = quoteAt === DECLINE ? DECLINE : xml.indexOf(xml[quoteAt] as string, quoteAt + 1);
    if (valueEnd === DECLINE) return DECLINE;
    const raw = xml.slice(quoteAt + 1, valueEnd);
    j = valueEnd + 1;

    // A Set, not a list: a hostile tag may hold a million attributes.
    rawNames ??= new Set();
    if (rawNames.has(rawName)) return DECLINE;
    rawNames.add(rawName);
    const local = localName(rawName);
    if (local === undefined) return DECLINE;
    if (rawName === 'xmlns' || rawName.startsWith('xmlns:')) {
      if (tag.carriageReturns && raw.includes('\n')) return DECLINE;
      const prefix = rawName === 'xmlns' ? '' : local;
      const uri = declareNamespace(tag.namespaces, prefix, raw);
      if (prefix === rootPrefix) tag.rootNamespace ??= uri;
    } else {
      open.attributes ??= [];
      open.attributes.push(`@_${local}`, decodeXmlEntities(raw.trim()));
    }
  }
}

/** Index of the opening quote of an attribute value, after `=` and spaces from `at`; else `DECLINE`. */
function valueStart(xml: string, at: number): number {
  let j = at;
  while (isSpace(xml.charCodeAt(j))) j++;
  if (xml.charCodeAt(j) !== EQUALS) return DECLINE;
  j++;
  while (isSpace(xml.charCodeAt(j))) j++;
  const quote = xml.charCodeAt(j);
  return quote === DOUBLE_QUOTE || quote === SINGLE_QUOTE ? j : DECLINE;
}

/** Records a namespace declaration (the first for a prefix counts, as in scan.ts); its URI. */
function declareNamespace(namespaces: Record<string, string>, prefix: string, raw: string): string {
  const uri = decodeXmlEntities(raw);
  if (!Object.hasOwn(namespaces, prefix)) namespaces[prefix] = uri;
  return uri;
}

/** Adds `child` to `parent`'s elements of its name, after the text so far. */
function addChild(parent: Open, name: string, child: Open): void {
  flush(parent);
  const siblings = parent.element[name] as XmlElement[] | undefined;
  if (siblings === undefined) parent.element[name] = [child.element];
  else siblings.push(child.element);
}

function documentOf(
  root: Open,
  rootNamespace: string | undefined,
  namespaces: Record<string, string>,
): ParsedDocument {
  return {
    rootName: localName(root.qualifiedName) as string,
    ...(rootNamespace === undefined ? {} : { rootNamespace }),
    namespaces: { ...namespaces },
    root: root.element,
  };
}
