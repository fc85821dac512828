/**
 * The `/api/v1` workflow operations of the PDS as typed methods: upload, import, validate, select,
 * publish, communication channels, supplier reviews and messaging assets.
 *
 * Each method checks its arguments before any request (a refused argument is a `PdsInvalidRequestError`),
 * builds the path with {@link pathOf}, lets the transport send it, and reads the answer through a
 * lenient schema.
 */
import type { Readable } from 'node:stream';
import { checkInteger } from '../core/index.ts';
import type * as z from '../core/zod.ts';
import { requestJson } from './answers.ts';
import { isObject, isStringArray, requireText } from './checks.ts';
import { PdsInvalidRequestError, PdsInvalidResponseError, type PdsRequestLine } from './errors.ts';
import { multipartRequest, type UploadSource } from './multipart.ts';
import type { PdsCallOptions } from './options.ts';
import { pathOf } from './paths.ts';
import type { MessagingAssetListOptions, PdsClient } from './ports.ts';
import { schemas } from './schemas.ts';
import type { PdsResponseBody, PdsTransport } from './transport.ts';
import {
  type CommunicationChannel,
  DESTINATION_TYPES,
  type GatheringEntry,
  type ImportRequest,
  type MessagingAssetSummary,
  type PublicationRequest,
  type Selection,
  type SupplierReview,
  type ValidationRequest,
  type ValidationResponse,
} from './types.ts';

const XML_ACCEPT = 'application/xml, text/xml;q=0.9, */*;q=0.1';

/**
 * {@link PdsClient} over a {@link PdsTransport}.
 *
 * @example
 * ```ts
 * const workflow = new PdsWorkflow(new PdsTransport({ baseUrl, credentials }));
 * const entries = await workflow.uploadGathering({ filePath: 'items.csv', contentType: 'text/csv' });
 * for (const entry of entries) await workflow.startImport(entry);
 * ```
 */
export class PdsWorkflow implements PdsClient {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    this.#transport = transport;
  }

  async uploadGathering(source: UploadSource, options: PdsCallOptions = {}): Promise<GatheringEntry[]> {
    const path = '/api/v1/gatherings';
    // A file source is opened afresh per attempt; a one-shot stream makes the transport never retry.
    const multipart = await multipartRequest(source, { method: 'POST', path });
    return requestJson(
      this.#transport,
      { method: 'POST', path, ...multipart, signal: options.signal },
      schemas.gatheringEntries,
    );
  }

  async startImport(request: ImportRequest, options: PdsCallOptions = {}): Promise<void> {
    await this.#postChecked('/api/v1/imports', options, (line) => {
      requireText(request?.gatheringKey, 'gatheringKey', line);
      requireText(request.path, 'path', line);
      return { gatheringKey: request.gatheringKey, path: request.path };
    });
  }

  async validate(request: ValidationRequest, options: PdsCallOptions = {}): Promise<ValidationResponse> {
    const path = '/api/v1/validate';
    const line = { method: 'POST', path };
    if (!isObject(request?.newItem)) {
      throw new PdsInvalidRequestError('newItem must be an object (the item to validate)', line);
    }
    if (request.oldItem !== undefined && !isObject(request.oldItem)) {
      throw new PdsInvalidRequestError('oldItem must be an object or left out', line);
    }
    if (request.attributeNames !== undefined && !isStringArray(request.attributeNames)) {
      throw new PdsInvalidRequestError('attributeNames must be an array of strings or left out', line);
    }
    return requestJson(
      this.#transport,
      {
        method: 'POST',
        path,
        json: request,
        // Validation has no side effect: repeating it is as safe as a GET.
        idempotent: true,
        signal: options.signal,
      },
      schemas.validationResponse,
    );
  }

  async createSelection(primaryKeys: readonly string[], options: PdsCallOptions = {}): Promise<Selection> {
    const path = '/api/v1/selections';
    const line = { method: 'POST', path };
    if (!isStringArray(primaryKeys)) {
      throw new PdsInvalidRequestError('primaryKeys must be an array of strings', line);
    }
    return requestJson(
      this.#transport,
      { method: 'POST', path, json: { primaryKeys }, signal: options.signal },
      schemas.selection,
    );
  }

  async publish(request: PublicationRequest, options: PdsCallOptions = {}): Promise<void> {
    await this.#postChecked('/api/v1/publications', options, (line) => {
      checkPublicationRequest(request, line);
      return { selectionId: request.selectionId, destinations: request.destinations };
    });
  }

  async listCommunicationChannels(options: PdsCallOptions = {}): Promise<CommunicationChannel[]> {
    return this.#getJson('/api/v1/communicationchannels', schemas.communicationChannels, options);
  }

  async listSupplierReviews(primaryKey: string, options: PdsCallOptions = {}): Promise<SupplierReview[]> {
    requireText(primaryKey, 'primaryKey', { method: 'GET', path: '/api/v1/supplierreviews/{primaryKey}' });
    return this.#getJson(pathOf`/api/v1/supplierreviews/${primaryKey}`, schemas.supplierReviews, options);
  }

  async getMessagingAsset(messagingAssetId: number, options: PdsCallOptions = {}): Promise<string> {
    return this.#messagingAsset(messagingAssetId, 'text', options);
  }

  async streamMessagingAsset(messagingAssetId: number, options: PdsCallOptions = {}): Promise<Readable> {
    return this.#messagingAsset(messagingAssetId, 'stream', options);
  }

  async listMessagingAssets(options: PdsCallOptions = {}): Promise<MessagingAssetSummary[]> {
    return this.#getJson('/api/v1/messaging/messagingassets/', schemas.messagingAssetSummaries, options);
  }

  async *streamMessagingAssets(
    options: MessagingAssetListOptions = {},
  ): AsyncGenerator<MessagingAssetSummary> {
    const path = '/api/v1/messaging/messagingassets/';
    const { page } = options;
    if (page !== undefined) {
      checkInteger(
        'page.limit',
        page.limit,
        { min: 1, max: 2 ** 31 - 1 },
        (message) => new PdsInvalidRequestError(message, { method: 'GET', path }),
      );
      checkInteger(
        'page.offset',
        page.offset,
        { min: 0, max: 2 ** 31 - 1 },
        (message) => new PdsInvalidRequestError(message, { method: 'GET', path }),
      );
    }
    // Only the messaging-asset poller streams this listing: its reader is loaded on first use, so the
    // other functions do not load it at cold start (docs/benchmarks.md).
    const { jsonArrayBatches } = await import('./json-array.ts');
    const response = await this.#transport.request({
      method: 'GET',
      path,
      ...(page ? { query: { limit: page.limit, offset: page.offset } } : {}),
      headers: { accept: 'application/json' },
      expect: 'stream',
      signal: options.signal,
    });
    const line = response.request;
    const fail = (message: string, cause?: unknown) =>
      new PdsInvalidResponseError(message, line, cause === undefined ? undefined : { cause });
    let index = 0;
    for await (const batch of jsonArrayBatches(response.body, fail)) {
      for (const element of batch) {
        const problem = messagingAssetSummaryProblem(element);
        if (problem) throw fail(`[${index}]${problem}`);
        index += 1;
        yield element as MessagingAssetSummary;
      }
    }
  }

  /** One messaging asset's XML, whole or streamed: the two getters differ only in how the body comes back. */
  async #messagingAsset<E extends 'text' | 'stream'>(
    messagingAssetId: number,
    expect: E,
    options: PdsCallOptions,
  ): Promise<PdsResponseBody<E>> {
    const response = await this.#transport.request({
      method: 'GET',
      path: messagingAssetPath(messagingAssetId),
      headers: { accept: XML_ACCEPT },
      expect,
      signal: options.signal,
    });
    return response.body;
  }

  /** GETs `path` and reads its JSON answer through `schema`. */
  async #getJson<T>(path: string, schema: z.core.$ZodType<T>, options: PdsCallOptions): Promise<T> {
    return requestJson(this.#transport, { method: 'GET', path, signal: options.signal }, schema);
  }

  /**
   * POSTs the body `checkedBody` returns to `path`, expecting an answer without a body. `checkedBody`
   * throws a {@link PdsInvalidRequestError} naming the request line for an argument the PDS would refuse,
   * so nothing is sent for it.
   */
  async #postChecked(
    path: string,
    options: PdsCallOptions,
    checkedBody: (line: PdsRequestLine) => Record<string, unknown>,
  ): Promise<void> {
    const json = checkedBody({ method: 'POST', path });
    await this.#transport.request({ method: 'POST', path, json, expect: 'none', signal: options.signal });
  }
}

