/**
 * The schemas of the recipients routes (./recipient-routes.ts), registered in the API's registry so
 * the OpenAPI document names them and the contract test checks the answers against them.
 */
import * as z from '../core/zod.ts';

/** Builds the recipients schemas in `registry` (the API's, ./schemas.ts). */
export function createRecipientSchemas(registry: z.core.$ZodRegistry<z.core.JSONSchemaMeta>) {
  const count = z.number().check(z.int(), z.gte(0));
  const day = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/));

  const recipientFigures = z
    .object({
      transitions: z.record(z.string(), count),
      published: count,
      answered: count,
      unansweredShare: z.nullable(z.number().check(z.gte(0), z.lte(1))),
      synchronised: z.object({
        count,
        p50Ms: z.nullable(count),
        p95Ms: z.nullable(count),
        maxMs: z.nullable(count),
        bucketBoundsMs: z.array(count),
        buckets: z.array(count),
      }),
    })
    .register(registry, {
      id: 'RecipientFigures',
      description:
        'What the ledger recorded for one recipient over a day or a range of days: transitions into each state; entries published (AWAITING an answer) and publications a business confirmation (CIC) answered; `unansweredShare`, the share of the publications not answered by a CIC (1 − answered / published, at least 0; null when nothing was published); and the time from publication to SYNCHRONISED as a histogram of fixed buckets (`buckets[i]` counts times up to `bucketBoundsMs[i]`, the last one everything longer) with p50/p95 as the bound of the bucket that reaches them (times in ms; null when nothing was synchronised).',
    });

  // The fields naming a recipient, shared by the list and the series (not a schema of its own: no
  // answer is only these). `recipient` is `_` (the channel's first recipient: the entries a
  // publication creates, named by whoever answers first; with one recipient per channel, that
  // recipient) or the GLN of a further recipient; `recipientGlns` the GLNs its confirmations named.
  const recipient = z.object({
    channelId: z.string(),
    recipient: z.string(),
    recipientGlns: z.array(z.string()),
    firstDay: day,
    lastDay: day,
  });

  const recipientSummary = z.object({ ...recipient.shape, totals: recipientFigures }).register(registry, {
    id: 'RecipientSummary',
    description:
      "A recipient and its figures over the window: `recipient` is `_` (the channel's first recipient: the entries a publication creates, named by whoever answers first) or the GLN of a further recipient; `recipientGlns` the GLNs its confirmations named; the first and last day with a transition.",
  });

  const recipientList = z
    .object({
      days: z.array(day),
      entries: z.array(recipientSummary),
      nextCursor: z.optional(z.string()),
    })
    .register(registry, {
      id: 'RecipientList',
      description:
        'One page of recipients in channel and recipient order, each with its figures over `days` (the UTC days of the window, oldest first); pass nextCursor as `cursor` for the next page.',
    });

  const recipientSeries = z
    .object({
      ...recipient.shape,
      totals: recipientFigures,
      days: z.array(z.object({ day, ...recipientFigures.shape })),
    })
    .register(registry, {
      id: 'RecipientSeries',
      description:
        "One recipient's figures per UTC day of the window (oldest first, days without a transition empty) and over the whole window.",
    });

  const windowDays = z.coerce
    .number()
    .check(z.int(), z.gte(1), z.lte(MAX_WINDOW_DAYS))
    .register(registry, {
      description: `Days of the window, ending today (UTC), 1 to ${MAX_WINDOW_DAYS}; default ${DEFAULT_WINDOW_DAYS}.`,
    });

  const pageLimit = z.coerce
    .number()
    .check(z.int(), z.gte(1), z.lte(MAX_RECIPIENTS_PER_PAGE))
    .register(registry, {
      description: `Recipients per page, 1 to ${MAX_RECIPIENTS_PER_PAGE} (each costs one read per day of the window); default ${DEFAULT_RECIPIENTS_PER_PAGE}.`,
    });

  return {
    recipientFigures,
    recipient,
    recipientSummary,
    recipientList,
    recipientSeries,
    windowDays,
    pageLimit,
  };
}

/** Days a recipients window covers when `days` is not given, and at most. */
export const DEFAULT_WINDOW_DAYS = 7;
export const MAX_WINDOW_DAYS = 90;

/** Recipients per page when the request gives no `limit`, and at most (each is `days` reads). */
export const DEFAULT_RECIPIENTS_PER_PAGE = 20;
export const MAX_RECIPIENTS_PER_PAGE = 100;
