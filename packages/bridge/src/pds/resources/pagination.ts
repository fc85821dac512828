/**
 * Paging of the `/v1` lists (`limit` with `offset` or the `x-cursor` header) as an async iterator, so
 * callers never write a paging loop:
 *
 * ```ts
 * for await (const subscription of pds.bulkSubscriptions.list({ active: true })) show(subscription.name);
 * ```
 *
 * The iterator follows `x-cursor` whenever the server sends one (and then stops at the first page without
 * it, as docs/spec-gaps.md says); a server that never sends one is paged by offset until `x-total-count`,
 * or without it a short or empty page, says the end was reached. A server that never ends is stopped: a cursor sent a
 * second time, or more than `maxPages` requests, fail with `PdsInvalidResponseError`.
 */

import type { z } from 'zod';
import { checkInteger } from '../../core/index.ts';
import { PdsInvalidRequestError, PdsInvalidResponseError, type PdsRequestLine } from '../errors.ts';
import type { PdsCallOptions } from '../options.ts';
import { parseAnswer } from '../schemas.ts';
import { headerOf, type PdsQueryValue, type PdsTransport } from '../transport.ts';
import { X_CURSOR_HEADER, X_TOTAL_COUNT_HEADER } from './types.ts';

/** Records asked for per request when `pageSize` is not given. */
export const DEFAULT_PAGE_SIZE = 100;
/** Most requests one iteration sends before it gives up on a server that never ends. */
export const DEFAULT_MAX_PAGES = 10_000;
const INT32_MAX = 2 ** 31 - 1;

/** How a list is paged; every option is optional. */
export interface PageOptions extends PdsCallOptions {
  /** Records asked for per request (the `limit` parameter). Default 100; the simulator allows 1..1000. */
  pageSize?: number;
  /** Offset of the first record. Default 0; not sent when `cursor` is given. */
  offset?: number;
  /** Resume from the `cursor` of a page fetched earlier (sent as the `x-cursor` request header). */
  cursor?: string;
  /** Safety stop: most requests one iteration may send. Default 10 000. */
  maxPages?: number;
}

/** What one page request asks for. */
export interface PageRequest {
  limit: number;
  /** Absent when a cursor is sent (the cursor carries the position). */
  offset?: number;
  cursor?: string;
  signal?: AbortSignal;
}

/** One page as the server answered it. */
export interface PdsPage<T> {
  items: T[];
  /** The answer's `x-cursor`: the next page's position. Absent on the last page and from servers without cursors. */
  cursor?: string;
  /** The answer's `x-total-count` (records in all pages), when sent. */
  totalCount?: number;
  /** The request that fetched the page; errors name it. */
  request: PdsRequestLine;
}

/** Fetches one page. */
export type PageFetcher<T> = (request: PageRequest) => Promise<PdsPage<T>>;

/**
 * The records of a paged list, fetched lazily page by page while they are iterated. Iterating again sends
 * the requests again (from the same start).
 *
 * @example
 * ```ts
 * const tags = await pds.itemTags.list(primaryKey, { pageSize: 500 }).toArray();
 * for await (const page of pds.bulkSubscriptions.imports({ name: 'gtin-watch' }).pages()) show(page.items);
 * ```
 */
