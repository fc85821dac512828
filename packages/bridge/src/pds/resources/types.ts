/**
 * Wire types of the `/v1` families of the Product Data Service: asset folders, bulk subscriptions,
 * the data model and item tags.
 *
 * The spec shows few of these bodies ("Response bodies of the bulk subscription, data model and item
 * tag operations: not shown"). The shapes below are the ones chosen in docs/spec-gaps.md ("/v1
 * families") and served by the simulator; every record allows extra keys (`Passthrough`) so that the
 * real server's additional fields reach callers untouched.
 */
import type { Item, Passthrough } from '../types.ts';

// ---------------------------------------------------------------------------------------------------
// Pagination (every list with limit / offset / x-cursor)

/** Request and response header carrying the opaque cursor of the next page; absent when no page follows. */
export const X_CURSOR_HEADER = 'x-cursor';
/** Response header of paged lists: how many records match in all pages (a simulator addition). */
export const X_TOTAL_COUNT_HEADER = 'x-total-count';

/** Paging of a list: `limit` (1..1000, default 100) with either `offset` or the `cursor` of the previous page. */
export interface PageQuery {
  limit?: number;
  offset?: number;
  /** The `x-cursor` response header of the previous page, sent back unchanged as the `x-cursor` request header. */
  cursor?: string;
}

// ---------------------------------------------------------------------------------------------------
// Asset folders

export const ASSET_LINK_TYPES = ['ASSET', 'FOLDER'] as const;
export type AssetLinkType = (typeof ASSET_LINK_TYPES)[number];

/** The operation segments of `/v1/assetFolders/<segment>{path}`; a root entry cannot carry one of these names. */
export const ASSET_FOLDER_OPERATIONS = [
  '_convertToPublicAsset',
  '_delete',
  '_deleteItems',
  '_getDetails',
  '_moveAsset',
  '_moveFolder',
  '_renameAsset',
  '_renameFolder',
  '_uploadArchive',
  '_uploadFile',
] as const;

/** Body of create, move, rename and convert (FolderPathName); which field an operation reads is in docs/spec-gaps.md. */
export interface FolderPathName {
  /** Destination folder of `_moveAsset` / `_moveFolder`, absolute (`/a/b`, `/` for the root). */
  path?: string;
  /** New name of `_renameAsset` / `_renameFolder`; name of the folder created inside `{path}` by POST. */
  name?: string;
}

/**
 * One asset or folder (AssetFolderLink). The spec makes every field optional; the simulator always sends
 * `id`, `name`, `path`, `linkType`, the four audit fields and (except for the root) `parentFolderId`.
 */
export interface AssetFolderLink extends Passthrough {
  name?: string;
  linkType?: AssetLinkType | (string & {});
  /** ISO 8601 date-time. */
  createdAt?: string;
  createdBy?: string;
  /** ISO 8601 date-time. */
  changedAt?: string;
  changedBy?: string;
  /** int64; absent on the root folder. */
  parentFolderId?: number;
  /** Simulator addition: int64 id of this asset or folder (the root is 1). */
  id?: number;
  /** Simulator addition: absolute path, `/` for the root, `/a/b.pdf` for an asset. */
  path?: string;
  /** Simulator addition, assets only: size in bytes. */
  size?: number;
  /** Simulator addition, assets only: the content type given at upload (`application/octet-stream` when none). */
  contentType?: string;
  /** Simulator addition, assets only: true once converted to a public asset. */
  public?: boolean;
  /** Simulator addition, public assets only: absolute URL that serves the bytes without credentials. */
  publicUrl?: string;
}

/** Body of `DELETE /v1/assetFolders/_deleteItems`: absolute paths of assets and folders (folders recursively). */
export interface AssetFolderDeleteItemsRequest {
  paths: string[];
}

// ---------------------------------------------------------------------------------------------------
// Bulk subscriptions

/**
 * How `/v1/bulkSubscription/{ref}` tells an id from a name: a segment of decimal digits only is an id,
 * anything else is a name. Names made only of digits are refused at create time, so no name ever looks
 * like an id. Clients build the segment themselves from an explicit id or name.
 */
