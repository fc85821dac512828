/**
 * The port the bridge depends on: the PDS `/api/v1` workflow as an interface (the `/v1` families are
 * in ./v1/ports.ts).
 * Logic in `packages/bridge/src/ingest`, `packages/bridge/src/polling` and `packages/bridge/src/publications` takes a `PdsClient`; tests hand it the
 * fake in test/helpers, handlers hand it `createPdsClient(...)` (client.ts). No implementation is
 * imported here, so the implementations can import the port without a cycle.
 */
import type { Readable } from 'node:stream';
import type { UploadSource } from './multipart.ts';
import type { PdsCallOptions } from './options.ts';
import type {
  CommunicationChannel,
  GatheringEntry,
  ImportRequest,
  MessagingAssetSummary,
  PublicationRequest,
  Selection,
  SupplierReview,
  ValidationRequest,
  ValidationResponse,
} from './types.ts';

/** The `/api/v1` operations of the Product Data Service. Every failure is a `PdsError` subclass. */
export interface PdsClient {
  /** `POST /api/v1/gatherings`: streams one file (multipart field `file`); one entry per file or archive member. */
  uploadGathering(source: UploadSource, options?: PdsCallOptions): Promise<GatheringEntry[]>;
  /** `POST /api/v1/imports`: starts the import of one gathering entry. Never retried by the transport. */
  startImport(request: ImportRequest, options?: PdsCallOptions): Promise<void>;
  /** `POST /api/v1/validate`: validates an item; side-effect free, so retried like a GET. */
  validate(request: ValidationRequest, options?: PdsCallOptions): Promise<ValidationResponse>;
  /** `POST /api/v1/selections`: a selection of items by primary key. */
  createSelection(primaryKeys: readonly string[], options?: PdsCallOptions): Promise<Selection>;
  /** `POST /api/v1/publications`: publishes a selection. Never retried by the transport. */
  publish(request: PublicationRequest, options?: PdsCallOptions): Promise<void>;
  /** `GET /api/v1/communicationchannels`: the ids usable as COMMUNICATION_CHANNEL destinations. */
  listCommunicationChannels(options?: PdsCallOptions): Promise<CommunicationChannel[]>;
  /** `GET /api/v1/supplierreviews/{primaryKey}`: the reviews received on an item. */
  listSupplierReviews(primaryKey: string, options?: PdsCallOptions): Promise<SupplierReview[]>;
  /** `GET /api/v1/messaging/messagingassets/{id}`: the XML message, as text. */
  getMessagingAsset(messagingAssetId: number, options?: PdsCallOptions): Promise<string>;
  /** The same XML message as a stream the caller must consume or destroy. */
  streamMessagingAsset(messagingAssetId: number, options?: PdsCallOptions): Promise<Readable>;
  /** `GET /api/v1/messaging/messagingassets/`: every received messaging asset, ids ascending. */
  listMessagingAssets(options?: PdsCallOptions): Promise<MessagingAssetSummary[]>;
  /**
   * The same listing read as a stream: each asset in turn, never the whole list in memory. `page`
   * sends the spec's general paging parameters (`limit`, `offset`), which a PDS may ignore (see
   * packages/bridge/src/polling/listing.ts for how the poller finds out).
   */
  streamMessagingAssets(options?: MessagingAssetListOptions): AsyncIterable<MessagingAssetSummary>;
}

/** Options of {@link PdsClient.streamMessagingAssets}. */
export interface MessagingAssetListOptions extends PdsCallOptions {
  page?: { limit: number; offset: number };
}

/**
 * The `/api/v1` client over HTTP with `close()` for its sockets (Lambda handlers keep it for the
 * container's life). The `/v1` families are in ./v1/ (`FullPdsClient`), which no Lambda bundles.
 */
export interface ClosablePdsClient extends PdsClient {
  close(): Promise<void>;
}
