/**
 * Reading JSON that came from outside (a queue message, a file, a stored document, a PDS answer): read
 * exactly, and a text that is not JSON gets the caller's error, which names what the text was and
 * what to do, not a bare SyntaxError.
 *
 * Exactly: `JSON.parse` of Node 24 and 26 misreads object keys written with escapes once it has read
 * a key such as `"\\u"` in the same position (V8 defect, nodejs/node#63785: after
 * `{"e":0,"\\u":0,"f":0}`, `{"e":0,"\u00e9x":0,"f":0}` comes back with the key `\u` instead of `éx`).
 * So a text whose keys carry an escape is read by @streamparser/json, which decodes strings itself;
 * every other text (nearly all of them: most hold no backslash at all) keeps `JSON.parse`'s speed
 * (bench/json.ts).
 */
import { JSONParser } from '@streamparser/json';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * Whether an object key of `text` is written with an escape (`"\u00e9x":`, `"a\"b":`). One
 * `indexOf` when the text has no backslash; otherwise, from each backslash (in JSON always inside a
 * string), the rest of its string and whether a `:` follows it. A text that is not JSON may answer
 * either way: both readers refuse it.
 */
export function hasEscapedKey(text: string): boolean {
  let at = text.indexOf('\\');
  while (at !== -1) {
    let i = at;
    // The end of the string holding this backslash: every backslash escapes the character after it.
    for (let code = text.charCodeAt(i); i < text.length && code !== QUOTE; code = text.charCodeAt(i)) {
      i += code === BACKSLASH ? 2 : 1;
    }
    i++;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) === COLON) return true;
    at = text.indexOf('\\', i);
  }
  return false;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Reads `text` with @streamparser/json: the value, or the parser's error. */
function parseWithStreamParser(text: string): unknown {
  const parser = new JSONParser({ paths: ['$'], keepStack: false });
  let result: unknown;
  let found = false;
  parser.onValue = ({ value }) => {
    result = value;
    found = true;
  };
  parser.write(text);
  if (!parser.isEnded) parser.end();
  if (!found) throw new SyntaxError('Unexpected end of JSON input');
  return result;
}

/**
 * `JSON.parse(text)` without the engine's misreading of escaped keys (see the module comment); throws
 * a SyntaxError when `text` is not JSON.
 *
 * @example
 * parseJson('{"\\u00e9x":1}'); // { éx: 1 }, whatever was parsed before
 */
export function parseJson(text: string): unknown {
  return hasEscapedKey(text) ? parseWithStreamParser(text) : JSON.parse(text);
}

/**
 * {@link parseJson}; when `text` is not JSON, throws the error `refuse` builds from the parse failure.
 *
 * @example
 * ```ts
 * const value = parseJsonOr(record.body, (cause) => new TypeError('The message is not JSON', { cause }));
 * ```
 */
export function parseJsonOr(text: string, refuse: (cause: unknown) => Error): unknown {
  try {
    return parseJson(text);
  } catch (cause) {
    throw refuse(cause);
  }
}
