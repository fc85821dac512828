/**
 * Paging of every `/v1` list that takes `limit` with `offset` or the `x-cursor` request header.
 *
 * The cursor is opaque to clients: base64url of `{"o":<next offset>,"l":<page size>}`. An answer carries
 * it in the `x-cursor` response header exactly when more records follow; sending it back as the
 * `x-cursor` request header returns the next page (an explicit `limit` overrides the size it holds;
 * `offset` is ignored when a cursor is sent). Every page also carries `x-total-count`.
 */
import type { IncomingMessage } from 'node:http';
import { X_CURSOR_HEADER, X_TOTAL_COUNT_HEADER } from '@pds-bridge/bridge/pds/resources';
import { SimulatorHttpError } from './errors.ts';
import { INT32_MAX, integerParam } from './query.ts';

/** Page size when neither `limit` nor a cursor says. */
export const DEFAULT_PAGE_SIZE = 100;
/** Largest `limit`; more is a 400. */
export const MAX_PAGE_SIZE = 1000;

/** One page and the headers that describe it. */
export interface Page<T> {
  items: T[];
  headers: Record<string, string>;
}

interface CursorContent {
  o: number;
  l: number;
}

/**
 * Encodes a cursor.
 *
 * @example
 * encodeCursor(100, 50); // 'eyJvIjoxMDAsImwiOjUwfQ'
 */
export function encodeCursor(offset: number, limit: number): string {
  const content: CursorContent = { o: offset, l: limit };
  return Buffer.from(JSON.stringify(content)).toString('base64url');
}

/** Decodes a cursor this simulator issued; 400 for anything else. */
export function decodeCursor(cursor: string): CursorContent {
  const refused = () =>
    new SimulatorHttpError(
      400,
      `The ${X_CURSOR_HEADER} header '${cursor.slice(0, 80)}' is not a cursor this server issued; send back the ${X_CURSOR_HEADER} value of the previous answer unchanged`,
    );
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw refused();
  let content: unknown;
  try {
    content = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const { o, l } = (content ?? {}) as Partial<CursorContent>;
  const valid =
    Number.isInteger(o) &&
    Number.isInteger(l) &&
    (o as number) >= 0 &&
    (o as number) <= INT32_MAX &&
    (l as number) >= 1 &&
    (l as number) <= MAX_PAGE_SIZE;
  if (!valid) throw refused();
  return { o: o as number, l: l as number };
}

/**
 * Cuts one page out of `all` as the request asks (`limit`, `offset`, `x-cursor`); 400 for a bad value.
 *
 * @example
 * const { items, headers } = paginate(records, req, query); // headers['x-cursor'] when more follow
 */
export function paginate<T>(all: readonly T[], req: IncomingMessage, query: URLSearchParams): Page<T> {
  const limitParam = integerParam(query, 'limit', { min: 1, max: MAX_PAGE_SIZE });
  const offsetParam = integerParam(query, 'offset');
  const cursorHeader = req.headers[X_CURSOR_HEADER];
  const cursorText = Array.isArray(cursorHeader) ? cursorHeader[0] : cursorHeader;
  const cursor = cursorText ? decodeCursor(cursorText.trim()) : undefined;
  const limit = limitParam ?? cursor?.l ?? DEFAULT_PAGE_SIZE;
  const offset = cursor ? cursor.o : (offsetParam ?? 0);
  const items = all.slice(offset, offset + limit);
  const headers: Record<string, string> = { [X_TOTAL_COUNT_HEADER]: String(all.length) };
  const next = offset + items.length;
  if (items.length > 0 && next < all.length) headers[X_CURSOR_HEADER] = encodeCursor(next, limit);
  return { items, headers };
}
