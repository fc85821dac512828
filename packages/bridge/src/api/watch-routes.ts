/**
 * The supplier-review watch list: GET /watch (one page at a time) and GET, PUT and DELETE
 * /watch/{primaryKey} (one entry). Each entry is shown with the count of reviews the poller emitted
 * for it (packages/bridge/src/polling/supplier-reviews/review-progress.ts). PUT refuses a key the PDS does not know (422
 * `unknown-item`, `?force=true` to watch it anyway); a key already watched is extended without asking.
 */
import { PdsNotFoundError } from '../pds/index.ts';
import { seenReviewCounts, unwatch } from '../polling/supplier-reviews/review-progress.ts';
import type { StateStore } from '../state/index.ts';
import { getWatchEntry, isExpired, type WatchEntry, watch, watchEntries } from '../state/watch-list.ts';
import { decodeCursor, pageBody, pageLimit, pageParameters } from './paging.ts';
import { ApiProblem } from './problem.ts';
import type { ApiRequest, ApiResponse, ApiRoute, RouteProblem } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { lookupProblems, PDS_REFUSED, pathParameter, STATE_UNAVAILABLE } from './route-problems.ts';
import { MAX_PRIMARY_KEY_LENGTH, type WatchEntryView } from './schemas.ts';

/** The 404 of a route under `/watch/{primaryKey}`. */
const NOT_WATCHED: RouteProblem = { types: ['not-found'], description: 'The key is not on the watch list.' };

/** GET /watch, then GET, PUT and DELETE /watch/{primaryKey}, in this order. */
export function watchRoutes(context: RouteContext): ApiRoute[] {
  return [
    watchListRoute(context),
    getWatchedKeyRoute(context),
    watchKeyRoute(context),
    unwatchKeyRoute(context),
  ];
}

/** The entries as the API shows them, with the count of reviews emitted for each (from the poller's progress). */
async function watchEntryViews(
  store: StateStore,
  entries: readonly WatchEntry[],
  now: Date,
): Promise<WatchEntryView[]> {
  const seen = await seenReviewCounts(store, entries);
  return entries.map((entry) => ({
    primaryKey: entry.primaryKey,
    addedAt: entry.addedAt,
    expiresAt: entry.expiresAt,
    expired: isExpired(entry, now),
    sources: entry.sources,
    seenReviews: seen.get(entry.primaryKey) ?? 0,
  }));
}

function checkedPrimaryKey(primaryKey: string | undefined): string {
  if (!primaryKey) throw new ApiProblem('invalid-path', 'The primary key in the path is empty');
  if (primaryKey.length > MAX_PRIMARY_KEY_LENGTH) {
    throw new ApiProblem(
      'invalid-path',
      `The primary key is longer than ${MAX_PRIMARY_KEY_LENGTH} characters`,
    );
  }
  return primaryKey;
}

function notWatched(primaryKey: string): ApiProblem {
  return new ApiProblem('not-found', `${JSON.stringify(primaryKey)} is not on the watch list`);
}

/** One page of the watch list from `after` on, and whether more entries follow it. */
async function watchListPage(
  store: StateStore,
  limit: number,
  after: string | undefined,
): Promise<{ page: WatchEntry[]; more: boolean }> {
  const page: WatchEntry[] = [];
  for await (const entry of watchEntries(store, after === undefined ? {} : { afterPrimaryKey: after })) {
    if (page.length === limit) return { page, more: true };
    page.push(entry);
  }
  return { page, more: false };
}

/** GET /watch: the watch list, one page at a time. */
function watchListRoute(context: RouteContext): ApiRoute {
  const { store, schemas, parameters } = context;
  return {
    method: 'GET',
    path: '/watch',
    operationId: 'listWatchedKeys',
    summary: 'The supplier-review watch list, one page at a time',
    parameters: pageParameters(parameters),
    responses: {
      200: { description: 'One page of entries, expired ones included.', schema: schemas.watchList },
    },
    problems: {
      400: {
        types: ['invalid-query'],
        description: '`limit` is not an integer from 1 to 1000, or `cursor` is not one this API returned.',
      },
      503: STATE_UNAVAILABLE,
    },
    async handle(request) {
      const query = request.event.queryStringParameters ?? {};
      const limit = pageLimit(query, parameters.pageLimit);
      const after =
        query.cursor === undefined ? undefined : decodeCursor(query.cursor, (key) => key.length > 0);
      const { page, more } = await watchListPage(store, limit, after);
      const entries = await watchEntryViews(store, page, request.now);
      return { status: 200, body: pageBody(entries, more ? page.at(-1)?.primaryKey : undefined) };
    },
  };
}

/** What a route on one entry declares itself, and how it answers for the entry's checked key. */
type EntryRouteSpec = Omit<ApiRoute, 'path' | 'parameters' | 'handle'> & {
  /** Parameters besides `primaryKey` (query parameters). */
  extraParameters?: ApiRoute['parameters'];
  answer(primaryKey: string, request: ApiRequest): Promise<ApiResponse>;
};

/**
 * A route on one watch-list entry, `/watch/{primaryKey}`: the path parameter, checked (400
 * `invalid-path` when empty or too long) before `answer` runs.
 */
