/**
 * One pass over a messaging asset that builds the document of document.ts directly, for documents in
 * the form senders write: an optional XML declaration, elements with ASCII names and quoted
 * attributes, text with well-formed references, comments, CDATA sections, processing instructions.
 *
 * It answers only where it is sure to give what the general path (parse.ts: fast-xml-parser's
 * validator, scan.ts, fast-xml-parser's parser) gives, down to the order of keys; for anything else
 * it returns `undefined` and the general path decides. That covers every error (so messages, lines
 * and columns stay the validator's), every DOCTYPE (refused there), a byte order mark, non-ASCII or
 * many-colon names, names that are properties of `Object.prototype`, and nesting deeper than the
 * limit. It follows the general path's rules where they differ from the XML specification's: text
 * is trimmed piece by piece (a comment joins the pieces around it; a child, a CDATA section or a
 * processing instruction separates them) before references are decoded; CDATA is kept as written;
 * attribute values are trimmed, not normalised; line ends are `\n`.
 */
import type { ParsedDocument, XmlElement } from './document.ts';
import { decodeXmlEntities } from './entities.ts';

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

/**
 * The document of `xml`, or `undefined` when the general path must decide (see the module comment).
 * The caller has checked the size.
 *
 * @example
 * parseInOnePass('<x:item xmlns:x="urn:x"><gtin>0061</gtin></x:item>', 100);
 * // { rootName: 'item', rootNamespace: 'urn:x', namespaces: { x: 'urn:x' }, root: { gtin: [{ '#text': '0061' }] } }
 * parseInOnePass('<a><b></a>', 100); // undefined: the general path words the error
 */
export function parseInOnePass(source: string, maxDepth: number): ParsedDocument | undefined {
  // The parser reads `\r\n` and `\r` as `\n`; the markup scan reads namespace values as written.
  const carriageReturns = source.includes('\r');
  const xml = carriageReturns ? source.replace(/\r\n?/g, '\n') : source;
  const length = xml.length;
  // No prototype: a prefix such as `__proto__` must stay an ordinary key (as in scan.ts).
  const namespaces: Record<string, string> = Object.create(null);
  const stack: Open[] = [];
  let root: Open | undefined;
  let rootNamespace: string | undefined;
  let rootDone = false;
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
        for (; ampersand !== -1 && ampersand < textEnd; ampersand = xml.indexOf('&', ampersand + 1)) {
          // Those before `i` were in markup (attribute values, comments, CDATA): the validator ignores them.
          if (ampersand >= i) {
            const end = referenceEnd(xml, ampersand);
            if (end === -1 || end > textEnd) return undefined;
          }
        }
        open.pending += xml.slice(i, textEnd);
      }
    }
    if (lt === -1) break;
    const next = xml.charCodeAt(lt + 1);

    if (next === SLASH) {
      const open = stack.pop();
      if (open === undefined || !xml.startsWith(open.qualifiedName, lt + 2)) return undefined;
      let j = lt + 2 + open.qualifiedName.length;
      while (isSpace(xml.charCodeAt(j))) j++;
      if (xml.charCodeAt(j) !== GT) return undefined;
      close(open);
      if (stack.length === 0) rootDone = true;
      i = j + 1;
    } else if (next === BANG) {
      if (xml.startsWith('--', lt + 2)) {
        // A comment does not end a piece of text: the pieces around it are joined.
        const end = xml.indexOf('-->', lt + 4);
        if (end === -1) return undefined;
        i = end + 3;
      } else if (xml.startsWith('[CDATA[', lt + 2)) {
        const open = stack[stack.length - 1];
        const end = xml.indexOf(']]>', lt + 9);
        if (open === undefined || end === -1) return undefined;
        flush(open);
        open.text = (open.text ?? '') + xml.slice(lt + 9, end);
        i = end + 3;
      } else {
        return undefined; // a DOCTYPE, or not markup at all
      }
    } else if (next === QUESTION) {
      const end = processingInstructionEnd(xml, lt);
      if (end === -1) return undefined;
      const open = stack[stack.length - 1];
      if (open !== undefined) flush(open);
      i = end;
    } else {
      if (rootDone || stack.length >= maxDepth || !startsName(next)) return undefined;
      let j = lt + 2;
      while (continuesName(xml.charCodeAt(j))) j++;
      const qualifiedName = xml.slice(lt + 1, j);
      const name = localName(qualifiedName);
      if (name === undefined || INHERITED.has(name)) return undefined;

      // The root's namespace is the one its own tag declares for its prefix (as in scan.ts).
      const rootPrefix =
        stack.length === 0 ? qualifiedName.slice(0, Math.max(0, qualifiedName.indexOf(':'))) : undefined;
      let attributes: string[] | undefined;
      let rawNames: Set<string> | undefined;
      let selfClosing = false;
      for (;;) {
        let code = xml.charCodeAt(j);
        if (code === GT) {
          j++;
          break;
        }
        if (code === SLASH) {
          if (xml.charCodeAt(j + 1) !== GT) return undefined;
          selfClosing = true;
          j += 2;
          break;
        }
        if (!isSpace(code)) return undefined;
        while (isSpace(xml.charCodeAt(j))) j++;
        code = xml.charCodeAt(j);
        if (code === GT || code === SLASH) continue;
        if (!startsName(code)) return undefined;
        const nameStart = j;
        while (continuesName(xml.charCodeAt(j))) j++;
        const rawName = xml.slice(nameStart, j);
        while (isSpace(xml.charCodeAt(j))) j++;
        if (xml.charCodeAt(j) !== EQUALS) return undefined;
        j++;
        while (isSpace(xml.charCodeAt(j))) j++;
        const quote = xml.charCodeAt(j);
        if (quote !== DOUBLE_QUOTE && quote !== SINGLE_QUOTE) return undefined;
        const valueEnd = xml.indexOf(quote === DOUBLE_QUOTE ? '"' : "'", j + 1);
        if (valueEnd === -1) return undefined;
        const raw = xml.slice(j + 1, valueEnd);
        j = valueEnd + 1;

        // A Set, not a list: a hostile tag may hold a million attributes.
        rawNames ??= new Set();
        if (rawNames.has(rawName)) return undefined;
        rawNames.add(rawName);
        const local = localName(rawName);
        if (local === undefined) return undefined;
        if (rawName === 'xmlns' || rawName.startsWith('xmlns:')) {
          if (carriageReturns && raw.includes('\n')) return undefined;
          const prefix = rawName === 'xmlns' ? '' : local;
          const uri = decodeXmlEntities(raw);
          if (!Object.hasOwn(namespaces, prefix)) namespaces[prefix] = uri;
          if (prefix === rootPrefix) rootNamespace ??= uri;
          continue;
        }
        attributes ??= [];
        attributes.push(`@_${local}`, decodeXmlEntities(raw.trim()));
      }

      const open: Open = { qualifiedName, element: {}, attributes, text: undefined, pending: '' };
      const parent = stack[stack.length - 1];
      if (parent === undefined) {
        root = open;
      } else {
        flush(parent);
        const siblings = parent.element[name] as XmlElement[] | undefined;
        if (siblings === undefined) parent.element[name] = [open.element];
        else siblings.push(open.element);
      }
      if (selfClosing) {
        close(open);
        if (parent === undefined) rootDone = true;
      } else {
        stack.push(open);
      }
      i = j;
    }
  }

  if (root === undefined || !rootDone) return undefined;
  const rootName = localName(root.qualifiedName) as string;
  return {
    rootName,
    ...(rootNamespace === undefined ? {} : { rootNamespace }),
    namespaces: { ...namespaces },
    root: root.element,
  };
}