export class PdsPaginator<T> implements AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #line: PdsRequestLine;
  readonly #pageSize: number;
  readonly #offset: number;
  readonly #cursor: string | undefined;
  readonly #maxPages: number;
  readonly #signal: AbortSignal | undefined;

  /**
   * @param line the list request, named by errors about the options
   * @throws PdsInvalidRequestError for a page size, offset or maxPages that is not a fitting integer
   */
  constructor(fetchPage: PageFetcher<T>, options: PageOptions, line: PdsRequestLine) {
    this.#fetchPage = fetchPage;
    this.#line = line;
    this.#pageSize = integerOption('pageSize', options.pageSize ?? DEFAULT_PAGE_SIZE, 1, line);
    this.#offset = integerOption('offset', options.offset ?? 0, 0, line);
    this.#maxPages = integerOption('maxPages', options.maxPages ?? DEFAULT_MAX_PAGES, 1, line);
    if (options.cursor !== undefined && (typeof options.cursor !== 'string' || options.cursor === '')) {
      throw new PdsInvalidRequestError('cursor must be a non-empty string from an earlier page', line);
    }
    this.#cursor = options.cursor;
    this.#signal = options.signal;
  }

  /** The pages one by one, each with its cursor and total count. */
  async *pages(): AsyncGenerator<PdsPage<T>, void, undefined> {
    let cursor = this.#cursor;
    let offset = this.#offset;
    // Once the server has sent a cursor (or the caller resumed from one), a page without one is the last.
    let cursorMode = cursor !== undefined;
    const seen = new Set<string>(cursor === undefined ? [] : [cursor]);
    for (let requests = 0; ; requests++) {
      if (requests >= this.#maxPages) {
        throw new PdsInvalidResponseError(
          `the list did not end after ${this.#maxPages} pages of ${this.#pageSize}; raise maxPages or narrow the query`,
          this.#line,
        );
      }
      this.#signal?.throwIfAborted();
      const page = await this.#fetchPage(
        cursor === undefined
          ? { limit: this.#pageSize, offset, signal: this.#signal }
          : { limit: this.#pageSize, cursor, signal: this.#signal },
      );
      yield page;
      if (page.cursor) {
        if (seen.has(page.cursor)) {
          throw new PdsInvalidResponseError(
            `the server sent the x-cursor '${page.cursor.slice(0, 60)}' a second time; following it would never end`,
            page.request,
          );
        }
        seen.add(page.cursor);
        cursor = page.cursor;
        cursorMode = true;
        continue;
      }
      if (cursorMode || page.items.length === 0) return;
      offset += page.items.length;
      // A total count says where the end is even when the server sends smaller pages than asked for.
      if (page.totalCount !== undefined) {
        if (offset >= page.totalCount) return;
      } else if (page.items.length < this.#pageSize) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /**
   * Collects the records into an array; with `max`, stops requesting once that many were read.
   *
   * @example
   * ```ts
   * const newest = await pds.bulkSubscriptions.list().toArray(10);
   * ```
   */
  async toArray(max = Number.POSITIVE_INFINITY): Promise<T[]> {
    const all: T[] = [];
    if (max <= 0) return all;
    for await (const item of this) {
      all.push(item);
      if (all.length >= max) break;
    }
    return all;
  }
}

/** A GET list request without its paging parameters. */
export interface ListRequest<T> {
  path: string;
  query?: Record<string, PdsQueryValue | readonly PdsQueryValue[] | undefined>;
  /** Checks one page's body (a JSON array). */
  schema: z.ZodType<T[]>;
}

/**
 * A {@link PageFetcher} that sends `list` through the transport: `limit` and `offset` as query
 * parameters, the cursor as the `x-cursor` header; reads `x-cursor` and `x-total-count` of the answer.
 *
 * @example
 * ```ts
 * new PdsPaginator(transportPages(transport, { path: '/v1/bulkSubscription', schema }), {}, line);
 * ```
 */
export function transportPages<T>(transport: PdsTransport, list: ListRequest<T>): PageFetcher<T> {
  return async ({ limit, offset, cursor, signal }) => {
    const response = await transport.request({
      method: 'GET',
      path: list.path,
      query: { ...list.query, limit, offset },
      ...(cursor !== undefined && { headers: { [X_CURSOR_HEADER]: cursor } }),
      expect: 'json',
      signal,
    });
    const total = headerOf(response.headers, X_TOTAL_COUNT_HEADER)?.trim() ?? '';
    return {
      items: parseAnswer(list.schema, response.body, response.request),
      cursor: headerOf(response.headers, X_CURSOR_HEADER) || undefined,
      totalCount: /^\d{1,15}$/.test(total) ? Number(total) : undefined,
      request: response.request,
    };
  };
}

function integerOption(name: string, value: number, min: number, line: PdsRequestLine): number {
  return checkInteger(
    name,
    value,
    { min, max: INT32_MAX },
    (message) => new PdsInvalidRequestError(message, line),
  );
}
