/**
 * The one fake of the PDS port (packages/bridge/src/pds/ports.ts `PdsClient`) for every flow's tests. It models what
 * the flows call: uploads and imports (ingest), messaging assets and supplier reviews (pollers), the
 * communication channels (`gdsn-de` unless the test changes `channels`); any
 * other operation throws unless the test gives it, so a test states exactly what it expects
 * (publications).
 *
 * @example
 * const pds = new FakePds({ createSelection: async (keys) => ({ selectionId: 's1', numberOfItems: keys.length }) });
 * pds.addAsset('<a/>');
 * pds.failAsset.set(1, 'server');
 * pds.archives.set('batch.zip', ['a.csv', 'b.csv']);
 */
import type { Readable } from 'node:stream';
import { expect } from 'vitest';
import { PdsNotFoundError, PdsServerError } from '../../packages/bridge/src/pds/errors.ts';
import type { PdsClient, StreamUploadSource, UploadSource } from '../../packages/bridge/src/pds/index.ts';
import type {
  CommunicationChannel,
  GatheringEntry,
  ImportRequest,
  MessagingAssetSummary,
  Selection,
  SupplierReview,
  ValidationResponse,
} from '../../packages/bridge/src/pds/types.ts';

function unexpected(name: string): never {
  throw new Error(`fakePds: ${name} was not expected in this test`);
}

export class FakePds implements PdsClient {
  /** Operations the test scripts; each replaces the modelled (or throwing) method of that name. */
  constructor(operations: Partial<PdsClient> = {}) {
    Object.assign(this, operations);
  }

  // Ingest: every upload is read to the end; archive members are listed as their own entries.
  readonly uploads: Array<{ fileName: string; contentType: string | undefined; bytes: Buffer }> = [];
  readonly imports: ImportRequest[] = [];
  /** Member names per archive file name. */
  readonly archives = new Map<string, string[]>();
  uploadFault: (() => Error | undefined) | undefined;
  importFault: ((request: ImportRequest, index: number) => Error | undefined) | undefined;
  uploadGate: Promise<void> | undefined;
  #gatherings = 0;

  // Publications: the channel list POST /publications checks COMMUNICATION_CHANNEL destinations against.
  readonly channels: CommunicationChannel[] = [{ id: 'gdsn-de', name: 'GDSN Germany' }];
  channelListings = 0;

  // Pollers: assets and reviews in maps, failures per id or key, and the calls in flight.
  readonly assets = new Map<number, MessagingAssetSummary & { xml: string }>();
  readonly reviews = new Map<string, SupplierReview[]>();
  /** Asset ids whose fetch fails: `server` (503, retryable) or `missing` (404). */
  readonly failAsset = new Map<number, 'server' | 'missing'>();
  /** Keys whose review listing fails the same way. */
  readonly failKey = new Map<string, 'server' | 'missing'>();
  /** Every poller call, in order, e.g. `asset:3`, `reviews:0401…`, `list`. */
  readonly calls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;
  #nextId = 1;

  async uploadGathering(source: UploadSource): Promise<GatheringEntry[]> {
    const { stream, size, fileName, contentType } = source as StreamUploadSource;
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const bytes = Buffer.concat(chunks);
    expect(bytes.length).toBe(size);
    await this.uploadGate;
    const fault = this.uploadFault?.();
    if (fault) throw fault;
    this.uploads.push({ fileName, contentType, bytes });
    this.#gatherings += 1;
    const gatheringKey = `g-${this.#gatherings}`;
    const members = this.archives.get(fileName);
    const base = fileName.replace(/\.zip$/i, '');
    const paths = members ? members.map((member) => `${base}/${member}`) : [fileName];
    return paths.map((path, i) => ({
      gatheringKey,
      assetKey: `${gatheringKey}-a${i}`,
      path,
      contentType: '',
    }));
  }

  async startImport(request: ImportRequest): Promise<void> {
    const fault = this.importFault?.(request, this.imports.length);
    if (fault) throw fault;
    this.imports.push({ ...request });
  }

  addAsset(xml: string, extra: Partial<MessagingAssetSummary> = {}): number {
    const id = extra.id ?? this.#nextId;
    this.#nextId = Math.max(this.#nextId, id + 1);
    this.assets.set(id, {
      id,
      createdAt: 1_767_600_000_000 + id,
      contentType: 'application/xml',
      ...extra,
      xml,
    });
    return id;
  }

  addReview(primaryKey: string, xml: string, extra: Partial<SupplierReview> = {}): SupplierReview {
    const messagingAssetId = this.addAsset(xml, { primaryKey, messagingCreatorType: 'REVIEW' });
    const review: SupplierReview = {
      primaryKey,
      supplierId: '4012345000009',
      channelId: 'gdsn-de',
      messagingAssetId,
      supplier: 'Demo Supplier',
      reviewer: 'Demo Retail',
      reviewStatus: 'APPROVED',
      date: 1_767_600_000_000 + messagingAssetId,
      comment: '',
      messagingCreatorType: 'REVIEW',
      ...extra,
    };
    const list = this.reviews.get(primaryKey) ?? [];
    list.push(review);
    this.reviews.set(primaryKey, list);
    return review;
  }

  async #call<T>(name: string, fn: () => T): Promise<T> {
    this.calls.push(name);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      return fn();
    } finally {
      this.inFlight--;
    }
  }

  listMessagingAssets(): Promise<MessagingAssetSummary[]> {
    return this.#call('list', () => [...this.assets.values()].map(({ xml: _xml, ...summary }) => summary));
  }

  async *streamMessagingAssets(): AsyncGenerator<MessagingAssetSummary> {
    yield* await this.listMessagingAssets();
  }

  getMessagingAsset(id: number): Promise<string> {
    return this.#call(`asset:${id}`, () => {
      const path = `/api/v1/messaging/messagingassets/${id}`;
      const failure = this.failAsset.get(id);
      if (failure === 'server') throw new PdsServerError(503, { method: 'GET', path }, 'unavailable');
      const asset = this.assets.get(id);
      if (failure === 'missing' || !asset)
        throw new PdsNotFoundError(404, { method: 'GET', path }, 'not found');
      return asset.xml;
    });
  }

  listSupplierReviews(primaryKey: string): Promise<SupplierReview[]> {
    return this.#call(`reviews:${primaryKey}`, () => {
      const path = `/api/v1/supplierreviews/${primaryKey}`;
      const failure = this.failKey.get(primaryKey);
      if (failure === 'server') throw new PdsServerError(503, { method: 'GET', path }, 'unavailable');
      const reviews = this.reviews.get(primaryKey);
      if (failure === 'missing' || !reviews)
        throw new PdsNotFoundError(404, { method: 'GET', path }, 'not found');
      return reviews.map((review) => ({ ...review }));
    });
  }

  // Not modelled: a test that needs one gives it to the constructor.
  validate(): Promise<ValidationResponse> {
    return unexpected('validate');
  }

  createSelection(): Promise<Selection> {
    return unexpected('createSelection');
  }

  publish(): Promise<void> {
    return unexpected('publish');
  }

  listCommunicationChannels(): Promise<CommunicationChannel[]> {
    this.channelListings += 1;
    return Promise.resolve(this.channels.map((channel) => ({ ...channel })));
  }

  streamMessagingAsset(): Promise<Readable> {
    return unexpected('streamMessagingAsset');
  }
}