/**
 * What is wrong with one element of the listing, or `undefined`: the same rules as the whole-list
 * schema (schemas.ts), written out because a listing of millions is checked element by element.
 */
function messagingAssetSummaryProblem(element: unknown): string | undefined {
  if (!isObject(element)) return ': expected an object';
  const { id, createdAt, contentType, primaryKey, messagingCreatorType } = element;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
    return `.id: expected a non-negative integer, got ${JSON.stringify(id)}`;
  }
  if (typeof createdAt !== 'number') return `.createdAt: expected a number, got ${JSON.stringify(createdAt)}`;
  if (typeof contentType !== 'string') return '.contentType: expected a string';
  if (primaryKey !== undefined && typeof primaryKey !== 'string') return '.primaryKey: expected a string';
  if (messagingCreatorType !== undefined && typeof messagingCreatorType !== 'string') {
    return '.messagingCreatorType: expected a string';
  }
  return undefined;
}

/** The path of one messaging asset, refusing ids the spec's integer type cannot hold. */
function messagingAssetPath(messagingAssetId: number): string {
  if (
    typeof messagingAssetId !== 'number' ||
    !Number.isSafeInteger(messagingAssetId) ||
    messagingAssetId < 0
  ) {
    throw new PdsInvalidRequestError(
      `messagingAssetId must be a non-negative safe integer, got ${String(messagingAssetId)}; take it from a supplier review or the messaging-asset list`,
      { method: 'GET', path: '/api/v1/messaging/messagingassets/{messagingAssetId}' },
    );
  }
  return pathOf`/api/v1/messaging/messagingassets/${messagingAssetId}`;
}

/** Refuses a publication request the PDS would refuse: no selection, no destinations, or an unknown kind of one. */
function checkPublicationRequest(request: PublicationRequest, line: PdsRequestLine): void {
  requireText(request?.selectionId, 'selectionId', line);
  if (!Array.isArray(request.destinations) || request.destinations.length === 0) {
    throw new PdsInvalidRequestError('destinations must be a non-empty array', line);
  }
  request.destinations.forEach((destination, index) => {
    if (!DESTINATION_TYPES.includes(destination?.destinationType)) {
      throw new PdsInvalidRequestError(
        `destinations[${index}].destinationType must be one of ${DESTINATION_TYPES.join(', ')}`,
        line,
      );
    }
    requireText(destination.destinationId, `destinations[${index}].destinationId`, line);
  });
}
