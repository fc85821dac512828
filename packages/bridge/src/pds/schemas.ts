/**
 * Lenient schemas of the PDS answers: the fields the bridge relies on are checked, unknown fields pass
 * through untouched (a newer server never breaks an older client), and a wrong shape becomes a
 * `PdsInvalidResponseError` that names the offending field.
 */
import { lazily, once } from '../core/lazy.ts';
import * as z from '../core/zod.ts';
import { PdsInvalidResponseError, type PdsRequestLine } from './errors.ts';
import type {
  CommunicationChannel,
  GatheringEntry,
  MessagingAssetSummary,
  Selection,
  SupplierReview,
  ValidationResponse,
} from './types.ts';

/** A string that may arrive as null or be missing; read as ''. */
export const lenientString = once(() =>
  z.pipe(
    z.nullish(z.string()),
    z.transform((value: string | null | undefined) => value ?? ''),
  ),
);

const gatheringEntry = once(() =>
  z.looseObject({
    gatheringKey: z.string().check(z.minLength(1)),
    assetKey: z.string(),
    path: z.string().check(z.minLength(1)),
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

/** Any JSON object, unknown fields kept. */
export const openObject = once(() => z.record(z.string(), z.unknown()));

const validationResponse = once(() =>
  z.looseObject({
    validations: z.record(z.string(), z.array(validationResult())),
    attributeStates: z._default(openObject(), {}),
    calculations: z._default(openObject(), {}),
  }),
);

const selection = once(() =>
  z.looseObject({
    selectionId: z.string().check(z.minLength(1)),
    numberOfItems: z.number().check(z.int(), z.gte(0)),
  }),
);

const communicationChannel = once(() =>
  z.looseObject({
    // Used as a publication's destinationId (a string); a numeric id is read as its decimal text.
    id: z.pipe(z.union([z.string().check(z.minLength(1)), z.number().check(z.int())]), z.transform(String)),
    name: z.string(),
  }),
);

const messagingAssetId = once(() => z.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)));

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
    primaryKey: z.optional(z.string()),
    messagingCreatorType: z.optional(z.string()),
  }),
);

/** Schemas of every `/api/v1` answer, typed as the wire types of `types.ts`. */
export const schemas = lazily({
  gatheringEntries: () => z.array(gatheringEntry()) as z.ZodMiniType<GatheringEntry[]>,
  validationResponse: () => validationResponse() as z.ZodMiniType<ValidationResponse>,
  selection: () => selection() as z.ZodMiniType<Selection>,
  communicationChannels: () => z.array(communicationChannel()) as z.ZodMiniType<CommunicationChannel[]>,
  supplierReviews: () => z.array(supplierReview()) as z.ZodMiniType<SupplierReview[]>,
  messagingAssetSummaries: () => z.array(messagingAssetSummary()) as z.ZodMiniType<MessagingAssetSummary[]>,
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
export function parseAnswer<T>(schema: z.core.$ZodType<T>, value: unknown, line: PdsRequestLine): T {
  const result = z.safeParse(schema, value);
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
