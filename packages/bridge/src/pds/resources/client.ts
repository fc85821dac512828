/**
 * The whole PDS client over HTTP: `createFullPdsClient` joins the `/api/v1` workflow (../client.ts) and
 * the `/v1` families (`pds.assetFolders`, `pds.bulkSubscriptions`, `pds.dataModel`, `pds.itemTags`)
 * over one transport. `PDS_OPERATIONS` maps every operation of the spec to the client method that
 * performs it.
 */
import { HttpPdsClient, type PdsClientOptions } from '../client.ts';
import type { PdsClient } from '../ports.ts';
import { PdsTransport } from '../transport.ts';
import { type AssetFolderOperations, PdsAssetFolders } from './asset-folders.ts';
import { type BulkSubscriptionOperations, PdsBulkSubscriptions } from './bulk-subscriptions.ts';
import { type DataModelOperations, PdsDataModel } from './datamodel.ts';
import { type ItemTagOperations, PdsItemTags } from './item-tags.ts';
import type { FullPdsClient } from './ports.ts';

type MethodNames<T> = {
  [K in keyof T & string]: T[K] extends (...args: never[]) => unknown ? K : never;
}[keyof T & string];

/** A client method as `PDS_OPERATIONS` names it: `validate`, `bulkSubscriptions.get`, … */
export type PdsOperationMethod =
  | MethodNames<PdsClient>
  | `assetFolders.${MethodNames<AssetFolderOperations>}`
  | `bulkSubscriptions.${MethodNames<BulkSubscriptionOperations>}`
  | `dataModel.${MethodNames<DataModelOperations>}`
  | `itemTags.${MethodNames<ItemTagOperations>}`;

/** One operation of the spec and the client method that performs it. */
export interface PdsOperation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path exactly as the spec's endpoint tables write it, e.g. `/v1/bulkSubscription/{id}/entries`. */
  path: string;
  client: PdsOperationMethod;
}

/**
 * The `{id}` and `{name}` variants of a bulk subscription operation: one method serves both, its
 * `SubscriptionRef` argument picks the variant.
 */
function eitherRef(
  method: PdsOperation['method'],
  suffix: string,
  client: PdsOperationMethod,
): PdsOperation[] {
  return ['{id}', '{name}'].map((ref) => ({ method, path: `/v1/bulkSubscription/${ref}${suffix}`, client }));
}

/**
 * Every operation of docs/pds-interface.md with the client method that performs it.
 * The `{id}` and `{name}` variants of a bulk subscription operation share a method ({@link eitherRef}).
 * test/integration/pds-endpoints.test.ts compares
 * this table with the spec, the simulator's routes and the contract tests.
 */
