/**
 * The `/v1/bulkSubscription` family: list, create, get / update / delete, name ↔ id lookups, entries
 * (list, add, remove, remove all), imports and the upload of a JSON entries file.
 *
 * The spec serves an `{id}` and a `{name}` variant of each operation on one path shape and does not say
 * how the server tells them apart. The client never guesses from the text: every operation takes a
 * {@link SubscriptionRef}, `{ id }` or `{ name }`. The server reads a segment of digits only as an id
 * (docs/spec-gaps.md), so an id that is not all digits and a name that is all digits are refused before
 * any request: either would silently address the other variant.
 */

import { requestJson } from '../answers.ts';
import { isObject, isStringArray } from '../checks.ts';
import { PdsInvalidRequestError, type PdsRequestLine } from '../errors.ts';
import { multipartRequest, type UploadSource } from '../multipart.ts';
import type { PdsCallOptions } from '../options.ts';
import { encodePathSegment } from '../paths.ts';
import type { PdsTransport } from '../transport.ts';
import { type PageOptions, PdsPaginator, transportPages } from './pagination.ts';
import { schemasV1 } from './schemas.ts';
import {
  BULK_SUBSCRIPTION_ID_PATTERN,
  BULK_UPLOAD_ACTIONS,
  type BulkSubscription,
  type BulkSubscriptionCreateRequest,
  type BulkSubscriptionEntry,
  type BulkSubscriptionImport,
  type BulkSubscriptionUpdateRequest,
  type BulkUploadAction,
} from './types.ts';

const BASE = '/v1/bulkSubscription';

/**
 * Which subscription an operation addresses: by its id (decimal digits, e.g. `{ id: '7' }` or
 * `{ id: 7 }`) or by its name (`{ name: 'gtin-watch' }`).
 */
export type SubscriptionRef = { id: string | number; name?: never } | { name: string; id?: never };

/** Options of the operations that change something. */
export interface SubscriptionWriteOptions extends PdsCallOptions {
  /**
   * Default true (the server's default): applied before the answer. false: answered at once (202) and
   * applied later; the subscription is PROCESSING (an import record PENDING) until then.
   */
  synchronously?: boolean;
}

/** Options of delete. */
export interface SubscriptionDeleteOptions extends SubscriptionWriteOptions {
  /** Deletes although the subscription is in a state that refuses it (PROCESSING): its waiting work is dropped. */
  force?: boolean;
}

/** Filters of the subscription list. */
export interface SubscriptionListOptions extends PageOptions {
  /** Words that must all occur in the name, label or description (case-insensitive). */
  keywords?: string;
  /** Only subscriptions whose active flag is this. */
  active?: boolean;
}

/** Filters of the entries list. */
export interface SubscriptionEntriesOptions extends PageOptions {
  /** Words that must all occur in an entry's values. */
  keywords?: string;
}

/** What delete did: `pending` when the server accepted it to be done later (`synchronously: false`). */
export interface SubscriptionDeleteResult {
  pending: boolean;
}

