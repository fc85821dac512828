/**
 * Lenient schemas of the PDS answers: the fields the bridge relies on are checked, unknown fields pass
 * through untouched (a newer server never breaks an older client), and a wrong shape becomes a
 * `PdsInvalidResponseError` that names the offending field.
 */
import * as z from 'zod';
import { lazily, once } from '../lazy.ts';
import { PdsInvalidResponseError, type PdsRequestLine } from './errors.ts';
import type {
  CommunicationChannel,
  GatheringEntry,
  MessagingAssetSummary,
  Selection,
  SupplierReview,
  ValidationResponse,
} from './types.ts';
import type {
  AssetFolderLink,
  BulkSubscription,
  BulkSubscriptionEntry,
  BulkSubscriptionImport,
  DataModel,
  DefaultItem,
  ExportFormat,
  ExportFormatsByKey,
} from './types-v1.ts';

/** A string that may arrive as null or be missing; read as ''. */
const lenientString = once(() =>
  z
    .string()
    .nullish()
    .transform((value) => value ?? ''),
);

const gatheringEntry = once(() =>
  z.looseObject({
    gatheringKey: z.string().min(1),
    assetKey: z.string(),
    path: z.string().min(1),
    contentType: lenientString(),
  }),
);

const validationResult = once(() =>
  z.looseObject({
    name: z.string(),
    level: z.string(),
    path: z.array(z.string()),
    message: z.string(),
    params: z.looseObject({ msg_id: z.string(), err_val: z.string(), err_val_msg: z.string() }),
  }),
);

const openObject = once(() => z.record(z.string(), z.unknown()));

const validationResponse = once(() =>
  z.looseObject({
    validations: z.record(z.string(), z.array(validationResult())),
    attributeStates: openObject().default({}),
    calculations: openObject().default({}),
  }),
);

const selection = once(() =>
  z.looseObject({
    selectionId: z.string().min(1),
    numberOfItems: z.number().int().nonnegative(),
  }),
);

const communicationChannel = once(() =>
  z.looseObject({
    // Used as a publication's destinationId (a string); a numeric id is read as its decimal text.
    id: z.union([z.string().min(1), z.number().int()]).transform(String),
    name: z.string(),
  }),
);

const messagingAssetId = once(() => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));

const supplierReview = once(() =>
  z.looseObject({
    primaryKey: z.string(),
    supplierId: z.string(),
    channelId: z.string(),
    messagingAssetId: messagingAssetId(),
    supplier: z.string(),
    reviewer: z.string(),
    reviewStatus: z.string(),
    date: z.number(),
    comment: lenientString(),
    messagingCreatorType: z.string(),
  }),
);

const messagingAssetSummary = once(() =>
  z.looseObject({
    id: messagingAssetId(),
    createdAt: z.number(),
    contentType: z.string(),
    primaryKey: z.string().optional(),
    messagingCreatorType: z.string().optional(),
  }),
);

/** Schemas of every `/api/v1` answer, typed as the wire types of `types.ts`. */
export const schemas = lazily({
  gatheringEntries: () => z.array(gatheringEntry()) as z.ZodType<GatheringEntry[]>,
  validationResponse: () => validationResponse() as z.ZodType<ValidationResponse>,
  selection: () => selection() as z.ZodType<Selection>,
  communicationChannels: () => z.array(communicationChannel()) as z.ZodType<CommunicationChannel[]>,
  supplierReviews: () => z.array(supplierReview()) as z.ZodType<SupplierReview[]>,
  messagingAssetSummaries: () => z.array(messagingAssetSummary()) as z.ZodType<MessagingAssetSummary[]>,
});

/**
 * Checks an answer against a schema.
 *
 * @throws PdsInvalidResponseError naming the first wrong field, e.g. `[2].messagingAssetId`
 * @example
 * ```ts
 * const reviews = parseAnswer(schemas.supplierReviews, body, line);
 * ```
 */
export function parseAnswer<T>(schema: z.ZodType<T>, value: unknown, line: PdsRequestLine): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues;
  const shown = issues
    .slice(0, 3)
    .map((issue) => `field '${fieldName(issue.path)}': ${issue.message}`)
    .join('; ');
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : '';
  throw new PdsInvalidResponseError(`unexpected shape, ${shown}${more}`, line);
}

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(root)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

// ---------------------------------------------------------------------------------------------------
// The /v1 families (shapes chosen in docs/spec-gaps.md; read leniently, unknown fields pass through)

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
    defaults: openObject().default({}),
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

/** Schemas of every `/v1` answer, typed as the wire types of `types-v1.ts`. */
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
  defaultItem: () => openObject() as z.ZodType<DefaultItem>,
  exportFormats: () =>
    z.array(z.looseObject({ key: z.string(), ...exportFormatFields() })) as z.ZodType<ExportFormat[]>,
  exportFormatsByKey: () =>
    z.record(z.string(), z.looseObject(exportFormatFields())) as z.ZodType<ExportFormatsByKey>,
  itemTags: () => z.array(z.string()),
});
