/**
 * The schemas of the confirmation routes (./confirmation-routes.ts), registered in the API's registry
 * so the OpenAPI document names them and the contract test checks the answers against them.
 */
import * as z from '../core/zod.ts';
import { pageSchema } from './paging.ts';

/** Builds the confirmation schemas in `registry` (the API's, ./schemas.ts). */
export function createConfirmationSchemas(registry: z.core.$ZodRegistry<z.core.JSONSchemaMeta>) {
  const timestamp = z.iso.datetime();

  const correctiveAction = z
    .object({
      statusCode: z.string(),
      code: z.string(),
      description: z.optional(z.string()),
      expectedCorrectiveInformation: z.optional(z.string()),
      gtin: z.optional(z.string()),
      longDescription: z.optional(z.string()),
    })
    .register(registry, {
      id: 'CorrectiveAction',
      description:
        "What the recipient asks to be fixed, from a CatalogueItemConfirmation's status details: the status code (e.g. CIC999), the corrective action code (e.g. ACTION_NEEDED; empty when the status names none), the description and the expected corrective information.",
    });

  const transition = z
    .object({
      state: z.string(),
      previousState: z.optional(z.string()),
      since: timestamp,
      recordedAt: timestamp,
      cause: z.enum(['publication', 'confirmation', 'review', 'deadline', 'refusal']),
      messagingAssetId: z.optional(z.number().check(z.int())),
      reviewId: z.optional(z.string()),
      eventId: z.optional(z.string()),
    })
    .register(registry, {
      id: 'ConfirmationTransition',
      description:
        'One state change of an entry: the new state, the time of the fact behind it, when the bridge recorded it, what caused it and the id of its pds.confirmation.changed event.',
    });

  const reason = z
    .object({
      source: z.enum(['data-pool', 'recipient']),
      code: z.optional(z.string()),
      text: z.string(),
      senderGln: z.optional(z.string()),
    })
    .register(registry, {
      id: 'ConfirmationReason',
      description:
        "Why the entry is in its state: the error of a data-pool or Global Registry refusal (source data-pool, code e.g. GDSN.1091), or the long description (else the description) of the recipient's confirmation (source recipient, code e.g. CIC999).",
    });

  const resendRequest = z
    .object({
      messagingAssetId: z.number(),
      recipientGln: z.optional(z.string()),
      requestedAt: z.optional(z.string()),
      publicationId: z.string(),
    })
    .register(registry, {
      id: 'ConfirmationResendRequest',
      description:
        "A recipient's resend request about the entry (the messaging asset that carried it) and the publication the bridge submitted for it (REPUBLISH_ON_RESEND_REQUEST; docs/confirmations.md, Resend requests). `resendRequests` is absent until the first.",
    });

  const entry = z
    .object({
      primaryKey: z.string(),
      channelId: z.string(),
      gtin: z.optional(z.string()),
      recipientGln: z.optional(z.string()),
      targetMarket: z.optional(z.string()),
      state: z.string(),
      since: timestamp,
      deadline: timestamp,
      correctiveActions: z.array(correctiveAction),
      reason: z.optional(reason),
      publications: z.array(z.object({ publicationId: z.string(), publishedAt: timestamp })),
      resendRequests: z.optional(z.array(resendRequest)),
      history: z.array(transition),
    })
    .register(registry, {
      id: 'ConfirmationEntry',
      description:
        'One published item at one trading-partner recipient (communication channel; GLN and target market once a confirmation named them): its state (AWAITING, OVERDUE, RECEIVED, REVIEW, REVIEW_WARNING, SYNCHRONISED, REJECTED, ACCEPTED, REFUSED_BY_DATA_POOL, or a review status), since when, the corrective actions of the latest confirmation (or the errors of a refusal) and the reason, the publications that sent it and its history. docs/confirmations.md explains the states.',
    });

  const summary = z.record(z.string(), z.number().check(z.int(), z.gte(0))).register(registry, {
    id: 'ConfirmationSummary',
    description: 'How many entries are in each state, e.g. {"SYNCHRONISED": 8, "REVIEW": 2}.',
  });

  const publicationConfirmations = z
    .object({
      publicationId: z.string(),
      publicationStatus: z.enum(['queued', 'publishing', 'published', 'failed']),
      summary,
      entries: z.array(entry),
    })
    .register(registry, {
      id: 'PublicationConfirmations',
      description:
        'The confirmation entries of one publication, per item and recipient, with a count per state. Empty until the publication is published; IN_PLATFORM destinations have none.',
    });

  const confirmationList = pageSchema(registry, entry, {
    id: 'ConfirmationList',
    contents: 'confirmation entries',
  });

  const states = z
    .string()
    .check(z.regex(/^[A-Za-z_]+(,[A-Za-z_]+)*$/))
    .register(registry, {
      description: 'Comma-separated states, e.g. REVIEW,REJECTED,OVERDUE (the exception list).',
    });

  return { correctiveAction, transition, entry, summary, publicationConfirmations, confirmationList, states };
}
