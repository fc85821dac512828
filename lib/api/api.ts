/**
 * The HTTP API of the bridge as one function over API Gateway payload 2.0 events: authentication,
 * the route table, and the mapping of every failure to RFC 9457 problem details.
 *
 * | route | what it does |
 * |---|---|
 * | `POST /publications` | validates, records and queues a publication (202 + Location); Idempotency-Key aware |
 * | `GET /publications/{publicationId}` | status and outcome |
 * | `GET /communication-channels` | the PDS list, cached briefly |
 * | `POST /validations` | validates an item through the PDS |
 * | `GET /watch`, `GET/PUT/DELETE /watch/{primaryKey}` | the supplier-review watch list |
 * | `GET /publications/{publicationId}/confirmations`, `GET /confirmations` | the confirmation ledger (./confirmation-routes.ts) |
 * | `GET /openapi.json` | the OpenAPI 3.1 document, generated from the same schemas |
 * | `GET /health` | no authentication; ok and the version |
 *
 * Authentication runs before routing (except for /health), so an unauthenticated caller learns
 * nothing about which paths exist and nothing is recorded for it.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type Log, type Metrics, silentLog } from '../core/index.ts';
import { type PdsClient, PdsError, PdsRateLimitedError } from '../pds/index.ts';
import { seenReviewCounts, unwatch } from '../polling/review-progress.ts';
import {
  IdempotencyConflictError,
  IdempotencyContentionError,
  PublicationQueueError,
  RequestInProgressError,
} from '../publications/errors.ts';
import type { PublicationQueue } from '../publications/queue.ts';
import { submitPublication } from '../publications/submit.ts';
import {
  getWatchEntry,
  isExpired,
  StateConflictError,
  type StateStore,
  StateStoreError,
  type WatchEntry,
  WatchListError,
  watch,
  watchEntries,
} from '../state/index.ts';
import { authenticate } from './auth.ts';
import { ChannelCache } from './channels.ts';
import { confirmationRoutes } from './confirmation-routes.ts';
import { CHANNEL_CHECK_PARAMETER, checkChannelDestinations, skipsChannelCheck } from './destination-check.ts';
import { InvalidPathError } from './errors.ts';
import { headerOf, jsonResult, problemResult, readJsonBody, validateBody } from './gateway.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from './idempotency-key.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { ApiProblem } from './problem.ts';
import { PUBLICATION_NOT_FOUND, publicationOrNotFound } from './publication-lookup.ts';
import { publicationView } from './publication-view.ts';
import type { ApiRequest, ApiResponse, ApiRoute, RouteProblem } from './route.ts';
import { Router } from './router.ts';
import {
  createApiSchemas,
  IDEMPOTENCY_KEY_RETENTION,
  MAX_PRIMARY_KEY_LENGTH,
  type WatchEntryView,
} from './schemas.ts';
import type { ApiSettings } from './settings.ts';

export interface ApiDependencies {
  store: StateStore;
  queue: PublicationQueue;
  /** The PDS client, resolved lazily (credentials may come from a secret). */
  pds: () => Promise<PdsClient>;
  settings: ApiSettings;
  /** Reported by GET /health and in the OpenAPI document. */
  version: string;
  now?: () => Date;
  log?: Log;
  /** Counts what happened (PublicationsAccepted, ApiErrors, …); the Powertools Metrics fits. */
  metrics?: Metrics;
  /** Passed to the idempotency logic (tests shorten them). */
  idempotency?: { inProgressWaitMs?: number; claimTimeoutMs?: number };
}