export const BULK_SUBSCRIPTION_ID_PATTERN = /^\d+$/;

export const BULK_SUBSCRIPTION_STATES = ['IDLE', 'PROCESSING'] as const;
export type BulkSubscriptionState = (typeof BULK_SUBSCRIPTION_STATES)[number];

/** A value of a bulk subscription entry. */
export type BulkSubscriptionEntryValue = string | number | boolean;

/** One entry: attribute names (each among the subscription's `attributes`) and their values. */
export type BulkSubscriptionEntry = Record<string, BulkSubscriptionEntryValue>;

/** Body of `POST /v1/bulkSubscription`. */
export interface BulkSubscriptionCreateRequest {
  /** Unique; not empty, not digits only, not `.` or `..`, at most 255 characters, no control characters. */
  name: string;
  label?: string;
  description?: string;
  /** Non-empty list of distinct attribute names the entries are made of. */
  attributes: string[];
  /** Default true. */
  active?: boolean;
}

/**
 * Body of `PUT /v1/bulkSubscription/{ref}`: fields left out keep their value. `name` (update by name) or
 * `id` (update by id), when sent, must be those of the addressed subscription: names and ids never change.
 */
export interface BulkSubscriptionUpdateRequest {
  name?: string;
  id?: string;
  label?: string;
  description?: string;
  /** Must still contain every attribute used by an existing entry (409 otherwise). */
  attributes?: string[];
  active?: boolean;
}

/** A bulk subscription as the list, get, create and update answers show it. */
export interface BulkSubscription extends Passthrough {
  /** Decimal digits; ids increase with every create. */
  id: string;
  name: string;
  label: string;
  description: string;
  attributes: string[];
  active: boolean;
  /** PROCESSING while an operation sent with `synchronously=false` waits to be applied. */
  state: BulkSubscriptionState | (string & {});
  /** ISO 8601 date-time of the last create, update or entry change; orders the list (newest first). */
  lastUpdated: string;
  /** Simulator addition: number of entries. */
  entryCount: number;
}

/** Answer of `GET /v1/bulkSubscription/{name}/id`. */
export interface BulkSubscriptionIdAnswer extends Passthrough {
  id: string;
}

/** Answer of `GET /v1/bulkSubscription/{id}/name`. */
export interface BulkSubscriptionNameAnswer extends Passthrough {
  name: string;
}

/** `action` of `POST /v1/bulkSubscription/{ref}/_upload`. */
export const BULK_UPLOAD_ACTIONS = ['ADD_ENTRIES', 'DELETE_ENTRIES'] as const;
export type BulkUploadAction = (typeof BULK_UPLOAD_ACTIONS)[number];

/** Every action an import record can name: the upload actions and `DELETE_ALL_ENTRIES` (entries/all). */
export const BULK_IMPORT_ACTIONS = [...BULK_UPLOAD_ACTIONS, 'DELETE_ALL_ENTRIES'] as const;
export type BulkImportAction = (typeof BULK_IMPORT_ACTIONS)[number];

/**
 * One change of a subscription's entries: the answer of add / remove / remove-all / upload, and an
 * element of the imports list (newest first).
 */
export interface BulkSubscriptionImport extends Passthrough {
  /** Decimal digits; increases across all subscriptions. */
  id: string;
  subscriptionId: string;
  action: BulkImportAction | (string & {});
  /** `API` for a JSON body, `UPLOAD` for the `_upload` file. */
  source: 'API' | 'UPLOAD' | (string & {});
  /** The uploaded file's name (`UPLOAD` only). */
  fileName?: string;
  /** PENDING until a `synchronously=false` operation is applied, then DONE. */
  status: 'PENDING' | 'DONE' | (string & {});
  /** ISO 8601 date-time. */
  requestedAt: string;
  /** ISO 8601 date-time; absent while PENDING. */
  completedAt?: string;
  /** Entries in the request (0 for DELETE_ALL_ENTRIES). */
  entriesRequested: number;
  /** Entries that were new (ADD_ENTRIES); 0 while PENDING. */
  entriesAdded: number;
  /** Entries that existed and were removed; 0 while PENDING. */
  entriesRemoved: number;
}

