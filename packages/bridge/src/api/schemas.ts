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
import { PUBLICATION_FAILURE_CODES } from '../events/index.ts';
import { DESTINATION_TYPES } from '../pds/index.ts';
import { createConfirmationSchemas } from './confirmation-schemas.ts';
import {
  IDEMPOTENCY_KEY_PATTERN,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
} from './idempotency-key.ts';
import { pageSchema } from './paging.ts';
import { createWebhookSchemas } from './webhook-schemas.ts';

/**
 * How long a key is remembered, as the draft asks servers to publish. The key lives in its
 * publication record (./submit.ts), and the deployment sets no expiry on `publications/`.
 */
export const IDEMPOTENCY_KEY_RETENTION =
  'A key is remembered as long as its publication record is kept in the state bucket (publications/<id>.json); ' +
  'the deployment does not expire these records, so a key is never forgotten unless an operator deletes the record. ' +
  'A request still being accepted holds its key for at most 30 s; after that a retry takes it over.';

/** Metadata kept for each schema: a component `id` for named ones, JSON Schema keywords for the rest. */
export type SchemaMeta = z.core.JSONSchemaMeta;

/** Limits the request schemas enforce. */
export interface SchemaLimits {
  /** Most primary keys in one publication (PUBLICATION_MAX_KEYS). */
  maxKeys: number;
}

/** Longest primary key accepted; far above a GTIN, far below what a state key can hold. */
export const MAX_PRIMARY_KEY_LENGTH = 512;

/**
 * Most destinations in one publication request. Each destination is one PDS publication of the
 * selection, and the record's GET answer lists them all: bounded so that it stays far below Lambda's
 * 6 MB answer (100 × the longest id is 51 KB).
 */
export const MAX_DESTINATIONS = 100;

/** Longest destination id accepted (an organization or communication channel id is far shorter). */
export const MAX_DESTINATION_ID_LENGTH = 512;

/** Statuses a publication goes through, in order (failed may follow queued or publishing). */
export const PUBLICATION_STATUSES = ['queued', 'publishing', 'published', 'failed'] as const;
export type PublicationStatus = (typeof PUBLICATION_STATUSES)[number];

// Text that is not well-formed Unicode (a lone surrogate) can be neither a state key nor a log line:
// refused here, where it enters, rather than failing the publish worker after the PDS call.
const text = (what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .check(z.minLength(1, { error: `must not be empty (${what})` }))
    .check(
      z.refine((value) => value.isWellFormed(), {
        error: `must be well-formed Unicode, without lone surrogates (${what})`,
      }),
    );

/** The registry every named schema of one API instance is registered in. */
type SchemaRegistry = z.core.$ZodRegistry<SchemaMeta>;

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
    webhooks: createWebhookSchemas(registry),
  };
}

/**
 * An issue at each element of the checked array whose identity an earlier element has, its message
 * naming the earlier index (`repeats`); elements without an identity (`undefined`) are not compared.
 */
function refuseRepeats<T>(
  ctx: z.core.ParsePayload<readonly T[]>,
  identityOf: (element: T) => string | undefined,
  repeats: (element: T, earlier: number) => string,
): void {
  const first = new Map<string, number>();
  ctx.value.forEach((element, index) => {
    const identity = identityOf(element);
    if (identity === undefined) return;
    const earlier = first.get(identity);
    if (earlier === undefined) first.set(identity, index);
    else
      ctx.issues.push({ code: 'custom', path: [index], input: element, message: repeats(element, earlier) });
  });
}

// Counts and duplicates are checked in one refinement rather than with .min/.max: zod stops looking at
// the elements once an array is too long, and a 422 must list every field error at once.
function primaryKeysSchema(registry: SchemaRegistry, primaryKey: z.ZodMiniType<string>, maxKeys: number) {
  return z
    .array(primaryKey, { error: 'must be an array of primary keys' })
    .check((ctx) => {
      const keys = ctx.value;
      if (keys.length === 0) {
        ctx.issues.push({
          code: 'too_small',
          origin: 'array',
          minimum: 1,
          inclusive: true,
          input: keys,
          message: 'must list at least one primary key',
        });
      }
      if (keys.length > maxKeys) {
        ctx.issues.push({
          code: 'too_big',
          origin: 'array',
          maximum: maxKeys,
          inclusive: true,
          input: keys,
          message: `lists ${keys.length} primary keys, more than the ${maxKeys} allowed (PUBLICATION_MAX_KEYS); split the request`,
        });
      }
      refuseRepeats(
        ctx,
        (key) => (typeof key === 'string' ? key : undefined),
        (key, earlier) =>
          `duplicates /primaryKeys/${earlier} (${JSON.stringify(key.slice(0, 40))}); list each key once`,
      );
    })
    .register(registry, {
      description: `The items to publish; each key once, at most ${maxKeys}.`,
      minItems: 1,
      maxItems: maxKeys,
      uniqueItems: true,
    });
}

function destinationSchema(registry: SchemaRegistry) {
  return z
    .strictObject({
      destinationType: z.enum(DESTINATION_TYPES, {
        error: `must be one of ${DESTINATION_TYPES.join(', ')}`,
      }),
      destinationId: text('the organization id for IN_PLATFORM, a communication channel id otherwise').check(
        z.maxLength(MAX_DESTINATION_ID_LENGTH, {
          error: `must be at most ${MAX_DESTINATION_ID_LENGTH} characters`,
        }),
      ),
    })
    .register(registry, {
      id: 'Destination',
      description:
        'Where to publish: IN_PLATFORM with the organization id, or COMMUNICATION_CHANNEL with an id from GET /communication-channels.',
    });
}

