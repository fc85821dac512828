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
 * | `GET /publications/{publicationId}/confirmations`, `GET /confirmations` | the confirmation ledger |
 * | `GET /confirmations/recipients`, `GET /confirmations/recipients/{channelId}/{recipient}` | per recipient and day (./recipient-routes.ts) |
 * | `/webhooks/endpoints…`, `GET /webhooks/public-key` | webhook endpoints, deliveries, replay (./webhook-routes.ts) |
 * | `GET /openapi.json` | the OpenAPI 3.1 document, generated from the same schemas |
 * | `GET /health` | no authentication; ok and the version |
 * | `GET /health/pds` | signed; the function lists the PDS's channels with its own credentials (`pds bridge check`) |
 *
 * Each group of routes has its file: ./publication-routes.ts, ./channel-routes.ts,
 * ./validation-routes.ts, ./watch-routes.ts, ./confirmation-routes.ts, ./recipient-routes.ts,
 * ./service-routes.ts.
 *
 * Authentication runs before routing (except for /health), so an unauthenticated caller learns
 * nothing about which paths exist and nothing is recorded for it.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { silentLog } from '../core/index.ts';
import { authenticate } from './auth.ts';
import { ChannelCache } from './channel-cache.ts';
import { channelRoute } from './channel-routes.ts';
import { confirmationRoutes } from './confirmation-routes.ts';
import { InvalidPathError } from './errors.ts';
import { jsonResult, problemResult } from './gateway.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { ApiProblem } from './problem.ts';
import { problemOf } from './problem-mapping.ts';
import { publicationRoutes } from './publication-routes.ts';
import { recipientRoutes } from './recipient-routes.ts';
import type { ApiRequest, ApiResponse, ApiRoute } from './route.ts';
import type { ApiDependencies, RouteContext } from './route-context.ts';
import { type RouteMatch, Router } from './router.ts';
import { createApiSchemas } from './schemas.ts';
import { serviceRoutes } from './service-routes.ts';
import { validationRoute } from './validation-routes.ts';
import { watchRoutes } from './watch-routes.ts';
import { webhookRoutes } from './webhook-routes.ts';

/** The handler and what it is built from. */
export interface Api {
  handle(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
  routes: readonly ApiRoute[];
  schemas: ReturnType<typeof createApiSchemas>;
  openApiDocument(): Record<string, unknown>;
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
    channelRoute(context),
    validationRoute(context),
    ...watchRoutes(context),
    ...confirmationRoutes(context),
    ...recipientRoutes(context),
    ...webhookRoutes(context),
    ...serviceRoutes(context, document),
  ];
  const router = new Router(routes);
  const handle = (event: APIGatewayProxyEventV2) => handleRequest(context, router, event);
  return { handle, routes, schemas, openApiDocument: document };
}

/** The route of a request, or the error of a path parameter that cannot be decoded (thrown after authentication). */
function matchOrPathError(
  router: Router<ApiRoute>,
  method: string,
  path: string,
  pathParameters: Record<string, string | undefined> | undefined,
): { match: RouteMatch<ApiRoute>; error?: undefined } | { match?: undefined; error: InvalidPathError } {
  try {
    return { match: router.match(method, path, pathParameters) };
  } catch (error) {
    if (error instanceof InvalidPathError) return { error };
    throw error;
  }
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
    const matched = matchOrPathError(router, method, path, event.pathParameters);
    const match = matched.match;
    const isPublic = match?.kind === 'found' && match.route.public === true;
    // Before the path's own error: an unauthenticated caller learns nothing of the routes.
    const caller = isPublic ? 'anonymous' : authenticate(event, settings.auth);
    if (match === undefined) throw matched.error;
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