/** The bulk subscription operations; lists are {@link PdsPaginator}s (iterate them with `for await`). */
export interface BulkSubscriptionOperations {
  /** `GET /v1/bulkSubscription`: subscriptions, most recently updated first. */
  list(options?: SubscriptionListOptions): PdsPaginator<BulkSubscription>;
  /** `POST /v1/bulkSubscription`: creates a subscription. */
  create(
    request: BulkSubscriptionCreateRequest,
    options?: SubscriptionWriteOptions,
  ): Promise<BulkSubscription>;
  /** `GET /v1/bulkSubscription/{id}` or `/{name}`. */
  get(ref: SubscriptionRef, options?: PdsCallOptions): Promise<BulkSubscription>;
  /** `PUT /v1/bulkSubscription/{id}` or `/{name}`: fields left out keep their value. */
  update(
    ref: SubscriptionRef,
    changes: BulkSubscriptionUpdateRequest,
    options?: SubscriptionWriteOptions,
  ): Promise<BulkSubscription>;
  /** `DELETE /v1/bulkSubscription/{id}` or `/{name}`. */
  delete(ref: SubscriptionRef, options?: SubscriptionDeleteOptions): Promise<SubscriptionDeleteResult>;
  /** `GET /v1/bulkSubscription/{name}/id`: the id of the subscription with that name. */
  nameToId(name: string, options?: PdsCallOptions): Promise<string>;
  /** `GET /v1/bulkSubscription/{id}/name`: the name of the subscription with that id. */
  idToName(id: string | number, options?: PdsCallOptions): Promise<string>;
  /** `GET /v1/bulkSubscription/{id|name}/entries`: the entries, in insertion order. */
  entries(ref: SubscriptionRef, options?: SubscriptionEntriesOptions): PdsPaginator<BulkSubscriptionEntry>;
  /** `POST /v1/bulkSubscription/{id|name}/entries`: adds entries (existing ones change nothing). */
  addEntries(
    ref: SubscriptionRef,
    entries: readonly BulkSubscriptionEntry[],
    options?: SubscriptionWriteOptions,
  ): Promise<BulkSubscriptionImport>;
  /** `DELETE /v1/bulkSubscription/{id|name}/entries`: removes the given entries (unknown ones are ignored). */
  removeEntries(
    ref: SubscriptionRef,
    entries: readonly BulkSubscriptionEntry[],
    options?: SubscriptionWriteOptions,
  ): Promise<BulkSubscriptionImport>;
  /** `DELETE /v1/bulkSubscription/{id|name}/entries/all`: removes every entry. */
  removeAllEntries(ref: SubscriptionRef, options?: SubscriptionWriteOptions): Promise<BulkSubscriptionImport>;
  /** `GET /v1/bulkSubscription/{id|name}/imports`: changes of the entries, newest first. */
  imports(ref: SubscriptionRef, options?: PageOptions): PdsPaginator<BulkSubscriptionImport>;
  /**
   * `POST /v1/bulkSubscription/{id|name}/_upload?action=…`: a file holding a JSON array of entries,
   * streamed, added (`ADD_ENTRIES`) or removed (`DELETE_ENTRIES`).
   */
  uploadEntries(
    ref: SubscriptionRef,
    source: UploadSource,
    action: BulkUploadAction,
    options?: SubscriptionWriteOptions,
  ): Promise<BulkSubscriptionImport>;
}

/**
 * The path of a subscription operation, its reference checked against the server's id-versus-name rule.
 * Refusals name the spec's variant, e.g. `GET /v1/bulkSubscription/{name}/entries`.
 *
 * @throws PdsInvalidRequestError for an id that is not decimal digits, a name made of digits only, an empty
 * name, or a reference with both or neither of id and name
 * @example
 * ```ts
 * subscriptionPath('GET', { id: 7 }, '/entries');       // '/v1/bulkSubscription/7/entries'
 * subscriptionPath('GET', { name: 'gtin watch' }, '');  // '/v1/bulkSubscription/gtin%20watch'
 * ```
 */
export function subscriptionPath(method: string, ref: SubscriptionRef, suffix = ''): string {
  const hasId = typeof ref === 'object' && ref !== null && ref.id !== undefined;
  const hasName = typeof ref === 'object' && ref !== null && ref.name !== undefined;
  if (hasId === hasName) {
    throw new PdsInvalidRequestError(
      "address a bulk subscription by exactly one of { id: '7' } or { name: 'gtin-watch' }",
      { method, path: `${BASE}/{id|name}${suffix}` },
    );
  }
  const line = { method, path: `${BASE}/${hasId ? '{id}' : '{name}'}${suffix}` };
  const text = hasId ? idText(ref.id as string | number, line) : nameText(ref.name, line);
  return `${BASE}/${encodePathSegment(text, line)}${suffix}`;
}