/** The handler and what it is built from. */
export interface Api {
  handle(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
  routes: readonly ApiRoute[];
  schemas: ReturnType<typeof createApiSchemas>;
  openApiDocument(): Record<string, unknown>;
}

/** Seconds a client should wait before retrying after a 503 without a better hint. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;
const DEFAULT_PAGE_SIZE = 100;

function encodeCursor(primaryKey: string): string {
  return Buffer.from(primaryKey, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const primaryKey = Buffer.from(cursor, 'base64url').toString('utf8');
  if (primaryKey.length === 0 || encodeCursor(primaryKey) !== cursor) {
    throw new ApiProblem(
      'invalid-query',
      'cursor is not a nextCursor this API returned; start again without it',
    );
  }
  return primaryKey;
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

/** The problem to answer with for any error a route may throw. */
function problemOf(error: unknown): ApiProblem | undefined {
  if (error instanceof ApiProblem) return error;
  if (error instanceof InvalidPathError) return new ApiProblem('invalid-path', error.message);
  if (error instanceof WatchListError) return new ApiProblem('invalid-path', error.message);
  if (error instanceof IdempotencyConflictError) {
    return new ApiProblem('idempotency-key-reused', error.message, {
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof RequestInProgressError) {
    return new ApiProblem('request-in-progress', error.message, {
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof IdempotencyContentionError) {
    return new ApiProblem('service-unavailable', error.message, { headers: { 'retry-after': '1' } });
  }
  if (error instanceof PublicationQueueError) {
    return new ApiProblem('service-unavailable', error.message, {
      headers: { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) },
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof PdsError) {
    if (error.retryable) {
      const hinted = error instanceof PdsRateLimitedError ? error.retryAfterMs : undefined;
      const seconds =
        hinted === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(hinted / 1000));
      return new ApiProblem('pds-unavailable', `The PDS is unavailable; try again later (${error.message})`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    return new ApiProblem('pds-error', error.message, { extensions: { pdsCode: error.code } });
  }
  if (error instanceof StateConflictError) {
    return new ApiProblem(
      'service-unavailable',
      'The record kept changing under concurrent requests; retry',
      {
        headers: { 'retry-after': '1' },
      },
    );
  }
  if (error instanceof StateStoreError && error.retryable) {
    return new ApiProblem('service-unavailable', 'The state store is unavailable; try again later', {
      headers: { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) },
    });
  }
  return undefined;
}

/** Problem answers several routes share, with what they mean there. */
const STATE_UNAVAILABLE: RouteProblem = {
  types: ['service-unavailable'],
  description: 'The state bucket is unavailable; retry after Retry-After.',
};
const BAD_PATH: RouteProblem = {
  types: ['invalid-path'],
  description: 'The path parameter is empty, too long or not valid percent-encoding.',
};
const NOT_JSON: RouteProblem = {
  types: ['unsupported-media-type'],
  description: 'The body is not declared as application/json (see Accept-Post).',
};
const PDS_REFUSED: RouteProblem = {
  types: ['pds-error'],
  description:
    "The PDS refused the bridge's request or failed in a way retrying does not fix (e.g. the bridge's credentials were refused).",
};
const PDS_DOWN: RouteProblem = {
  types: ['pds-unavailable'],
  description: 'The PDS is unavailable (5xx, 429, timeout or network); retry after Retry-After.',
};

/** What the routes are built from: the dependencies, and what they share within one API. */
interface RouteContext {
  deps: ApiDependencies;
  store: StateStore;
  settings: ApiSettings;
  schemas: ReturnType<typeof createApiSchemas>;
  parameters: ReturnType<typeof createApiSchemas>['parameters'];
  channels: ChannelCache;
  now: () => Date;
  log: Log;
}

/**
 * Builds the API. The handler never throws: every failure becomes a problem answer (500 for the
 * unexpected, logged with the request id).
 *
 * @example
 * ```ts
 * const api = createApi({ store, queue, pds: () => pdsClientFor(config), settings, version: '0.1.0' });
 * export const handler = (event) => api.handle(event);
 * ```
 */
export function createApi(deps: ApiDependencies): Api {
  const now = deps.now ?? (() => new Date());
  const { settings, store } = deps;
  const schemas = createApiSchemas({ maxKeys: settings.maxKeys });
  const context: RouteContext = {
    deps,
    store,
    settings,
    schemas,
    parameters: schemas.parameters,
    channels: new ChannelCache(settings.channelsCacheMs, now),
    now,
    log: deps.log ?? silentLog,
  };
  let openApi: Record<string, unknown> | undefined;
  const document = () => {
    openApi ??= buildOpenApiDocument({ schemas, routes, version: deps.version });
    return openApi;
  };
  // In this order in the OpenAPI document.
  const routes: ApiRoute[] = [
    ...publicationRoutes(context),
    ...pdsRoutes(context),
    watchListRoute(context),
    ...watchKeyRoutes(context),
    ...confirmationRoutes({
      store,
      schemas,
      problems: { badPath: BAD_PATH, stateUnavailable: STATE_UNAVAILABLE },
    }),
    ...serviceRoutes(context, document),
  ];
  const router = new Router(routes);
  const handle = (event: APIGatewayProxyEventV2) => handleRequest(context, router, event);
  return { handle, routes, schemas, openApiDocument: document };
}

/** POST /publications and GET /publications/{publicationId}. */
function publicationRoutes(context: RouteContext): ApiRoute[] {
  const { store, schemas, parameters } = context;
  return [
    {
      method: 'POST',
      path: '/publications',
      operationId: 'createPublication',
      summary: 'Publish items to destinations, durably',
      description:
        'Validates the request, records it and queues it for the publish worker, then answers 202 with the publication id and a Location header. ' +
        'With an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header), a retried request gets the first answer again, marked ' +
        '`Idempotent-Replayed: true`, instead of publishing twice; the same key with a different body is 422, and 409 while the first ' +
        `request with the key is still being accepted. ${IDEMPOTENCY_KEY_RETENTION}`,
      body: schemas.publicationRequest,
      parameters: [
        { name: 'Idempotency-Key', in: 'header', schema: parameters.idempotencyKey },
        { name: CHANNEL_CHECK_PARAMETER, in: 'query', schema: parameters.channelCheck },
      ],
      responses: {
        202: {
          description:
            'Recorded and queued (or the replay of an earlier request with the same Idempotency-Key).',
          schema: schemas.publicationAccepted,
          headers: {
            Location: 'The publication: /publications/{publicationId}',
            'Idempotent-Replayed': {
              description:
                'Present (`true`) only when this answer replays an earlier request with the same Idempotency-Key; nothing new was recorded or queued.',
              schema: { type: 'string', enum: ['true'] },
            },
          },
        },
      },
      problems: {
        400: {
          types: ['invalid-json', 'invalid-header', 'invalid-query'],
          description:
            'Nothing was recorded: the body is empty or not JSON (invalid-json), or the Idempotency-Key is malformed ' +
            '(invalid-header: empty, neither a Structured Field String nor a bare visible-ASCII key, two keys, or over 255 characters), ' +
            `or ${CHANNEL_CHECK_PARAMETER} has another value than skip (invalid-query).`,
        },
        409: {
          types: ['request-in-progress'],
          description:
            'A request with this Idempotency-Key is still being accepted (it has held the key for less than 30 s); ' +
            'send the same request again after Retry-After.',
        },
        415: NOT_JSON,
        422: {
          types: ['validation-failed', 'idempotency-key-reused'],
          description:
            'Nothing was recorded: the body has invalid fields (validation-failed, each listed in `errors`; a ' +
            'COMMUNICATION_CHANNEL destinationId the PDS channel list lacks is one, named), or this ' +
            'Idempotency-Key was already used with a different body (idempotency-key-reused; `publicationId` names that ' +
            'publication): use a new key for a new publication.',
        },
        502: {
          types: ['pds-error'],
          description: `Nothing was recorded: the PDS refused to list the communication channels the destinations are checked against; the detail says how to skip the check (?${CHANNEL_CHECK_PARAMETER}=skip).`,
        },
        503: {
          types: ['service-unavailable', 'pds-unavailable'],
          description:
            'The state bucket or the queue is unavailable (service-unavailable). The request may be recorded (`publicationId` when it is): ' +
            'send it again with the same Idempotency-Key after Retry-After. Or the PDS could not list the communication channels ' +
            `to check the destinations against (pds-unavailable; nothing was recorded): retry, or skip the check with ?${CHANNEL_CHECK_PARAMETER}=skip.`,
        },
      },
      handle: (request) => acceptPublication(context, request),
    },
    {
      method: 'GET',
      path: '/publications/{publicationId}',
      operationId: 'getPublication',
      summary: 'Status and outcome of a publication',
      parameters: [{ name: 'publicationId', in: 'path', schema: parameters.publicationId }],
      responses: { 200: { description: 'The publication.', schema: schemas.publication } },
      problems: {
        400: BAD_PATH,
        404: PUBLICATION_NOT_FOUND,
        503: STATE_UNAVAILABLE,
      },
      async handle(request) {
        const id = request.params.publicationId as string;
        const entry = await publicationOrNotFound(store, id);
        return { status: 200, body: publicationView(entry.value) };
      },
    },
  ];
}

/** Accepts a publication: validated, its channels checked, recorded and queued (see submit.ts). */
async function acceptPublication(context: RouteContext, request: ApiRequest): Promise<ApiResponse> {
  const { deps, store, schemas, channels, now, log } = context;
  const body = validateBody(schemas.publicationRequest, readJsonBody(request.event));
  if (!skipsChannelCheck(request.event.queryStringParameters)) {
    await checkChannelDestinations(body.destinations, () =>
      channels.get(async () => (await deps.pds()).listCommunicationChannels()),
    );
  }
  const header = headerOf(request.event, 'idempotency-key');
  let idempotencyKey: string | undefined;
  if (header !== undefined) {
    const parsed = parseIdempotencyKey(header);
    if (!parsed.ok) {
      throw new ApiProblem(
        'invalid-header',
        `The Idempotency-Key ${parsed.reason}; send one key of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324" (quotes optional)`,
      );
    }
    idempotencyKey = parsed.key;
  }
  const result = await submitPublication(
    { store, queue: deps.queue, now, ...deps.idempotency },
    { request: body, caller: request.caller, ...(idempotencyKey ? { idempotencyKey } : {}) },
  );
  deps.metrics?.addMetric(result.replayed ? 'PublicationReplays' : 'PublicationsAccepted', 'Count', 1);
  log.info(result.replayed ? 'Publication request replayed' : 'Publication accepted', {
    publicationId: result.publicationId,
    primaryKeys: body.primaryKeys.length,
  });
  return {
    status: 202,
    body: { publicationId: result.publicationId, status: 'queued' },
    headers: {
      location: `/publications/${encodeURIComponent(result.publicationId)}`,
      ...(result.replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  };
}

/** The routes answered by the PDS: its communication channels, and validation. */
function pdsRoutes(context: RouteContext): ApiRoute[] {
  const { deps, settings, schemas, channels } = context;
  return [
    {
      method: 'GET',
      path: '/communication-channels',
      operationId: 'listCommunicationChannels',
      summary: 'The PDS communication channels (their ids are COMMUNICATION_CHANNEL destinations)',
      description: `Read from the PDS and reused for ${settings.channelsCacheMs / 1000} s.`,
      responses: { 200: { description: 'The channels.', schema: schemas.communicationChannels } },
      problems: { 502: PDS_REFUSED, 503: PDS_DOWN },
      async handle() {
        const pds = await deps.pds();
        const cached = await channels.get(() => pds.listCommunicationChannels());
        return {
          status: 200,
          body: { channels: cached.channels, fetchedAt: cached.fetchedAt.toISOString() },
        };
      },
    },
    {
      method: 'POST',
      path: '/validations',
      operationId: 'validateItem',
      summary: 'Validate an item through the PDS',
      body: schemas.validationRequest,
      responses: { 200: { description: 'The PDS validation results.', schema: schemas.validationResponse } },
      problems: {
        400: { types: ['invalid-json'], description: 'The body is empty or not JSON.' },
        415: NOT_JSON,
        422: {
          types: ['validation-failed'],
          description: 'The body has invalid fields, each listed in `errors`; the PDS was not called.',
        },
        502: PDS_REFUSED,
        503: PDS_DOWN,
      },
      async handle(request) {
        const body = validateBody(schemas.validationRequest, readJsonBody(request.event));
        const pds = await deps.pds();
        const result = await pds.validate({
          newItem: body.newItem,
          ...(body.oldItem === undefined ? {} : { oldItem: body.oldItem }),
          ...(body.attributeNames === undefined ? {} : { attributeNames: body.attributeNames }),
        });
        return { status: 200, body: result };
      },
    },
  ];
}

/** GET /watch: the watch list, one page at a time. */
function watchListRoute(context: RouteContext): ApiRoute {
  const { store, schemas, parameters } = context;
  return {
    method: 'GET',
    path: '/watch',
    operationId: 'listWatchedKeys',
    summary: 'The supplier-review watch list, one page at a time',
    parameters: [
      { name: 'limit', in: 'query', schema: parameters.pageLimit },
      { name: 'cursor', in: 'query', schema: parameters.pageCursor },
    ],
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
      let limit = DEFAULT_PAGE_SIZE;
      if (query.limit !== undefined) {
        const parsed = parameters.pageLimit.safeParse(query.limit);
        if (!parsed.success) throw new ApiProblem('invalid-query', 'limit must be an integer from 1 to 1000');
        limit = parsed.data;
      }
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const page: WatchEntry[] = [];
      let more = false;
      for await (const entry of watchEntries(store, after === undefined ? {} : { afterPrimaryKey: after })) {
        if (page.length === limit) {
          more = true;
          break;
        }
        page.push(entry);
      }
      const entries = await watchEntryViews(store, page, request.now);
      const last = entries.at(-1);
      return {
        status: 200,
        body: { entries, ...(more && last ? { nextCursor: encodeCursor(last.primaryKey) } : {}) },
      };
    },
  };
}

/** GET, PUT and DELETE /watch/{primaryKey}: one watch-list entry. */
function watchKeyRoutes(context: RouteContext): ApiRoute[] {
  const { store, settings, schemas, parameters } = context;
  return [
    {
      method: 'GET',
      path: '/watch/{primaryKey}',
      operationId: 'getWatchedKey',
      summary: 'One watch-list entry',
      parameters: [{ name: 'primaryKey', in: 'path', schema: parameters.pathPrimaryKey }],
      responses: { 200: { description: 'The entry.', schema: schemas.watchEntry } },
      problems: {
        400: BAD_PATH,
        404: { types: ['not-found'], description: 'The key is not on the watch list.' },
        503: STATE_UNAVAILABLE,
      },
      async handle(request) {
        const primaryKey = checkedPrimaryKey(request.params.primaryKey);
        const entry = await getWatchEntry(store, primaryKey);
        if (!entry)
          throw new ApiProblem('not-found', `${JSON.stringify(primaryKey)} is not on the watch list`);
        const [view] = await watchEntryViews(store, [entry], request.now);
        return { status: 200, body: view };
      },
    },
    {
      method: 'PUT',
      path: '/watch/{primaryKey}',
      operationId: 'watchKey',
      summary: 'Put a primary key on the watch list (or extend its expiry)',
      description:
        'The key is watched for WATCH_TTL_DAYS from now, with source `operator`. No body is needed.',
      parameters: [{ name: 'primaryKey', in: 'path', schema: parameters.pathPrimaryKey }],
      responses: {
        200: { description: 'Already watched; the expiry was extended.', schema: schemas.watchEntry },
        201: {
          description: 'Now watched.',
          schema: schemas.watchEntry,
          headers: { Location: 'The entry: /watch/{primaryKey}' },
        },
      },
      problems: { 400: BAD_PATH, 503: STATE_UNAVAILABLE },
      async handle(request) {
        const primaryKey = checkedPrimaryKey(request.params.primaryKey);
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
    },
    {
      method: 'DELETE',
      path: '/watch/{primaryKey}',
      operationId: 'unwatchKey',
      summary: 'Take a primary key off the watch list',
      parameters: [{ name: 'primaryKey', in: 'path', schema: parameters.pathPrimaryKey }],
      responses: { 204: { description: 'Removed.' } },
      problems: {
        400: BAD_PATH,
        404: { types: ['not-found'], description: 'The key is not on the watch list.' },
        503: STATE_UNAVAILABLE,
      },
      async handle(request) {
        const primaryKey = checkedPrimaryKey(request.params.primaryKey);
        if (!(await unwatch(store, primaryKey))) {
          throw new ApiProblem('not-found', `${JSON.stringify(primaryKey)} is not on the watch list`);
        }
        return { status: 204 };
      },
    },
  ];
}

/** GET /openapi.json and GET /health. */
function serviceRoutes(context: RouteContext, document: () => Record<string, unknown>): ApiRoute[] {
  const { deps, schemas } = context;
  return [
    {
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      responses: {
        200: { description: 'The OpenAPI 3.1 document of this API.', schema: schemas.openApiDocument },
      },
      problems: {},
      async handle() {
        return { status: 200, body: document() };
      },
    },
    {
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness: the API answers (no dependency is checked)',
      public: true,
      responses: { 200: { description: 'The API is up.', schema: schemas.health } },
      problems: {},
      async handle() {
        return { status: 200, body: { status: 'ok', service: 'pds-bridge', version: deps.version } };
      },
    },
  ];
}

/** Answers one request: authenticated (except public routes), routed, every failure a problem answer. */
async function handleRequest(
  context: RouteContext,
  router: Router<ApiRoute>,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  const { deps, settings, now, log } = context;
  const method = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
  const path = event.rawPath || '/';
  const requestId = event.requestContext?.requestId;
  try {
    const match = router.match(method, path, event.pathParameters);
    const isPublic = match.kind === 'found' && match.route.public === true;
    const caller = isPublic ? 'anonymous' : authenticate(event, settings.auth);
    if (match.kind === 'not-found') {
      throw new ApiProblem(
        'not-found',
        `No route for ${method} ${path}; GET /openapi.json lists every route`,
      );
    }
    if (match.kind === 'method-not-allowed') {
      throw new ApiProblem(
        'method-not-allowed',
        `${method} is not allowed on ${path}; use ${match.allow.join(', ')}`,
        {
          headers: { allow: match.allow.join(', ') },
        },
      );
    }
    const request: ApiRequest = { event, method, params: match.params, caller, now: now() };
    const response: ApiResponse = await match.route.handle(request);
    return jsonResult(response);
  } catch (error) {
    const problem = problemOf(error);
    if (problem) {
      if (problem.status >= 500) {
        deps.metrics?.addMetric('ApiErrors', 'Count', 1);
        log.warn('Request failed', { requestId, path, status: problem.status, reason: problem.detail });
      }
      return problemResult(problem, path, requestId);
    }
    deps.metrics?.addMetric('ApiErrors', 'Count', 1);
    log.error('Request failed unexpectedly', { requestId, method, path, error });
    return problemResult(
      new ApiProblem(
        'internal-error',
        `The request failed unexpectedly; quote request id ${requestId ?? 'unknown'} when reporting it (the api function's logs have the details)`,
      ),
      path,
      requestId,
    );
  }
}
