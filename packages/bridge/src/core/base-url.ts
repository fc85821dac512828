/**
 * The one check of an http(s) base address (a URL other paths are appended to), shared by the
 * configuration (PDS_BASE_URL and the queue URLs, packages/bridge/src/config/settings.ts) and the PDS transport
 * (packages/bridge/src/pds/transport.ts). Each caller words its own message from the fault, so an operator reads the
 * same rule in both places.
 */

/** Why a text is not an http(s) base address. */
export type BaseUrlFault =
  | { readonly kind: 'invalid' }
  /** `protocol` as the URL has it, colon included: `ftp:`. */
  | { readonly kind: 'protocol'; readonly protocol: string }
  | { readonly kind: 'credentials' }
  | { readonly kind: 'query' };

/** The parsed URL, or what is wrong with it. */
export type BaseUrlCheck = { readonly ok: true; readonly url: URL } | ({ readonly ok: false } & BaseUrlFault);

/**
 * Parses an absolute http(s) URL without credentials, query or fragment (the parts a base address
 * must not carry: credentials have their own variables, and paths are appended to it).
 *
 * @example
 * ```ts
 * checkBaseUrl('https://pds.example.com/'); // { ok: true, url: URL }
 * checkBaseUrl('https://u:p@pds.example.com'); // { ok: false, kind: 'credentials' }
 * ```
 */
export function checkBaseUrl(raw: string): BaseUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, kind: 'invalid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, kind: 'protocol', protocol: url.protocol };
  }
  if (url.username || url.password) return { ok: false, kind: 'credentials' };
  if (url.search || url.hash) return { ok: false, kind: 'query' };
  return { ok: true, url };
}
