/**
 * Conditional GETs of the `/v1` families (folder listings, the current data model): a strong ETag,
 * `If-None-Match` answered with 304 and no body, and `allowCaching` mapped to `Cache-Control`.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { jsonReply, type Reply } from './reply.ts';

/** `Cache-Control` with `allowCaching=true`: any private cache may reuse the answer for a minute. */
export const CACHE_CONTROL_ALLOWED = 'private, max-age=60';
/** `Cache-Control` otherwise: a cache may keep the answer but must revalidate it (with the ETag) before reuse. */
export const CACHE_CONTROL_REVALIDATE = 'no-cache';

/**
 * A strong ETag (quoted) derived from `parts`.
 *
 * @example
 * etagOf('folder', 7, 12); // '"…22 base64url characters…"'
 */
export function etagOf(...parts: Array<string | number>): string {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

/**
 * True when the request's `If-None-Match` names `etag` (weak comparison, lists and `*` accepted).
 *
 * @example
 * ifNoneMatchHits(req, '"abc"'); // true for If-None-Match: W/"abc", "def"
 */
export function ifNoneMatchHits(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/** The `Cache-Control` value for the `allowCaching` query parameter. */
export function cacheControlFor(allowCaching: boolean | undefined): string {
  return allowCaching === true ? CACHE_CONTROL_ALLOWED : CACHE_CONTROL_REVALIDATE;
}

/**
 * A JSON 200 with `ETag` and `Cache-Control`, or a 304 without body when `If-None-Match` matches.
 *
 * @example
 * conditionalJson(req, model, etagOf(JSON.stringify(model)), false);
 */
export function conditionalJson(
  req: IncomingMessage,
  value: unknown,
  etag: string,
  allowCaching: boolean | undefined,
): Reply {
  const headers = { etag, 'cache-control': cacheControlFor(allowCaching) };
  if (ifNoneMatchHits(req, etag)) return { status: 304, headers };
  const reply = jsonReply(200, value);
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
