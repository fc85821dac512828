/**
 * The schemas of the publication routes (./publication-routes.ts): the request with its limits, its
 * acceptance and the record GET /publications/{id} shows, registered in the API's registry.
 */
import * as z from '../core/zod.ts';
import { PUBLICATION_FAILURE_CODES } from '../events/data/index.ts';
import { DESTINATION_TYPES } from '../pds/index.ts';
import { type SchemaRegistry, text } from './schema-parts.ts';

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
export function publicationSchemas(
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