export const PDS_OPERATIONS: readonly PdsOperation[] = [
  { method: 'POST', path: '/api/v1/gatherings', client: 'uploadGathering' },
  { method: 'POST', path: '/api/v1/imports', client: 'startImport' },
  { method: 'POST', path: '/api/v1/validate', client: 'validate' },
  { method: 'POST', path: '/api/v1/selections', client: 'createSelection' },
  { method: 'POST', path: '/api/v1/publications', client: 'publish' },
  { method: 'GET', path: '/api/v1/communicationchannels', client: 'listCommunicationChannels' },
  { method: 'GET', path: '/api/v1/supplierreviews/{primaryKey}', client: 'listSupplierReviews' },
  {
    method: 'GET',
    path: '/api/v1/messaging/messagingassets/{messagingAssetId}',
    client: 'getMessagingAsset',
  },
  { method: 'GET', path: '/api/v1/messaging/messagingassets/', client: 'listMessagingAssets' },

  {
    method: 'PUT',
    path: '/v1/assetFolders/_convertToPublicAsset{path}',
    client: 'assetFolders.convertToPublicAsset',
  },
  { method: 'GET', path: '/v1/assetFolders{path}', client: 'assetFolders.list' },
  { method: 'POST', path: '/v1/assetFolders{path}', client: 'assetFolders.create' },
  { method: 'DELETE', path: '/v1/assetFolders/_delete{path}', client: 'assetFolders.delete' },
  { method: 'DELETE', path: '/v1/assetFolders/_deleteItems', client: 'assetFolders.deleteItems' },
  { method: 'GET', path: '/v1/assetFolders/_getDetails{path}', client: 'assetFolders.details' },
  { method: 'PUT', path: '/v1/assetFolders/_moveAsset{path}', client: 'assetFolders.moveAsset' },
  { method: 'PUT', path: '/v1/assetFolders/_moveFolder{path}', client: 'assetFolders.moveFolder' },
  { method: 'PUT', path: '/v1/assetFolders/_renameAsset{path}', client: 'assetFolders.renameAsset' },
  { method: 'PUT', path: '/v1/assetFolders/_renameFolder{path}', client: 'assetFolders.renameFolder' },
  { method: 'POST', path: '/v1/assetFolders/_uploadArchive{path}', client: 'assetFolders.uploadArchive' },
  { method: 'POST', path: '/v1/assetFolders/_uploadFile{path}', client: 'assetFolders.uploadFile' },

  { method: 'GET', path: '/v1/bulkSubscription', client: 'bulkSubscriptions.list' },
  { method: 'POST', path: '/v1/bulkSubscription', client: 'bulkSubscriptions.create' },
  ...eitherRef('GET', '', 'bulkSubscriptions.get'),
  ...eitherRef('PUT', '', 'bulkSubscriptions.update'),
  ...eitherRef('DELETE', '', 'bulkSubscriptions.delete'),
  { method: 'GET', path: '/v1/bulkSubscription/{name}/id', client: 'bulkSubscriptions.nameToId' },
  { method: 'GET', path: '/v1/bulkSubscription/{id}/name', client: 'bulkSubscriptions.idToName' },
  ...eitherRef('GET', '/entries', 'bulkSubscriptions.entries'),
  ...eitherRef('POST', '/entries', 'bulkSubscriptions.addEntries'),
  ...eitherRef('DELETE', '/entries', 'bulkSubscriptions.removeEntries'),
  ...eitherRef('DELETE', '/entries/all', 'bulkSubscriptions.removeAllEntries'),
  ...eitherRef('GET', '/imports', 'bulkSubscriptions.imports'),
  ...eitherRef('POST', '/_upload', 'bulkSubscriptions.uploadEntries'),

  { method: 'GET', path: '/v1/datamodel/retrieval/{kind}', client: 'dataModel.retrieve' },
  { method: 'GET', path: '/v1/datamodel/current', client: 'dataModel.current' },
  { method: 'GET', path: '/v1/datamodel/defaultItem/{category}', client: 'dataModel.defaultItem' },
  { method: 'GET', path: '/v1/datamodel/exportFormats', client: 'dataModel.exportFormats' },

  { method: 'GET', path: '/v1/items/{primaryKey}/tags', client: 'itemTags.list' },
  { method: 'POST', path: '/v1/items/{primaryKey}/tags', client: 'itemTags.add' },
  { method: 'DELETE', path: '/v1/items/{primaryKey}/tags', client: 'itemTags.remove' },
];

/**
 * Builds the HTTP client of every operation of the spec; options are checked at once, as by
 * `createPdsClient`.
 *
 * @example
 * ```ts
 * const pds = createFullPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * for await (const subscription of pds.bulkSubscriptions.list({ active: true })) show(subscription.name);
 * await pds.close();
 * ```
 */
export function createFullPdsClient(options: PdsClientOptions): FullPdsClient {
  return new HttpFullPdsClient(new PdsTransport(options));
}

class HttpFullPdsClient extends HttpPdsClient implements FullPdsClient {
  readonly assetFolders: AssetFolderOperations;
  readonly bulkSubscriptions: BulkSubscriptionOperations;
  readonly dataModel: DataModelOperations;
  readonly itemTags: ItemTagOperations;

  constructor(transport: PdsTransport) {
    super(transport);
    this.assetFolders = new PdsAssetFolders(transport);
    this.bulkSubscriptions = new PdsBulkSubscriptions(transport);
    this.dataModel = new PdsDataModel(transport);
    this.itemTags = new PdsItemTags(transport);
  }
}
