/**
 * The `/v1/items/{primaryKey}/tags` family: list an item's recently stored tags (newestFirst, baseTag,
 * paging), add tags, remove tags.
 */

import { PdsInvalidRequestError, type PdsRequestLine } from '../errors.ts';
import type { PdsCallOptions } from '../options.ts';
import { pathOf } from '../paths.ts';
import type { PdsTransport } from '../transport.ts';
import { type PageOptions, PdsPaginator, transportPages } from './pagination.ts';
import { schemasV1 } from './schemas.ts';

const TEMPLATE = '/v1/items/{primaryKey}/tags';

/** Filters of the tag list. */
export interface ItemTagListOptions extends PageOptions {
  /** Newest first when true; oldest first otherwise. */
  newestFirst?: boolean;
  /** Only tags starting with this text (case-sensitive). */
  baseTag?: string;
}

/** The item tag operations. */
export interface ItemTagOperations {
  /** `GET /v1/items/{primaryKey}/tags`: the item's recently stored tags. */
  list(primaryKey: string, options?: ItemTagListOptions): PdsPaginator<string>;
  /** `POST /v1/items/{primaryKey}/tags`: adds tags (adding an existing one makes it the newest). */
  add(primaryKey: string, tags: readonly string[], options?: PdsCallOptions): Promise<void>;
  /** `DELETE /v1/items/{primaryKey}/tags` with the tags to remove (unknown ones are ignored). */
  remove(primaryKey: string, tags: readonly string[], options?: PdsCallOptions): Promise<void>;
  /** `DELETE /v1/items/{primaryKey}/tags` without a body: removes every tag of the item. */
  removeAll(primaryKey: string, options?: PdsCallOptions): Promise<void>;
}

/**
 * {@link ItemTagOperations} over a {@link PdsTransport}.
 *
 * @example
 * ```ts
 * const tags = new PdsItemTags(transport);
 * await tags.add('4006381333931', ['organic']);
 * const promos = await tags.list('4006381333931', { baseTag: 'promo:' }).toArray();
 * ```
 */
export class PdsItemTags implements ItemTagOperations {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    this.#transport = transport;
  }

  list(primaryKey: string, options: ItemTagListOptions = {}): PdsPaginator<string> {
    const line = { method: 'GET', path: TEMPLATE };
    requireKey(primaryKey, line);
    const fetchPage = transportPages(this.#transport, {
      path: pathOf`/v1/items/${primaryKey}/tags`,
      query: { newestFirst: options.newestFirst, baseTag: options.baseTag },
      schema: schemasV1.itemTags,
    });
    return new PdsPaginator(fetchPage, options, line);
  }

  async add(primaryKey: string, tags: readonly string[], options: PdsCallOptions = {}): Promise<void> {
    const line = { method: 'POST', path: TEMPLATE };
    requireKey(primaryKey, line);
    requireTags(tags, line);
    await this.#transport.request({
      method: 'POST',
      path: pathOf`/v1/items/${primaryKey}/tags`,
      json: tags,
      // Adding a tag twice leaves the same tags: repeating the request after a 503 is harmless.
      idempotent: true,
      expect: 'none',
      signal: options.signal,
    });
  }

  async remove(primaryKey: string, tags: readonly string[], options: PdsCallOptions = {}): Promise<void> {
    const line = { method: 'DELETE', path: TEMPLATE };
    requireKey(primaryKey, line);
    requireTags(tags, line);
    if (tags.length === 0) {
      // Without a body the server removes every tag; an empty list must not turn into that.
      throw new PdsInvalidRequestError(
        'name at least one tag to remove; use removeAll to remove every tag',
        line,
      );
    }
    await this.#transport.request({
      method: 'DELETE',
      path: pathOf`/v1/items/${primaryKey}/tags`,
      json: tags,
      expect: 'none',
      signal: options.signal,
    });
  }

  async removeAll(primaryKey: string, options: PdsCallOptions = {}): Promise<void> {
    requireKey(primaryKey, { method: 'DELETE', path: TEMPLATE });
    await this.#transport.request({
      method: 'DELETE',
      path: pathOf`/v1/items/${primaryKey}/tags`,
      expect: 'none',
      signal: options.signal,
    });
  }
}

function requireKey(primaryKey: unknown, line: PdsRequestLine): void {
  if (typeof primaryKey !== 'string' || primaryKey === '') {
    throw new PdsInvalidRequestError('primaryKey must be a non-empty string', line);
  }
}

function requireTags(tags: unknown, line: PdsRequestLine): void {
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && tag !== '')) {
    throw new PdsInvalidRequestError('tags must be an array of non-empty strings', line);
  }
}
