/**
 * Lenient schemas of the `/v1` answers (shapes chosen in docs/spec-gaps.md): unknown fields pass
 * through, a wrong shape becomes a `PdsInvalidResponseError` naming the field (../schemas.ts).
 */
import * as z from 'zod';
import { lazily, once } from '../../core/lazy.ts';
import { lenientString, openObject } from '../schemas.ts';
import type {
  AssetFolderLink,
  BulkSubscription,
  BulkSubscriptionEntry,
  BulkSubscriptionImport,
  DataModel,
  DefaultItem,
  ExportFormat,
  ExportFormatsByKey,
} from './types.ts';

/** An optional field that may also arrive as null; read as absent. */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => value ?? undefined);
}

/** An identifier the spec types as string here and int64 there; read as its decimal text. */
const decimalId = once(() => z.union([z.string().min(1), z.number().int().nonnegative()]).transform(String));

const assetFolderLink = once(() =>
  z.looseObject({
    name: optional(z.string()),
    linkType: optional(z.string()),
    createdAt: optional(z.string()),
    createdBy: optional(z.string()),
    changedAt: optional(z.string()),
    changedBy: optional(z.string()),
    parentFolderId: optional(z.number()),
    id: optional(z.number()),
    path: optional(z.string()),
    size: optional(z.number()),
    contentType: optional(z.string()),
    public: optional(z.boolean()),
    publicUrl: optional(z.string()),
  }),
);

const bulkSubscription = once(() =>
  z.looseObject({
    id: decimalId(),
    name: z.string(),
    label: lenientString(),
    description: lenientString(),
    attributes: z.array(z.string()).default([]),
    active: z.boolean().default(true),
    state: lenientString(),
    lastUpdated: lenientString(),
    entryCount: optional(z.number().int().nonnegative()),
  }),
);

const bulkSubscriptionImport = once(() =>
  z.looseObject({
    id: decimalId(),
    subscriptionId: optional(decimalId()),
    action: z.string(),
    source: lenientString(),
    fileName: optional(z.string()),
    status: z.string(),
    requestedAt: lenientString(),
    completedAt: optional(z.string()),
    entriesRequested: z.number().int().nonnegative().default(0),
    entriesAdded: z.number().int().nonnegative().default(0),
    entriesRemoved: z.number().int().nonnegative().default(0),
  }),
);

/** `{"id": "7"}`, or a bare id: the spec only says "the id of the subscription". */
const subscriptionIdAnswer = once(() =>
  z.union([z.looseObject({ id: decimalId() }).transform((answer) => answer.id), decimalId()]),
);

/** `{"name": "gtin-watch"}`, or a bare name. */
const subscriptionNameAnswer = once(() =>
  z.union([z.looseObject({ name: z.string().min(1) }).transform((answer) => answer.name), z.string().min(1)]),
);

const entry = once(() => z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])));

const dataModelCategory = once(() =>
  z.looseObject({
    key: z.string(),
    label: lenientString(),
    parent: optional(z.string()),
    leaf: z.boolean().default(false),
    extension: lenientString(),
    attributes: z.array(z.string()).default([]),
    defaults: z._default(openObject(), {}),
  }),
);

const dataModelAttribute = once(() =>
  z.looseObject({
    name: z.string(),
    label: lenientString(),
    type: lenientString(),
    required: z.boolean().default(false),
    category: lenientString(),
    extension: lenientString(),
    enum: optional(z.string()),
  }),
);

const dataModelEnum = once(() =>
  z.looseObject({
    name: z.string(),
    label: lenientString(),
    extension: lenientString(),
    codes: z.array(z.looseObject({ code: z.string(), label: lenientString() })).default([]),
  }),
);

const dataModelLayout = once(() =>
  z.looseObject({
    name: z.string(),
    label: lenientString(),
    sections: z.array(z.looseObject({ label: lenientString(), attributes: z.array(z.string()) })).default([]),
  }),
);

const dataModel = once(() =>
  z.looseObject({
    name: lenientString(),
    version: z.union([z.string(), z.number()]).transform(String),
    categories: z.array(dataModelCategory()).default([]),
    attributes: z.array(dataModelAttribute()).default([]),
    enums: z.array(dataModelEnum()).default([]),
    layouts: z.array(dataModelLayout()).default([]),
  }),
);

const exportMapping = once(() => z.looseObject({ attribute: z.string(), column: z.string() }));

const exportFormatFields = once(() => ({
  label: lenientString(),
  source: lenientString(),
  fileExtension: lenientString(),
  contentType: lenientString(),
  mappings: optional(z.array(exportMapping())),
}));

/** Schemas of every `/v1` answer, typed as the wire types of `types.ts`. */
export const schemasV1 = lazily({
  assetFolderLink: () => assetFolderLink() as z.ZodType<AssetFolderLink>,
  assetFolderLinks: () => z.array(assetFolderLink()) as z.ZodType<AssetFolderLink[]>,
  bulkSubscription: () => bulkSubscription() as z.ZodType<BulkSubscription>,
  bulkSubscriptions: () => z.array(bulkSubscription()) as z.ZodType<BulkSubscription[]>,
  bulkSubscriptionImport: () => bulkSubscriptionImport() as z.ZodType<BulkSubscriptionImport>,
  bulkSubscriptionImports: () => z.array(bulkSubscriptionImport()) as z.ZodType<BulkSubscriptionImport[]>,
  subscriptionIdAnswer: () => subscriptionIdAnswer() as z.ZodType<string>,
  subscriptionNameAnswer: () => subscriptionNameAnswer() as z.ZodType<string>,
  bulkSubscriptionEntries: () => z.array(entry()) as z.ZodType<BulkSubscriptionEntry[]>,
  dataModelKeys: () => z.array(z.string()),
  dataModel: () => dataModel() as z.ZodType<DataModel>,
  defaultItem: () => openObject() as z.core.$ZodType<DefaultItem>,
  exportFormats: () =>
    z.array(z.looseObject({ key: z.string(), ...exportFormatFields() })) as z.ZodType<ExportFormat[]>,
  exportFormatsByKey: () =>
    z.record(z.string(), z.looseObject(exportFormatFields())) as z.ZodType<ExportFormatsByKey>,
  itemTags: () => z.array(z.string()),
});
