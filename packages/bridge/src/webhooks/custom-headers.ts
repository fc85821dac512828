/**
 * Custom headers per endpoint (an API key a receiver requires): checked once at registration or
 * change, stored in the secret store (./secrets.ts), sent on every attempt, never shown (views show
 * their names only). docs/webhooks.md, "Custom headers".
 */
import { WebhookError } from './errors.ts';

/** At most this many custom headers per endpoint. */
export const MAX_CUSTOM_HEADERS = 10;
/** At most this many bytes of names and values together (as sent: `name: value`). */
export const MAX_CUSTOM_HEADER_BYTES = 4_096;

/**
 * Header names the bridge sets itself or that would break the request's framing or connection: the
 * Standard Webhooks headers (and every `webhook-` name), the body's description, the hop-by-hop
 * headers and the host.
 */
export const RESERVED_HEADER_NAMES: readonly string[] = Object.freeze([
  'connection',
  'content-encoding',
  'content-length',
  'content-type',
  'expect',
  'host',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'user-agent',
]);

/** An RFC 9110 token: the characters a header name may have. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Visible ASCII, spaces and tabs: no CR, LF or other control character can split the request. */
const VALUE = /^[\t\x20-\x7e]{0,1024}$/;

function invalid(message: string): WebhookError {
  return new WebhookError('WEBHOOK_ENDPOINT_INVALID', message);
}

/**
 * The headers, names lowercased; throws {@link WebhookError} naming the first problem and the fix.
 *
 * @example
 * ```ts
 * checkCustomHeaders({ 'X-Api-Key': 'k-123' }); // { 'x-api-key': 'k-123' }
 * checkCustomHeaders({ 'Content-Type': 'text/plain' }); // throws: the bridge sets content-type itself
 * ```
 */
export function checkCustomHeaders(headers: Readonly<Record<string, unknown>>): Record<string, string> {
  const entries = Object.entries(headers);
  if (entries.length > MAX_CUSTOM_HEADERS) {
    throw invalid(`At most ${MAX_CUSTOM_HEADERS} custom headers per endpoint (${entries.length} given)`);
  }
  const checked: Record<string, string> = {};
  let bytes = 0;
  for (const [given, value] of entries) {
    const name = given.toLowerCase();
    if (!TOKEN.test(given)) {
      throw invalid(
        `The header name ${JSON.stringify(given)} is not a valid HTTP header name: 1 to 64 letters, digits or !#$%&'*+.^_\`|~-`,
      );
    }
    if (RESERVED_HEADER_NAMES.includes(name) || name.startsWith('webhook-')) {
      throw invalid(
        `The header ${JSON.stringify(given)} is set by the bridge or by HTTP itself and cannot be a custom header; reserved: webhook-*, ${RESERVED_HEADER_NAMES.join(', ')}`,
      );
    }
    if (typeof value !== 'string' || !VALUE.test(value)) {
      throw invalid(
        `The value of header ${JSON.stringify(given)} must be text of at most 1024 visible ASCII characters, spaces or tabs (no line breaks or control characters)`,
      );
    }
    if (name in checked) throw invalid(`The header ${JSON.stringify(given)} is given twice`);
    checked[name] = value;
    bytes += Buffer.byteLength(`${name}: ${value}`);
  }
  if (bytes > MAX_CUSTOM_HEADER_BYTES) {
    throw invalid(`The custom headers take ${bytes} bytes; at most ${MAX_CUSTOM_HEADER_BYTES} are allowed`);
  }
  return checked;
}
