/**
 * The `/v1` families of the PDS client (asset folders, bulk subscriptions, the data model, item tags),
 * the whole client `createFullPdsClient` and `PDS_OPERATIONS`, the table of every operation of the
 * spec. The `pds` command line, the simulator and the tests import this entry; no Lambda does, so no
 * Lambda bundle carries them (test/unit/bundle-boundaries.test.ts).
 *
 * @example
 * ```ts
 * import { createFullPdsClient } from '@pds-bridge/bridge/pds/resources';
 * const pds = createFullPdsClient({ baseUrl, credentials });
 * const keys = await pds.dataModel.keys();
 * ```
 */
export type {
  AssetDownload,
  AssetFolderDownloadOptions,
  AssetFolderListOptions,
  AssetFolderOperations,
} from './asset-folders.ts';
export { encodeAssetPath, fileNameOf, normaliseAssetPath } from './asset-folders.ts';
export type {
  BulkSubscriptionOperations,
  SubscriptionDeleteOptions,
  SubscriptionDeleteResult,
  SubscriptionEntriesOptions,
  SubscriptionListOptions,
  SubscriptionRef,
  SubscriptionWriteOptions,
} from './bulk-subscriptions.ts';
export { subscriptionPath } from './bulk-subscriptions.ts';
export type { PdsOperation, PdsOperationMethod } from './client.ts';
export { createFullPdsClient, PDS_OPERATIONS } from './client.ts';
export type { DataModelCurrentOptions, DataModelOperations, ExportFormatsOptions } from './datamodel.ts';
export type { ItemTagListOptions, ItemTagOperations } from './item-tags.ts';
export type { PageOptions, PdsPage } from './pagination.ts';
export { DEFAULT_MAX_PAGES, DEFAULT_PAGE_SIZE } from './pagination.ts';
export type { FullPdsClient, PdsV1Client } from './ports.ts';
export type {
  AssetFolderDeleteItemsRequest,
  AssetFolderLink,
  AssetLinkType,
  BulkImportAction,
  BulkSubscription,
  BulkSubscriptionCreateRequest,
  BulkSubscriptionEntry,
  BulkSubscriptionEntryValue,
  BulkSubscriptionIdAnswer,
  BulkSubscriptionImport,
  BulkSubscriptionNameAnswer,
  BulkSubscriptionState,
  BulkSubscriptionUpdateRequest,
  BulkUploadAction,
  DataModel,
  DataModelAttribute,
  DataModelCategory,
  DataModelEnum,
  DataModelEnumCode,
  DataModelLayout,
  DataModelRetrievalKind,
  DataModelRetrievalQuery,
  DefaultItem,
  ExportFormat,
  ExportFormatsByKey,
  ExportMapping,
  FolderPathName,
  ItemTagQuery,
  ItemTags,
  PageQuery,
} from './types.ts';
export {
  ASSET_FOLDER_OPERATIONS,
  ASSET_LINK_TYPES,
  BULK_IMPORT_ACTIONS,
  BULK_SUBSCRIPTION_ID_PATTERN,
  BULK_SUBSCRIPTION_STATES,
  BULK_UPLOAD_ACTIONS,
  DATA_MODEL_RETRIEVAL_KINDS,
  X_CURSOR_HEADER,
  X_TOTAL_COUNT_HEADER,
} from './types.ts';
