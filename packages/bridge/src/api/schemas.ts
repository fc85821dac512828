/**
 * The zod schemas of the HTTP API: the one source of truth for what requests must look like (the
 * routes validate with them) and for what answers look like (the OpenAPI document is generated from
 * them by ./openapi.ts, and tests check answers against them).
 *
 * Schemas that depend on configuration (the largest number of primary keys) are built per API
 * instance by {@link createApiSchemas}. Every named schema is registered in the instance's registry
 * with an `id`, which becomes its name under `components.schemas`.
 */

import * as z from '../core/zod.ts';
import { createConfirmationSchemas } from './confirmation-schemas.ts';
import {
  IDEMPOTENCY_KEY_PATTERN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from './idempotency-key.ts';
import { pageSchema } from './paging.ts';
import { publicationSchemas, type SchemaLimits } from './publication-schemas.ts';
import { createRecipientSchemas } from './recipient-schemas.ts';
import { type SchemaMeta, type SchemaRegistry, text } from './schema-parts.ts';
import { serviceSchemas } from './service-schemas.ts';
import { createWebhookSchemas } from './webhook-schemas.ts';

export {
  MAX_DESTINATION_ID_LENGTH,
  MAX_DESTINATIONS,
  MAX_PRIMARY_KEY_LENGTH,
  PUBLICATION_STATUSES,
  type PublicationStatus,
  type SchemaLimits,
} from './publication-schemas.ts';
export type { SchemaMeta } from './schema-parts.ts';

/**
 * How long a key is remembered, as the draft asks servers to publish. The key lives in its
 * publication record (./submit.ts), and the deployment sets no expiry on `publications/`.
 */
export const IDEMPOTENCY_KEY_RETENTION =
  'A key is remembered as long as its publication record is kept in the state bucket (publications/<id>.json); ' +
  'the deployment does not expire these records, so a key is never forgotten unless an operator deletes the record. ' +
  'A request still being accepted holds its key for at most 30 s; after that a retry takes it over.';

/**
 * Builds every schema of the API for the given limits, registered in a fresh registry. The groups
 * register in a fixed order, which is the order of `components.schemas` in the OpenAPI document.
 *
 * @example
 * ```ts
 * const schemas = createApiSchemas({ maxKeys: 1000 });
 * schemas.publicationRequest.safeParse({ primaryKeys: ['04012345678901'], destinations: [] }).success; // false
 * ```
 */
export function createApiSchemas(limits: SchemaLimits) {
  const registry = z.registry<SchemaMeta>();
  const timestamp = z.iso.datetime();
  const publications = publicationSchemas(registry, limits, timestamp);
  const validation = validationSchemas(registry);
  const channels = channelSchemas(registry, timestamp);
  const watch = watchSchemas(registry, timestamp);
  const service = serviceSchemas(registry);
  return {
    registry,
    ...publications,
    ...validation,
    ...channels,
    ...watch,
    ...service,
    parameters: parameterSchemas(registry),
    confirmations: createConfirmationSchemas(registry),
    recipients: createRecipientSchemas(registry),
    webhooks: createWebhookSchemas(registry),
  };
}

/** POST /validate: an item to validate and the PDS results. */
function validationSchemas(registry: SchemaRegistry) {
  const item = z.record(z.string(), z.unknown()).register(registry, {
    id: 'Item',
    description: "An item: `primaryKey__` plus the tenant's own attribute names (data model).",
  });

  const validationRequest = z
    .strictObject({
      newItem: item,
      oldItem: z.optional(item),
      attributeNames: z.optional(z.array(text('an attribute name'))),
    })
    .register(registry, {
      id: 'ValidationRequest',
      description:
        'An item to validate. Without oldItem it is validated as new; without attributeNames every attribute is validated.',
    });

  const validationResult = z.looseObject({
    name: z.string(),
    level: z.string(),
    path: z.array(z.string()),
    message: z.string(),
    params: z.looseObject({}),
  });

  const validationResponse = z
    .looseObject({
      validations: z.record(z.string(), z.array(validationResult)),
      attributeStates: z.record(z.string(), z.unknown()),
      calculations: z.record(z.string(), z.unknown()),
    })
    .register(registry, {
      id: 'ValidationResponse',
      description: 'The PDS validation results, as it sent them.',
    });

  return { validationRequest, validationResponse };
}

/** GET /communication-channels. */
function channelSchemas(registry: SchemaRegistry, timestamp: z.ZodMiniISODateTime) {
  const communicationChannel = z.looseObject({ id: z.string(), name: z.string() }).register(registry, {
    id: 'CommunicationChannel',
    description:
      'A channel whose id is a COMMUNICATION_CHANNEL destinationId; further fields as the PDS sends them.',
  });

  const communicationChannels = z
    .object({ channels: z.array(communicationChannel), fetchedAt: timestamp })
    .register(registry, {
      id: 'CommunicationChannelList',
      description: 'The PDS communication channels; `fetchedAt` says when the bridge last read them.',
    });

  return { communicationChannel, communicationChannels };
}

/** The watch list: GET /watch and its entries. */
function watchSchemas(registry: SchemaRegistry, timestamp: z.ZodMiniISODateTime) {
  const watchEntry = z
    .object({
      primaryKey: z.string(),
      addedAt: timestamp,
      expiresAt: timestamp,
      expired: z.boolean(),
      sources: z.array(z.string()),
      seenReviews: z.number().check(z.int(), z.gte(0)),
    })
    .register(registry, {
      id: 'WatchEntry',
      description:
        'A primary key whose supplier reviews are polled until expiresAt; sources say who asked (publication:<id>, operator).',
    });

  const watchList = pageSchema(registry, watchEntry, {
    id: 'WatchList',
    contents: 'the watch list in key order',
  });

  return { watchEntry, watchList };
}

/** Path, header and query parameters. */
function parameterSchemas(registry: SchemaRegistry) {
  const publicationId = z
    .string()
    .check(z.minLength(1))
    .register(registry, { description: 'The id POST /publications answered.' });
  const pathPrimaryKey = z.string().check(z.minLength(1)).register(registry, {
    description: 'A primary key, percent-encoded as one path segment.',
  });
  const idempotencyKey = z
    .string()
    .check((ctx) => {
      const parsed = parseIdempotencyKey(ctx.value);
      if (!parsed.ok) ctx.issues.push({ code: 'custom', input: ctx.value, message: parsed.reason });
    })
    .register(registry, {
      description:
        'Makes a retried POST return the first answer instead of publishing twice. A Structured Field String ' +
        '(draft-ietf-httpapi-idempotency-key-header), e.g. `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, or the same ' +
        `key unquoted; 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters once unquoted, unique per intended publication ` +
        `and scoped to the caller. ${IDEMPOTENCY_KEY_RETENTION}`,
      pattern: IDEMPOTENCY_KEY_PATTERN,
    });
  const pageLimit = z.coerce.number().check(z.int(), z.gte(1), z.lte(1000)).register(registry, {
    description: 'Entries per page, 1 to 1000; default 100.',
  });
  const pageCursor = z
    .string()
    .check(z.minLength(1))
    .register(registry, { description: 'nextCursor of the previous page.' });

  const channelCheck = z.enum(['skip']).register(registry, {
    description:
      'skip: publish without checking COMMUNICATION_CHANNEL destinations against the PDS channel list (when the list cannot be read: the PDS is down and the cache cold). Left out, a channel the list lacks is refused with 422.',
  });

  const watchForce = z.enum(['true']).register(registry, {
    description:
      'true: watch the key although the PDS does not know the item (yet). Left out, a key the PDS answers 404 for is refused with 422 unknown-item.',
  });

  return { publicationId, pathPrimaryKey, idempotencyKey, pageLimit, pageCursor, channelCheck, watchForce };
}

/** The schemas of one API instance. */
export type ApiSchemas = ReturnType<typeof createApiSchemas>;

/** The body of POST /publications after validation. */
export type PublicationRequestBody = z.output<ApiSchemas['publicationRequest']>;
/** The answer of GET /publications/{id}. */
export type PublicationView = z.output<ApiSchemas['publication']>;
/** An error recorded on a publication. */
export type PublicationErrorView = z.output<ApiSchemas['publicationError']>;
/** The answer of GET /watch. */
export type WatchListView = z.output<ApiSchemas['watchList']>;
/** One watch-list entry as the API shows it. */
export type WatchEntryView = z.output<ApiSchemas['watchEntry']>;
