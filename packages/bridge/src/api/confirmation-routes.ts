/**
 * The confirmation routes of the HTTP API: did each recipient synchronise what was published?
 *
 * | route | what it answers |
 * |---|---|
 * | `GET /publications/{publicationId}/confirmations` | per item and recipient: state, since when, corrective actions; a count per state |
 * | `GET /confirmations?primaryKey=…|gtin=…|state=…` | a page of entries: one item's, one GTIN's, or the exception list by state |
 */

import type { ConfirmationEntry } from '../confirmations/entry.ts';
import { UnknownConfirmationStateError } from '../confirmations/errors.ts';
import { CONFIRMATION_INDEX_PREFIX, CONFIRMATIONS_PREFIX } from '../confirmations/keys.ts';
import {
  countByState,
  entriesOfPublication,
  listEntries,
  resolveStates,
  type StoredEntry,
} from '../confirmations/read.ts';
import type { PublicationRecord } from '../publications/records.ts';
import type { StateStore } from '../state/index.ts';
import { decodeCursor, pageBody, pageLimit, pageParameters, type Query, queryValue } from './paging.ts';
import { ApiProblem } from './problem.ts';
import { publicationReadRoute } from './publication-lookup.ts';
import type { ApiRequest, ApiResponse, ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { STATE_UNAVAILABLE } from './route-problems.ts';
import type { ApiSchemas } from './schemas.ts';

/** An entry as the API shows it (the stored facts and outbox left out). */
export function confirmationEntryView(entry: ConfirmationEntry) {
  return {
    ...entry.key,
    state: entry.state,
    since: entry.since,
    deadline: entry.deadline,
    correctiveActions: entry.correctiveActions,
    ...(entry.reason ? { reason: entry.reason } : {}),
    publications: entry.publications,
    ...(entry.resendRequests?.length
      ? {
          resendRequests: entry.resendRequests.map(
            ({ messagingAssetId, recipientGln, requestedAt, publicationId }) => ({
              messagingAssetId,
              ...(recipientGln ? { recipientGln } : {}),
              ...(requestedAt ? { requestedAt } : {}),
              publicationId,
            }),
          ),
        }
      : {}),
    history: entry.history.map(({ recordedAt, previousState, state, since, cause, ...rest }) => ({
      state,
      ...(previousState === undefined ? {} : { previousState }),
      since,
      recordedAt,
      cause,
      ...(rest.messagingAssetId === undefined ? {} : { messagingAssetId: rest.messagingAssetId }),
      ...(rest.reviewId === undefined ? {} : { reviewId: rest.reviewId }),
      ...(rest.eventId === undefined ? {} : { eventId: rest.eventId }),
    })),
  };
}

function views(entries: readonly StoredEntry[]) {
  return entries.map((stored) => confirmationEntryView(stored.entry));
}

/** GET /publications/{publicationId}/confirmations and GET /confirmations, in this order. */
export function confirmationRoutes(context: RouteContext): ApiRoute[] {
  return [publicationConfirmationsRoute(context), listConfirmationsRoute(context)];
}

/** GET /publications/{publicationId}/confirmations. */
function publicationConfirmationsRoute(context: RouteContext): ApiRoute {
  return publicationReadRoute(context, {
    path: '/publications/{publicationId}/confirmations',
    operationId: 'getPublicationConfirmations',
    summary: 'Did each recipient synchronise this publication?',
    description:
      'Per item and trading-partner recipient: the state, since when, and the corrective actions the recipient asked for; a count per state. Entries are created when the publication is published (none for IN_PLATFORM destinations).',
    responses: {
      200: {
        description: 'The entries of the publication.',
        schema: context.schemas.confirmations.publicationConfirmations,
      },
    },
    answer: (publication, publicationId) =>
      publicationConfirmations(context.store, publicationId, publication),
  });
}

/** The entries of one publication, per item and recipient, with a count per state. */
async function publicationConfirmations(
  store: StateStore,
  publicationId: string,
  record: PublicationRecord,
): Promise<ApiResponse> {
  const entries = await entriesOfPublication(store, {
    publicationId,
    primaryKeys: record.request.primaryKeys,
    destinations: record.request.destinations,
  });
  return {
    status: 200,
    body: {
      publicationId,
      publicationStatus: record.status,
      summary: countByState(entries),
      entries: views(entries),
    },
  };
}

/** GET /confirmations. */
function listConfirmationsRoute(context: RouteContext): ApiRoute {
  const { schemas, parameters } = context;
  return {
    method: 'GET',
    path: '/confirmations',
    operationId: 'listConfirmations',
    summary: 'Confirmation entries by item, GTIN or state (the exception list)',
    description:
      "One page of entries in a stable order. `primaryKey` reads one item’s entries; `gtin` and `state` filter (e.g. `state=REVIEW,REJECTED,OVERDUE` for what needs attention; states in any case, an unknown one is a 400 naming the valid ones). Filters combine. Each page costs what it answers, not the ledger's history; pass `nextCursor` as `cursor` for the next.",
    parameters: [
      { name: 'primaryKey', in: 'query', schema: schemas.primaryKey },
      { name: 'gtin', in: 'query', schema: schemas.gtin },
      { name: 'state', in: 'query', schema: schemas.confirmations.states },
      ...pageParameters(parameters),
    ],
    responses: {
      200: { description: 'One page of entries.', schema: schemas.confirmations.confirmationList },
    },
    problems: {
      400: {
        types: ['invalid-query'],
        description:
          '`limit` is not an integer from 1 to 1000, `state` is not a comma-separated list of states the ledger knows (the problem names them; any case), `primaryKey` or `gtin` is empty or too long, or `cursor` is not one this API returned.',
      },
      503: STATE_UNAVAILABLE,
    },
    handle: (request) => confirmationsPage(context, request),
  };
}

/** What GET /confirmations asks for: the filters and the page. */
interface ConfirmationQuery {
  limit: number;
  primaryKey?: string;
  gtin?: string;
  states?: string[];
  after?: string;
}

/** The query of GET /confirmations, each value checked (400 `invalid-query` naming the first bad one). */
function confirmationQuery(query: Query, schemas: ApiSchemas): ConfirmationQuery {
  const limit = pageLimit(query, schemas.parameters.pageLimit);
  const primaryKey = queryValue(query, 'primaryKey', schemas.primaryKey, QUERY_HINTS.primaryKey);
  const gtin = queryValue(query, 'gtin', schemas.gtin, QUERY_HINTS.gtin);
  const states = queryValue(query, 'state', schemas.confirmations.states, QUERY_HINTS.state)?.split(',');
  const after =
    query.cursor === undefined
      ? undefined
      : decodeCursor(
          query.cursor,
          (position) =>
            position.startsWith(CONFIRMATIONS_PREFIX) || position.startsWith(CONFIRMATION_INDEX_PREFIX),
        );
  return {
    limit,
    ...(primaryKey === undefined ? {} : { primaryKey }),
    ...(gtin === undefined ? {} : { gtin }),
    ...(states === undefined ? {} : { states }),
    ...(after === undefined ? {} : { after }),
  };
}

/** One page of entries matching the query, and the cursor of the next. */
async function confirmationsPage(context: RouteContext, request: ApiRequest): Promise<ApiResponse> {
  const query = confirmationQuery(request.event.queryStringParameters ?? {}, context.schemas);
  if (query.states !== undefined) query.states = await knownStatesOf(context.store, query.states);
  const page = await listEntries(context.store, query);
  return { status: 200, body: pageBody(views(page.entries), page.next) };
}

/** The states asked for in the ledger's spelling; an unknown one is a 400 naming the valid states. */
async function knownStatesOf(store: StateStore, states: readonly string[]): Promise<string[]> {
  try {
    return await resolveStates(store, states);
  } catch (error) {
    if (error instanceof UnknownConfirmationStateError) throw new ApiProblem('invalid-query', error.message);
    throw error;
  }
}

const QUERY_HINTS = {
  primaryKey: 'must be a primary key of 1 to 512 characters',
  gtin: 'must be a GTIN of 1 to 512 characters, e.g. 00614141123452',
  state: 'must be comma-separated states, e.g. REVIEW,REJECTED,OVERDUE',
};