function idText(id: string | number, line: PdsRequestLine): string {
  const text = typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? String(id) : id;
  if (typeof text !== 'string' || !BULK_SUBSCRIPTION_ID_PATTERN.test(text)) {
    throw new PdsInvalidRequestError(
      `a bulk subscription id is decimal digits, got '${String(id)}'; to address it by name pass { name } instead`,
      line,
    );
  }
  return text;
}

function nameText(name: unknown, line: PdsRequestLine): string {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new PdsInvalidRequestError('a bulk subscription name must be a non-empty string', line);
  }
  if (BULK_SUBSCRIPTION_ID_PATTERN.test(name)) {
    throw new PdsInvalidRequestError(
      `the name '${name}' is made of digits only, which the PDS reads as an id; address it with { id: '${name}' } if that is what you mean, or use a name with other characters`,
      line,
    );
  }
  return name;
}

/**
 * {@link BulkSubscriptionOperations} over a {@link PdsTransport}.
 *
 * @example
 * ```ts
 * const subscriptions = new PdsBulkSubscriptions(transport);
 * await subscriptions.addEntries({ name: 'gtin-watch' }, [{ gtin: '04006381333931' }]);
 * for await (const entry of subscriptions.entries({ name: 'gtin-watch' })) show(entry.gtin);
 * ```
 */