// ---------------------------------------------------------------------------------------------------
// Data model

/** The `{kind}` of `GET /v1/datamodel/retrieval/{kind}`; any other kind is 400. */
export const DATA_MODEL_RETRIEVAL_KINDS = ['categories', 'attributes', 'enums'] as const;
export type DataModelRetrievalKind = (typeof DATA_MODEL_RETRIEVAL_KINDS)[number];

/**
 * Filters of the retrieval (all optional, combined with AND; within a list any value matches). The answer
 * is a JSON array of keys: category keys, attribute names, or `<enum>.<code>` for enum codes.
 */
export interface DataModelRetrievalQuery {
  /** Case-insensitive substring of the key (attribute name, code) or its label. */
  q?: string;
  /** Name of the data model (`demo` in the simulator). */
  dataModel?: string;
  /** Extension the element belongs to (`core` or `gdsn` in the simulator). */
  extension?: string;
  /** Categories without children; attributes and enum codes are always leaves. */
  leaf?: boolean;
  /** Parent category (categories), introducing category (attributes) or enum name (enum codes). Repeated query parameter. */
  parent?: string[];
  /** Category key, attribute name or enum name. Repeated query parameter. */
  name?: string[];
  /** Category key, attribute name or enum code. Repeated query parameter. */
  code?: string[];
  /** Most keys answered (0 or more); all when absent. */
  limit?: number;
}

export interface DataModelCategory extends Passthrough {
  key: string;
  label: string;
  /** Absent on the root category. */
  parent?: string;
  leaf: boolean;
  extension: string;
  /** Attributes this category introduces (its descendants inherit them). */
  attributes: string[];
  /** Default values this category sets (merged over its ancestors' in `defaultItem`). */
  defaults: Record<string, unknown>;
}

export interface DataModelAttribute extends Passthrough {
  name: string;
  label: string;
  /** `key`, `string`, `number`, `enum` or `date`. */
  type: string;
  required: boolean;
  /** The category that introduces the attribute. */
  category: string;
  extension: string;
  /** Name of the enum holding the allowed codes (enum attributes only). */
  enum?: string;
}

export interface DataModelEnumCode extends Passthrough {
  code: string;
  label: string;
}

export interface DataModelEnum extends Passthrough {
  name: string;
  label: string;
  extension: string;
  codes: DataModelEnumCode[];
}

export interface DataModelLayout extends Passthrough {
  name: string;
  label: string;
  sections: Array<{ label: string; attributes: string[] } & Passthrough>;
}

/** Answer of `GET /v1/datamodel/current`. */
export interface DataModel extends Passthrough {
  name: string;
  version: string;
  categories: DataModelCategory[];
  attributes: DataModelAttribute[];
  enums: DataModelEnum[];
  layouts: DataModelLayout[];
}

/** Answer of `GET /v1/datamodel/defaultItem/{category}`: only the attributes that have a default. */
export type DefaultItem = Item;

export interface ExportMapping extends Passthrough {
  attribute: string;
  /** Column (CSV, XLSX) or element path (XML formats) the attribute is written to. */
  column: string;
}

/** An export format; `mappings` only with `includeExportMappings=true`. */
export interface ExportFormat extends Passthrough {
  key: string;
  label: string;
  /** `SYSTEM` (built in) or `DATA_MODEL` (defined by the current data model). */
  source: 'SYSTEM' | 'DATA_MODEL' | (string & {});
  fileExtension: string;
  contentType: string;
  mappings?: ExportMapping[];
}

/** `GET /v1/datamodel/exportFormats?returnKeyValueFormat=true`: the same records keyed by `key` (without it). */
export type ExportFormatsByKey = Record<string, Omit<ExportFormat, 'key'>>;

// ---------------------------------------------------------------------------------------------------
// Item tags

/** Query of `GET /v1/items/{primaryKey}/tags`. */
export interface ItemTagQuery extends PageQuery {
  /** Newest first when true; oldest first otherwise. */
  newestFirst?: boolean;
  /** Only tags that start with this text (case-sensitive). */
  baseTag?: string;
}

/** The list answer and the add / remove bodies: a JSON array of tags. */
export type ItemTags = string[];
