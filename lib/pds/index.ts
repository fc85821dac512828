/**
 * The typed PDS client: `createPdsClient` builds a {@link PdsClient} over HTTP; every failure is a
 * `PdsError` subclass from `errors.ts`.
 *
 * @example
 * ```ts
 * import { createPdsClient, resolveCredentials } from '../lib/pds/index.ts';
 * const pds = createPdsClient({ baseUrl: process.env.PDS_BASE_URL!, credentials: await resolveCredentials() });
 * const entries = await pds.uploadGathering({ filePath: 'items.csv', contentType: 'text/csv' });
 * ```
 */
export type {
  AssetDownload,
  AssetFolderDownloadOptions,
  AssetFolderListOptions,
  AssetFolderOperations,
} from './asset-folders.ts';
export {
  assetPathSegments,
  encodeAssetPath,
  fileNameOf,
  normaliseAssetPath,
  PdsAssetFolders,
} from './asset-folders.ts';
export { PdsRequestBodyError } from './body-error.ts';
export type {
  BulkSubscriptionOperations,
  SubscriptionDeleteOptions,
  SubscriptionDeleteResult,
  SubscriptionEntriesOptions,
  SubscriptionListOptions,
  SubscriptionRef,
  SubscriptionWriteOptions,
} from './bulk-subscriptions.ts';
export { PdsBulkSubscriptions, subscriptionPath } from './bulk-subscriptions.ts';
export type { PdsClientOptions, PdsOperation, PdsOperationMethod } from './client.ts';
export { createPdsClient, PDS_OPERATIONS } from './client.ts';
export { PdsConfigurationError } from './configuration-error.ts';
export type { ResolveCredentialsOptions, SecretReader } from './credentials.ts';
export { chooseCredentials, readSecretCredentials, resolveCredentials } from './credentials.ts';
export type { DataModelCurrentOptions, DataModelOperations, ExportFormatsOptions } from './datamodel.ts';
export { PdsDataModel } from './datamodel.ts';
export * from './errors.ts';
export type { ItemTagListOptions, ItemTagOperations } from './item-tags.ts';
export { PdsItemTags } from './item-tags.ts';
export type { FileUploadSource, MultipartBody, StreamUploadSource, UploadSource } from './multipart.ts';
export { createMultipartBody, escapeFileName } from './multipart.ts';
export type { PdsCallOptions } from './options.ts';
export type { ListRequest, PageFetcher, PageOptions, PageRequest, PdsPage } from './pagination.ts';
export { DEFAULT_MAX_PAGES, DEFAULT_PAGE_SIZE, PdsPaginator, transportPages } from './pagination.ts';
export { encodePathSegment, pathOf } from './paths.ts';
export type { ClosablePdsClient, MessagingAssetListOptions, PdsClient, PdsV1Client } from './ports.ts';
export type { RetryOptions } from './retry.ts';
export { DEFAULT_RETRY, parseRetryAfter, retryAfterOf, retryDelayMs } from './retry.ts';
export type {
  PdsAnswerEvent,
  PdsConditional,
  PdsCredentials,
  PdsExpect,
  PdsHttpMethod,
  PdsModified,
  PdsNotModified,
  PdsQueryValue,
  PdsRequest,
  PdsRequestBody,
  PdsResponse,
  PdsResponseBody,
  PdsResponseHeaders,
  PdsRetryEvent,
  PdsTransportOptions,
} from './transport.ts';
export { headerOf, PdsTransport, USER_AGENT } from './transport.ts';
export * from './types.ts';
export * from './types-v1.ts';
export { PdsWorkflow } from './workflow.ts';
