/**
 * The confirmation routes of the HTTP API: did each recipient synchronise what was published?
 *
 * | route | what it answers |
 * |---|---|
 * | `GET /publications/{publicationId}/confirmations` | per item and recipient: state, since when, corrective actions; a count per state |
 * | `GET /confirmations?primaryKey=…|gtin=…|state=…` | a page of entries: one item's, one GTIN's, or the exception list by state |
 */
import type { ConfirmationEntry } from '../confirmations/entry.ts';
import { countByState, entriesOfPublication, listEntries, type StoredEntry } from '../confirmations/read.ts';
import type { StateStore } from '../state/index.ts';
import type { createConfirmationSchemas } from './confirmation-schemas.ts';
import { ApiProblem } from './problem.ts';
import { PUBLICATION_NOT_FOUND, publicationOrNotFound } from './publication-lookup.ts';
import type { ApiRoute, ParameterSpec, RouteProblem } from './route.ts';
import type { ApiSchemas } from './schemas.ts';

type ConfirmationSchemas = ReturnType<typeof createConfirmationSchemas>;

export interface ConfirmationRouteDependencies {
  store: StateStore;
  schemas: ApiSchemas & { confirmations: ConfirmationSchemas };
  problems: { badPath: RouteProblem; stateUnavailable: RouteProblem };
}

const DEFAULT_PAGE_SIZE = 100;

/** An entry as the API shows it (the stored facts and outbox left out). */
export function confirmationEntryView(entry: ConfirmationEntry) {
  return {
    ...entry.key,
    state: entry.state,
    since: entry.since,
    deadline: entry.deadline,
    correctiveActions: entry.correctiveActions,
    publications: entry.publications,
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

function encodeCursor(stateKey: string): string {
  return Buffer.from(stateKey, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const stateKey = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!stateKey.startsWith('confirmations/') || encodeCursor(stateKey) !== cursor) {
    throw new ApiProblem(
      'invalid-query',
      'cursor is not a nextCursor this API returned; start again without it',
    );
  }
  return stateKey;
}

function views(entries: readonly StoredEntry[]) {
  return entries.map((stored) => confirmationEntryView(stored.entry));
}

/** The routes, for the API's route table. */
export function confirmationRoutes(deps: ConfirmationRouteDependencies): ApiRoute[] {
  const { store, schemas, problems } = deps;
  const { confirmations, parameters } = schemas;
  const listParameters: ParameterSpec[] = [
    { name: 'primaryKey', in: 'query', schema: schemas.primaryKey },
    { name: 'gtin', in: 'query', schema: schemas.primaryKey },
    { name: 'state', in: 'query', schema: confirmations.states },
    { name: 'limit', in: 'query', schema: parameters.pageLimit },
    { name: 'cursor', in: 'query', schema: parameters.pageCursor },
  ];
  return [
    {
      method: 'GET',
      path: '/publications/{publicationId}/confirmations',
      operationId: 'getPublicationConfirmations',
      summary: 'Did each recipient synchronise this publication?',
      description:
        'Per item and trading-partner recipient: the state, since when, and the corrective actions the recipient asked for; a count per state. Entries are created when the publication is published (none for IN_PLATFORM destinations).',
      parameters: [{ name: 'publicationId', in: 'path', schema: parameters.publicationId }],
      responses: {
        200: {
          description: 'The entries of the publication.',
          schema: confirmations.publicationConfirmations,
        },
      },
      problems: {
        400: problems.badPath,
        404: PUBLICATION_NOT_FOUND,
        503: problems.stateUnavailable,
      },
      async handle(request) {
        const id = request.params.publicationId as string;
        const record = (await publicationOrNotFound(store, id)).value;
        const entries = await entriesOfPublication(store, {
          publicationId: id,
          primaryKeys: record.request.primaryKeys,
          destinations: record.request.destinations,
        });
        return {
          status: 200,
          body: {
            publicationId: id,
            publicationStatus: record.status,
            summary: countByState(entries),
            entries: views(entries),
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/confirmations',
      operationId: 'listConfirmations',
      summary: 'Confirmation entries by item, GTIN or state (the exception list)',
      description:
        'One page of entries in a stable order. `primaryKey` reads one item’s entries; `gtin` and `state` filter (e.g. `state=REVIEW,REJECTED,OVERDUE` for what needs attention). Filters combine.',
      parameters: listParameters,
      responses: { 200: { description: 'One page of entries.', schema: confirmations.confirmationList } },
      problems: {
        400: {
          types: ['invalid-query'],
          description:
            '`limit` is not an integer from 1 to 1000, `state` is not a comma-separated list of states, `primaryKey` or `gtin` is empty or too long, or `cursor` is not one this API returned.',
        },
        503: problems.stateUnavailable,
      },
      async handle(request) {
        const query = request.event.queryStringParameters ?? {};
        const checked = <T>(
          name: string,
          schema: { safeParse(value: unknown): { success: boolean; data?: T } },
        ) => {
          if (query[name] === undefined) return undefined;
          const parsed = schema.safeParse(query[name]);
          if (!parsed.success) throw new ApiProblem('invalid-query', `${name} ${QUERY_HINTS[name]}`);
          return parsed.data as T;
        };
        const limit = checked<number>('limit', parameters.pageLimit) ?? DEFAULT_PAGE_SIZE;
        const primaryKey = checked<string>('primaryKey', schemas.primaryKey);
        const gtin = checked<string>('gtin', schemas.primaryKey);
        const states = checked<string>('state', confirmations.states)
          ?.split(',')
          .map((state) => state.toUpperCase());
        const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
        const page = await listEntries(store, {
          limit,
          ...(primaryKey === undefined ? {} : { primaryKey }),
          ...(gtin === undefined ? {} : { gtin }),
          ...(states === undefined ? {} : { states }),
          ...(after === undefined ? {} : { after }),
        });
        return {
          status: 200,
          body: {
            entries: views(page.entries),
            ...(page.next === undefined ? {} : { nextCursor: encodeCursor(page.next) }),
          },
        };
      },
    },
  ];
}

const QUERY_HINTS: Record<string, string> = {
  limit: 'must be an integer from 1 to 1000',
  primaryKey: 'must be a primary key of 1 to 512 characters',
  gtin: 'must be a GTIN of 1 to 512 characters, e.g. 00614141123452',
  state: 'must be comma-separated states, e.g. REVIEW,REJECTED,OVERDUE',
};
