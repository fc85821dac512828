/**
 * The `/v1` families of the Product Data Service as interfaces, and the whole client (`/api/v1` and
 * `/v1`) that the `pds` command line and the tests use. No Lambda calls them, so none bundles them
 * (test/unit/bundle-boundaries.test.ts).
 */
import type { ClosablePdsClient } from '../ports.ts';
import type { AssetFolderOperations } from './asset-folders.ts';
import type { BulkSubscriptionOperations } from './bulk-subscriptions.ts';
import type { DataModelOperations } from './datamodel.ts';
import type { ItemTagOperations } from './item-tags.ts';

/** The `/v1` families of the Product Data Service, one object each. Every failure is a `PdsError` subclass. */
export interface PdsV1Client {
  /** `/v1/assetFolders`: documents, media files and folders. */
  readonly assetFolders: AssetFolderOperations;
  /** `/v1/bulkSubscription`: named criteria for retrieving a bulk of items, and their entries. */
  readonly bulkSubscriptions: BulkSubscriptionOperations;
  /** `/v1/datamodel`: keys, the current model, default items, export formats. */
  readonly dataModel: DataModelOperations;
  /** `/v1/items/{primaryKey}/tags`: custom tags of an item. */
  readonly itemTags: ItemTagOperations;
}

/** Every operation of the spec over HTTP: the `/api/v1` operations, the `/v1` families and `close()`. */
export interface FullPdsClient extends ClosablePdsClient, PdsV1Client {}