function entryRoute(context: RouteContext, spec: EntryRouteSpec): ApiRoute {
  const { answer, extraParameters = [], ...declared } = spec;
  return {
    ...declared,
    path: '/watch/{primaryKey}',
    parameters: [...pathParameter('primaryKey', context.parameters.pathPrimaryKey), ...extraParameters],
    handle: async (request) => answer(checkedPrimaryKey(request.params.primaryKey), request),
  };
}

/** GET /watch/{primaryKey}: one watch-list entry. */
function getWatchedKeyRoute(context: RouteContext): ApiRoute {
  const { store, schemas } = context;
  return entryRoute(context, {
    method: 'GET',
    operationId: 'getWatchedKey',
    summary: 'One watch-list entry',
    responses: { 200: { description: 'The entry.', schema: schemas.watchEntry } },
    problems: lookupProblems(NOT_WATCHED),
    async answer(primaryKey, request) {
      const entry = await getWatchEntry(store, primaryKey);
      if (!entry) throw notWatched(primaryKey);
      const [view] = await watchEntryViews(store, [entry], request.now);
      return { status: 200, body: view };
    },
  });
}

/** The query parameter that watches a key the PDS does not know. */
const FORCE_PARAMETER = 'force';

/** True for `?force=true`, false when left out; anything else is a 400 naming the parameter. */
function forced(query: Record<string, string | undefined> | undefined): boolean {
  const value = query?.[FORCE_PARAMETER];
  if (value === undefined) return false;
  if (value === 'true') return true;
  throw new ApiProblem(
    'invalid-query',
    `${FORCE_PARAMETER} must be true (or left out), got ${JSON.stringify(value.slice(0, 40))}`,
  );
}

/**
 * Refuses (422 `unknown-item`) a key the PDS answers 404 for: the poller would only find nothing for it
 * for the whole watch period. The PDS's supplier-review listing is the check (404 for an unknown item,
 * `[]` for a known one without reviews; docs/spec-gaps.md); any other failure of it is the PDS's answer.
 */
async function refuseUnknownItem(context: RouteContext, primaryKey: string): Promise<void> {
  const pds = await context.deps.pds();
  try {
    await pds.listSupplierReviews(primaryKey);
  } catch (error) {
    if (!(error instanceof PdsNotFoundError)) throw error;
    throw new ApiProblem(
      'unknown-item',
      `The PDS does not know the item ${JSON.stringify(primaryKey)}: check the primary key, or add ?${FORCE_PARAMETER}=true to watch it anyway (for an item about to be imported)`,
      { extensions: { primaryKey } },
    );
  }
}

/** PUT /watch/{primaryKey}: a key on the watch list, or its expiry extended. */
function watchKeyRoute(context: RouteContext): ApiRoute {
  const { store, settings, schemas } = context;
  return entryRoute(context, {
    method: 'PUT',
    operationId: 'watchKey',
    summary: 'Put a primary key on the watch list (or extend its expiry)',
    description:
      'The key is watched for WATCH_TTL_DAYS from now, with source `operator`. No body is needed. A key the PDS does not know is refused (422 `unknown-item`) unless `force=true`.',
    extraParameters: [{ name: FORCE_PARAMETER, in: 'query', schema: context.parameters.watchForce }],
    responses: {
      200: { description: 'Already watched; the expiry was extended.', schema: schemas.watchEntry },
      201: {
        description: 'Now watched.',
        schema: schemas.watchEntry,
        headers: { Location: 'The entry: /watch/{primaryKey}' },
      },
    },
    problems: {
      400: {
        types: ['invalid-path', 'invalid-query'],
        description:
          'The path parameter is empty, too long or not valid percent-encoding, or `force` is not `true`.',
      },
      422: {
        types: ['unknown-item'],
        description:
          'The PDS does not know the item (its supplier reviews answer 404); `force=true` watches it anyway.',
      },
      502: PDS_REFUSED,
      503: {
        types: ['service-unavailable', 'pds-unavailable'],
        description: 'The state bucket or the PDS is unavailable; retry after Retry-After.',
      },
    },
    async answer(primaryKey, request) {
      const force = forced(request.event.queryStringParameters);
      const existing = await getWatchEntry(store, primaryKey);
      if (!force && !existing) await refuseUnknownItem(context, primaryKey);
      const [entry] = await watch(store, [primaryKey], {
        ttlMs: settings.watchTtlMs,
        source: 'operator',
        now: request.now,
      });
      const added = entry?.addedAt === request.now.toISOString();
      const [view] = await watchEntryViews(store, [entry as WatchEntry], request.now);
      return {
        status: added ? 201 : 200,
        body: view,
        ...(added ? { headers: { location: `/watch/${encodeURIComponent(primaryKey)}` } } : {}),
      };
    },
  });
}

/** DELETE /watch/{primaryKey}: a key taken off the watch list. */
function unwatchKeyRoute(context: RouteContext): ApiRoute {
  return entryRoute(context, {
    method: 'DELETE',
    operationId: 'unwatchKey',
    summary: 'Take a primary key off the watch list',
    responses: { 204: { description: 'Removed.' } },
    problems: lookupProblems(NOT_WATCHED),
    async answer(primaryKey) {
      if (!(await unwatch(context.store, primaryKey))) throw notWatched(primaryKey);
      return { status: 204 };
    },
  });
}
