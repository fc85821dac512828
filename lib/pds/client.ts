/**
 * The port the bridge depends on: the PDS `/api/v1` workflow as an interface, and the factory that
 * builds the HTTP implementation. Logic in `lib/ingest`, `lib/polling` and `lib/publications` takes a
 * `PdsClient`; tests hand it a fake, handlers hand it `createPdsClient(...)`.
 */
import type { Readable } from 'node:stream';
import type { UploadSource } from './multipart.ts';
import { PdsTransport, type PdsTransportOptions } from './transport.ts';
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
import { PdsWorkflow } from './workflow.ts';

/** Per-call options of every operation. */
export interface PdsCallOptions {
  /** Aborts the call, waits between retries included; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

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
}

/** A {@link PdsClient} that owns sockets: close it when done (Lambda handlers keep it for the container's life). */
export interface ClosablePdsClient extends PdsClient {
  close(): Promise<void>;
}

export type PdsClientOptions = PdsTransportOptions;

/**
 * Builds the HTTP implementation of {@link PdsClient}. Options are checked at once: a bad base URL,
 * empty credentials or a negative timeout throw `PdsConfigurationError` here, not on the first call.
 *
 * @example
 * ```ts
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * const channels = await pds.listCommunicationChannels();
 * await pds.close();
 * ```
 */
export function createPdsClient(options: PdsClientOptions): ClosablePdsClient {
  return new HttpPdsClient(new PdsTransport(options));
}

class HttpPdsClient extends PdsWorkflow implements ClosablePdsClient {
  readonly #transport: PdsTransport;

  constructor(transport: PdsTransport) {
    super(transport);
    this.#transport = transport;
  }

  close(): Promise<void> {
    return this.#transport.close();
  }
}