function destinationsSchema(registry: SchemaRegistry, destination: ReturnType<typeof destinationSchema>) {
  return (
    z
      .array(destination, { error: 'must be an array of destinations' })
      .check(z.minLength(1, { error: 'must name at least one destination' }))
      .check(
        z.maxLength(MAX_DESTINATIONS, {
          error: (issue) =>
            `names ${(issue.input as unknown[]).length} destinations, more than the ${MAX_DESTINATIONS} allowed; split the request`,
        }),
      )
      .check((ctx) =>
        refuseRepeats(
          ctx,
          (entry) => `${entry.destinationType}\u0000${entry.destinationId}`,
          (_entry, earlier) => `duplicates /destinations/${earlier}; name each destination once`,
        ),
      )
      // A destination has exactly these two fields, so "the same type and id" is JSON Schema's equality.
      .register(registry, { uniqueItems: true })
  );
}

/** POST /publications and GET /publications/{id}: the request, its acceptance and the record shown. */
function publicationSchemas(
  registry: SchemaRegistry,
  { maxKeys }: SchemaLimits,
  timestamp: z.ZodMiniISODateTime,
) {
  const primaryKey = text('a primary key')
    .check(
      z.maxLength(MAX_PRIMARY_KEY_LENGTH, { error: `must be at most ${MAX_PRIMARY_KEY_LENGTH} characters` }),
    )
    .register(registry, { description: 'Primary key of an item (`primaryKey__`), e.g. a GTIN.' });
  const gtin = text('a GTIN')
    .check(
      z.maxLength(MAX_PRIMARY_KEY_LENGTH, { error: `must be at most ${MAX_PRIMARY_KEY_LENGTH} characters` }),
    )
    .register(registry, {
      description:
        'A GTIN as the recipients’ GDSN messages carry it (14 digits, leading zeros kept), e.g. 00614141123452; matches entries of every item with that GTIN.',
    });
  const primaryKeys = primaryKeysSchema(registry, primaryKey, maxKeys);
  const destination = destinationSchema(registry);
  const destinations = destinationsSchema(registry, destination);

  const publicationRequest = z.strictObject({ primaryKeys, destinations }).register(registry, {
    id: 'PublicationRequest',
    description:
      'Publish these items to these destinations: the bridge creates a selection and publishes it.',
  });

  const publicationAccepted = z
    .object({
      publicationId: z.string(),
      status: z.literal('queued'),
    })
    .register(registry, {
      id: 'PublicationAccepted',
      description: 'The request is recorded and queued; follow the Location header for its progress.',
    });

  const publicationError = z
    .object({
      code: z.optional(
        z.enum(PUBLICATION_FAILURE_CODES).register(registry, {
          description:
            'Why, as a stable code (docs/events.md, pds.publication.failed); set once the publication failed.',
        }),
      ),
      reason: z.string(),
      pdsStatus: z.optional(z.number().check(z.int())),
      retryable: z.boolean(),
      at: timestamp,
    })
    .register(registry, {
      id: 'PublicationError',
      description: 'Why a publication failed, or why its last attempt failed while it is retried.',
    });

  const publication = z
    .object({
      publicationId: z.string(),
      status: z.enum(PUBLICATION_STATUSES),
      createdAt: timestamp,
      updatedAt: timestamp,
      request: z.object({ primaryKeys: z.array(z.string()), destinations: z.array(destination) }),
      attempts: z.number().check(z.int(), z.gte(0)),
      selectionId: z.optional(z.string()),
      numberOfItems: z.optional(z.number().check(z.int(), z.gte(0))),
      publishedAt: z.optional(timestamp),
      failedAt: z.optional(timestamp),
      error: z.optional(publicationError),
      lastError: z.optional(publicationError),
    })
    .register(registry, {
      id: 'Publication',
      description:
        'A publication request and its outcome: queued → publishing → published, or failed (with the reason).',
    });

  return {
    primaryKey,
    gtin,
    destination,
    publicationRequest,
    publicationAccepted,
    publication,
    publicationError,
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

/** What every route may answer (problems, API Gateway's own messages) and the service routes. */
function serviceSchemas(registry: SchemaRegistry) {
  const health = z
    .object({ status: z.literal('ok'), service: z.string(), version: z.string() })
    .register(registry, { id: 'Health', description: 'The API answers; no dependency is checked.' });

  const fieldError = z.object({ pointer: z.string(), detail: z.string() }).register(registry, {
    id: 'FieldError',
    description: 'One invalid field: a JSON Pointer into the request body and what is wrong there.',
  });

  const problem = z
    .looseObject({
      type: z.string(),
      title: z.string(),
      status: z.number().check(z.int()),
      detail: z.string(),
      instance: z.optional(z.string()),
      // Registered, not .describe()d: the document is generated from this registry's metadata only.
      requestId: z.optional(
        z.string().register(registry, {
          description:
            "API Gateway's id of the request (also in the api function's logs); quote it when reporting a problem.",
        }),
      ),
      errors: z.optional(z.array(fieldError)),
    })
    .register(registry, {
      id: 'Problem',
      description: 'RFC 9457 problem details (application/problem+json); docs/api.md lists every type.',
    });

  const gatewayMessage = z.object({ message: z.string() }).register(registry, {
    id: 'GatewayMessage',
    description:
      'What API Gateway answers itself, before or instead of the bridge (never problem+json): e.g. {"message":"Forbidden"}.',
  });

  const openApiDocument = z
    .looseObject({
      openapi: z.literal('3.1.0'),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: z.record(z.string(), z.unknown()),
    })
    .register(registry, {
      id: 'OpenApiDocument',
      description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0): this one.',
    });

  return { health, problem, fieldError, gatewayMessage, openApiDocument };
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
