/**
 * Reading the Idempotency-Key request header. draft-ietf-httpapi-idempotency-key-header makes it an
 * Item Structured Header whose value is a String (RFC 8941 §3.3.3), e.g. `Idempotency-Key: "8e03…"`;
 * most clients in the wild send the key bare (`Idempotency-Key: 8e03…`), as this API's first
 * callers did. Both are accepted and name the same key: `"order-42"` and `order-42` are one key.
 *
 * Malformed, answered 400 `invalid-header` (docs/api.md):
 * - empty, or only whitespace;
 * - quoted, but not a valid sf-string: a character outside printable ASCII (0x20–0x7E), a backslash
 *   that does not escape `"` or `\`, no closing quote, or anything after it (such as a second key);
 * - bare, with a character that is not visible ASCII (0x21–0x7E), or a `"` or `,`: a comma is how
 *   API Gateway joins two Idempotency-Key fields, which the draft forbids;
 * - longer than {@link MAX_IDEMPOTENCY_KEY_LENGTH} characters once unquoted.
 */

/** Longest key, counted after unquoting. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/**
 * A regular expression for the raw header value of either form (the length is checked apart). The
 * OpenAPI document publishes it as the parameter's `pattern`.
 */
export const IDEMPOTENCY_KEY_PATTERN = '^(?:"(?:[ !#-\\[\\]-~]|\\\\["\\\\])+"|[!#-+\\--~]+)$';

/** The key, or why the header value is malformed. */
export type ParsedIdempotencyKey = { ok: true; key: string } | { ok: false; reason: string };

/**
 * Reads an Idempotency-Key header value; see the module comment for what is malformed.
 *
 * @example
 * ```ts
 * parseIdempotencyKey('"order-42"'); // { ok: true, key: 'order-42' }
 * parseIdempotencyKey('order-42');   // { ok: true, key: 'order-42' }
 * parseIdempotencyKey('a, b');       // { ok: false, reason: 'contains a comma: …' }
 * ```
 */
export function parseIdempotencyKey(value: string): ParsedIdempotencyKey {
  const raw = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (raw === '') return { ok: false, reason: 'is empty' };
  const key = raw.startsWith('"') ? unquote(raw) : bare(raw);
  if (!key.ok) return key;
  if (key.key.length === 0) return { ok: false, reason: 'is an empty string' };
  if (key.key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return { ok: false, reason: `is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters` };
  }
  return key;
}

function bare(raw: string): ParsedIdempotencyKey {
  for (const character of raw) {
    if (character === ',') {
      return {
        ok: false,
        reason:
          'contains a comma: send one Idempotency-Key field (two are joined with commas), or quote the key',
      };
    }
    if (character === '"') return { ok: false, reason: 'contains a quote that does not start it' };
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x21 || code > 0x7e) {
      return { ok: false, reason: 'contains a character that is not visible ASCII (quote keys with spaces)' };
    }
  }
  return { ok: true, key: raw };
}

/** RFC 8941 §4.2.5, Parsing a String. */
function unquote(raw: string): ParsedIdempotencyKey {
  let key = '';
  for (let index = 1; index < raw.length; index++) {
    const character = raw.charAt(index);
    if (character === '\\') {
      const next = raw.charAt(index + 1);
      if (next !== '"' && next !== '\\') {
        return { ok: false, reason: 'has a backslash that escapes neither " nor \\' };
      }
      key += next;
      index += 1;
      continue;
    }
    if (character === '"') {
      if (index !== raw.length - 1) {
        return { ok: false, reason: 'has text after the closing quote (send one key)' };
      }
      return { ok: true, key };
    }
    const code = character.charCodeAt(0);
    if (code < 0x20 || code > 0x7e) {
      return { ok: false, reason: 'contains a character that is not printable ASCII' };
    }
    key += character;
  }
  return { ok: false, reason: 'has no closing quote' };
}
