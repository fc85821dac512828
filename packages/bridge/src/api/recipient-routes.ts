/**
 * The recipients routes of the HTTP API: how each recipient answers, from the aggregates the ledger
 * keeps per recipient and day (packages/bridge/src/confirmations/recipient-stats.ts), never from the
 * entries, so a page costs the same whatever the ledger's size.
 *
 * | route | what it answers |
 * |---|---|
 * | `GET /confirmations/recipients?days=N` | a page of recipients, each with its figures over the last N days |
 * | `GET /confirmations/recipients/{channelId}/{recipient}?days=N` | one recipient's figures per day |
 */
import { RECIPIENT_STATS_PREFIX } from '../confirmations/keys.ts';
import {
  lastDays,
  listRecipients,
  readRecipient,
  recipientFigures,
  recipientOver,
} from '../confirmations/recipient-stats.ts';
import { mapAll } from '../core/index.ts';
import { decodeCursor, encodeCursor, type Query, queryValue } from './paging.ts';
import { ApiProblem } from './problem.ts';
import {
  DEFAULT_RECIPIENTS_PER_PAGE,
  DEFAULT_WINDOW_DAYS,
  MAX_RECIPIENTS_PER_PAGE,
} from './recipient-schemas.ts';
import type { ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { BAD_PATH, STATE_UNAVAILABLE } from './route-problems.ts';

/** GET /confirmations/recipients and GET /confirmations/recipients/{channelId}/{recipient}, in this order. */
export function recipientRoutes(context: RouteContext): ApiRoute[] {
  return [listRecipientsRoute(context), recipientSeriesRoute(context)];
}

/** `days` of the query (1 to 90, default 7) as the UTC days of the window, oldest first. */
function windowOf(query: Query, context: RouteContext, now: Date): string[] {
  const days =
    queryValue(query, 'days', context.schemas.recipients.windowDays, 'must be an integer from 1 to 90') ??
    DEFAULT_WINDOW_DAYS;
  return lastDays(now, days);
}

/** GET /confirmations/recipients. */
function listRecipientsRoute(context: RouteContext): ApiRoute {
  const { schemas, parameters, store } = context;
  return {
    method: 'GET',
    path: '/confirmations/recipients',
    operationId: 'listRecipients',
    summary: 'Recipients with their figures over the last days',
    description: `One page of the recipients the ledger counted (by channel, then recipient), each with its figures over the last \`days\` UTC days: transitions by state, publications and how many a CIC answered, publication → SYNCHRONISED p50/p95. Read from per-recipient daily aggregates: a page costs one listing and \`days\` reads per recipient, whatever the ledger's size. \`limit\` defaults to ${DEFAULT_RECIPIENTS_PER_PAGE} here, at most ${MAX_RECIPIENTS_PER_PAGE}.`,
    parameters: [
      { name: 'days', in: 'query', schema: schemas.recipients.windowDays },
      { name: 'limit', in: 'query', schema: schemas.recipients.pageLimit },
      { name: 'cursor', in: 'query', schema: parameters.pageCursor },
    ],
    responses: {
      200: { description: 'One page of recipients.', schema: schemas.recipients.recipientList },
    },
    problems: {
      400: {
        types: ['invalid-query'],
        description: `\`days\` is not an integer from 1 to 90, \`limit\` is not an integer from 1 to ${MAX_RECIPIENTS_PER_PAGE}, or \`cursor\` is not one this API returned.`,
      },
      503: STATE_UNAVAILABLE,
    },
    async handle(request) {
      const query = request.event.queryStringParameters ?? {};
      const days = windowOf(query, context, request.now);
      const limit =
        queryValue(
          query,
          'limit',
          schemas.recipients.pageLimit,
          `must be an integer from 1 to ${MAX_RECIPIENTS_PER_PAGE}`,
        ) ?? DEFAULT_RECIPIENTS_PER_PAGE;
      const after =
        query.cursor === undefined
          ? undefined
          : decodeCursor(query.cursor, (position) => position.startsWith(RECIPIENT_STATS_PREFIX));
      const page = await listRecipients(store, { limit, after });
      const entries = await mapAll(page.recipients, 4, async (record) => ({
        ...record,
        totals: recipientFigures((await recipientOver(store, record, days)).totals),
      }));
      return {
        status: 200,
        body: { days, entries, ...(page.next === undefined ? {} : { nextCursor: encodeCursor(page.next) }) },
      };
    },
  };
}

/** GET /confirmations/recipients/{channelId}/{recipient}. */
function recipientSeriesRoute(context: RouteContext): ApiRoute {
  const { schemas, store } = context;
  return {
    method: 'GET',
    path: '/confirmations/recipients/{channelId}/{recipient}',
    operationId: 'getRecipientSeries',
    summary: "One recipient's figures per day",
    description:
      "The recipient's figures for each of the last `days` UTC days (oldest first) and over all of them: transitions by state, publications and how many a CIC answered, publication → SYNCHRONISED as a histogram with p50/p95. `recipient` is a GLN, or `_` for the channel's first recipient (GET /confirmations/recipients lists them). Costs one read per day.",
    parameters: [
      { name: 'channelId', in: 'path', schema: schemas.parameters.pathPrimaryKey },
      { name: 'recipient', in: 'path', schema: schemas.parameters.pathPrimaryKey },
      { name: 'days', in: 'query', schema: schemas.recipients.windowDays },
    ],
    responses: {
      200: { description: "The recipient's figures per day.", schema: schemas.recipients.recipientSeries },
    },
    problems: {
      400: {
        types: ['invalid-path', 'invalid-query'],
        description: `${BAD_PATH.description} Or \`days\` is not an integer from 1 to 90.`,
      },
      404: { types: ['not-found'], description: 'The ledger never counted a transition of this recipient.' },
      503: STATE_UNAVAILABLE,
    },
    async handle(request) {
      const channelId = request.params.channelId ?? '';
      const recipient = request.params.recipient ?? '';
      if (
        channelId.length === 0 ||
        recipient.length === 0 ||
        channelId.length > 512 ||
        recipient.length > 512
      ) {
        throw new ApiProblem('invalid-path', 'channelId and recipient must each be 1 to 512 characters');
      }
      const days = windowOf(request.event.queryStringParameters ?? {}, context, request.now);
      const record = await readRecipient(store, channelId, recipient);
      if (!record) {
        throw new ApiProblem(
          'not-found',
          `the ledger has counted no transition of recipient ${JSON.stringify(recipient)} at channel ${JSON.stringify(channelId)}; GET /confirmations/recipients lists those it has`,
        );
      }
      const { series, totals } = await recipientOver(store, record, days);
      return {
        status: 200,
        body: {
          ...record,
          totals: recipientFigures(totals),
          days: series.map(({ day, counts }) => ({ day, ...recipientFigures(counts) })),
        },
      };
    },
  };
}
