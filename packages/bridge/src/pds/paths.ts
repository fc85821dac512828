/**
 * Building request paths from identifiers that may contain anything: primary keys with '/', spaces,
 * unicode, '?' or '#'. Every interpolated value becomes exactly one path segment.
 */
import { PdsInvalidRequestError, type PdsRequestLine } from './errors.ts';

/** Characters encodeURIComponent leaves raw that some servers or proxies treat specially in a path. */
const SUB_DELIMS_LEFT_RAW = /[!'()*]/g;

/**
 * Encodes a value as one path segment: percent-encodes everything but RFC 3986 unreserved characters
 * (`A-Z a-z 0-9 - . _ ~`). Empty values, `.` and `..` are refused: URL parsers drop or climb on them
 * even when percent-encoded (WHATWG URL treats `%2e` as a dot), so no encoding reaches the server intact.
 *
 * @param line the request named in the error when the value is refused
 * @throws PdsInvalidRequestError for an empty value, a dot segment or text that is not well-formed Unicode
 * @example
 * ```ts
 * encodePathSegment('a/b c'); // 'a%2Fb%20c'
 * ```
 */
export function encodePathSegment(value: string | number, line?: PdsRequestLine): string {
  const text = String(value);
  const refusal = segmentRefusal(text);
  if (refusal !== undefined) {
    throw new PdsInvalidRequestError(refusal, line ?? { method: 'request', path: '(path segment)' });
  }
  return encodeSegment(text);
}

/**
 * Tagged template that encodes every interpolated value with {@link encodePathSegment}; the literal
 * parts are kept as written.
 *
 * @example
 * ```ts
 * pathOf`/api/v1/supplierreviews/${'4006381333931/x'}`; // '/api/v1/supplierreviews/4006381333931%2Fx'
 * ```
 */
export function pathOf(literals: TemplateStringsArray, ...values: Array<string | number>): string {
  let path = literals[0] ?? '';
  for (let index = 0; index < values.length; index++) {
    const text = String(values[index]);
    const refusal = segmentRefusal(text);
    if (refusal !== undefined) {
      // Errors show the template, not the refused value, e.g. "request /api/v1/supplierreviews/{…}";
      // built here, on the failure path only: a path built on every request allocates nothing for it.
      throw new PdsInvalidRequestError(refusal, { method: 'request', path: literals.join('{…}') });
    }
    path += encodeSegment(text) + (literals[index + 1] ?? '');
  }
  return path;
}

/** Why `text` cannot be one path segment, or undefined when it can. */
function segmentRefusal(text: string): string | undefined {
  if (text === '') return 'a path segment cannot be empty; pass a non-empty identifier';
  if (text === '.' || text === '..') {
    return `a path segment cannot be '${text}': URL parsers remove it; such an identifier cannot be addressed in a path`;
  }
  if (!text.isWellFormed()) {
    return 'a path segment holds a lone UTF-16 surrogate; pass well-formed Unicode text';
  }
  return undefined;
}

function encodeSegment(text: string): string {
  return encodeURIComponent(text).replace(
    SUB_DELIMS_LEFT_RAW,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