export class PdsBulkSubscriptions implements BulkSubscriptionOperations {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    this.#transport = transport;
  }

  list(options: SubscriptionListOptions = {}): PdsPaginator<BulkSubscription> {
    const line = { method: 'GET', path: BASE };
    const fetchPage = transportPages(this.#transport, {
      path: BASE,
      query: { keywords: options.keywords, active: options.active },
      schema: schemasV1.bulkSubscriptions,
    });
    return new PdsPaginator(fetchPage, options, line);
  }

  async create(
    request: BulkSubscriptionCreateRequest,
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscription> {
    const line = { method: 'POST', path: BASE };
    nameText(request?.name, line);
    if (!isStringArray(request.attributes) || request.attributes.length === 0) {
      throw new PdsInvalidRequestError(
        'attributes must be a non-empty array of the attribute names the entries use',
        line,
      );
    }
    return requestJson(
      this.#transport,
      {
        method: 'POST',
        path: BASE,
        query: { synchronously: options.synchronously },
        json: request,
        signal: options.signal,
      },
      schemasV1.bulkSubscription,
    );
  }

  async get(ref: SubscriptionRef, options: PdsCallOptions = {}): Promise<BulkSubscription> {
    const path = subscriptionPath('GET', ref, '');
    return requestJson(
      this.#transport,
      { method: 'GET', path, signal: options.signal },
      schemasV1.bulkSubscription,
    );
  }

  async update(
    ref: SubscriptionRef,
    changes: BulkSubscriptionUpdateRequest,
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscription> {
    const path = subscriptionPath('PUT', ref, '');
    if (!isObject(changes)) {
      throw new PdsInvalidRequestError('changes must be an object of the fields to change', {
        method: 'PUT',
        path,
      });
    }
    return requestJson(
      this.#transport,
      {
        method: 'PUT',
        path,
        query: { synchronously: options.synchronously },
        json: changes,
        signal: options.signal,
      },
      schemasV1.bulkSubscription,
    );
  }

  async delete(
    ref: SubscriptionRef,
    options: SubscriptionDeleteOptions = {},
  ): Promise<SubscriptionDeleteResult> {
    const path = subscriptionPath('DELETE', ref, '');
    const response = await this.#transport.request({
      method: 'DELETE',
      path,
      query: { synchronously: options.synchronously, force: options.force },
      expect: 'none',
      signal: options.signal,
    });
    return { pending: response.status === 202 };
  }

  async nameToId(name: string, options: PdsCallOptions = {}): Promise<string> {
    const path = subscriptionPath('GET', { name }, '/id');
    return requestJson(
      this.#transport,
      { method: 'GET', path, signal: options.signal },
      schemasV1.subscriptionIdAnswer,
    );
  }

  async idToName(id: string | number, options: PdsCallOptions = {}): Promise<string> {
    const path = subscriptionPath('GET', { id }, '/name');
    return requestJson(
      this.#transport,
      { method: 'GET', path, signal: options.signal },
      schemasV1.subscriptionNameAnswer,
    );
  }

  entries(
    ref: SubscriptionRef,
    options: SubscriptionEntriesOptions = {},
  ): PdsPaginator<BulkSubscriptionEntry> {
    const path = subscriptionPath('GET', ref, '/entries');
    const fetchPage = transportPages(this.#transport, {
      path,
      query: { keywords: options.keywords },
      schema: schemasV1.bulkSubscriptionEntries,
    });
    return new PdsPaginator(fetchPage, options, { method: 'GET', path });
  }

  async addEntries(
    ref: SubscriptionRef,
    entries: readonly BulkSubscriptionEntry[],
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscriptionImport> {
    return this.#changeEntries('POST', ref, entries, options);
  }

  async removeEntries(
    ref: SubscriptionRef,
    entries: readonly BulkSubscriptionEntry[],
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscriptionImport> {
    return this.#changeEntries('DELETE', ref, entries, options);
  }

  async removeAllEntries(
    ref: SubscriptionRef,
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscriptionImport> {
    const path = subscriptionPath('DELETE', ref, '/entries/all');
    return requestJson(
      this.#transport,
      { method: 'DELETE', path, query: { synchronously: options.synchronously }, signal: options.signal },
      schemasV1.bulkSubscriptionImport,
    );
  }

  imports(ref: SubscriptionRef, options: PageOptions = {}): PdsPaginator<BulkSubscriptionImport> {
    const path = subscriptionPath('GET', ref, '/imports');
    const fetchPage = transportPages(this.#transport, { path, schema: schemasV1.bulkSubscriptionImports });
    return new PdsPaginator(fetchPage, options, { method: 'GET', path });
  }

  async uploadEntries(
    ref: SubscriptionRef,
    source: UploadSource,
    action: BulkUploadAction,
    options: SubscriptionWriteOptions = {},
  ): Promise<BulkSubscriptionImport> {
    const path = subscriptionPath('POST', ref, '/_upload');
    const line = { method: 'POST', path };
    if (!(BULK_UPLOAD_ACTIONS as readonly string[]).includes(action)) {
      throw new PdsInvalidRequestError(
        `action must be ${BULK_UPLOAD_ACTIONS.join(' or ')}, got '${String(action)}'`,
        line,
      );
    }
    const multipart = await multipartRequest(source, line);
    return requestJson(
      this.#transport,
      {
        method: 'POST',
        path,
        query: { action, synchronously: options.synchronously },
        ...multipart,
        signal: options.signal,
      },
      schemasV1.bulkSubscriptionImport,
    );
  }

  async #changeEntries(
    method: 'POST' | 'DELETE',
    ref: SubscriptionRef,
    entries: readonly BulkSubscriptionEntry[],
    options: SubscriptionWriteOptions,
  ): Promise<BulkSubscriptionImport> {
    const path = subscriptionPath(method, ref, '/entries');
    if (!Array.isArray(entries) || !entries.every(isEntry)) {
      throw new PdsInvalidRequestError(
        'entries must be an array of objects mapping attribute names to strings, numbers or booleans',
        { method, path },
      );
    }
    return requestJson(
      this.#transport,
      {
        method,
        path,
        query: { synchronously: options.synchronously },
        json: entries,
        signal: options.signal,
      },
      schemasV1.bulkSubscriptionImport,
    );
  }
}

function isEntry(value: unknown): value is BulkSubscriptionEntry {
  if (!isObject(value)) return false;
  return Object.values(value).every(
    (each) => typeof each === 'string' || typeof each === 'boolean' || Number.isFinite(each),
  );
}
