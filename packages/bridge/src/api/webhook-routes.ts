/**
 * Webhook endpoints, their delivery log, replay and the public key (docs/webhooks.md):
 *
 * | route | what it does |
 * |---|---|
 * | `POST /webhooks/endpoints`, `GET /webhooks/endpoints` | register (the secret answered once), list |
 * | `GET`, `PUT`, `DELETE /webhooks/endpoints/{endpointId}` | one endpoint |
 * | `POST /webhooks/endpoints/{endpointId}/disable`, `/enable`, `/rotate` | status and secret rotation |
 * | `GET /webhooks/endpoints/{endpointId}/deliveries` | the delivery log |
 * | `POST /webhooks/endpoints/{endpointId}/replay` | events queued again with their ids |
 * | `GET /webhooks/public-key` | the v1a (ed25519) public key |
 *
 * Without webhook delivery configured (WEBHOOK_QUEUE_URL unset) every route answers 503.
 */
import {
  type DeliveryStatus,
  deleteEndpoint,
  endpointView,
  listDeliveries,
  type WebhookDelivery,
  WebhookError,
} from '../webhooks/index.ts';
import { jsonBodyRoute } from './body-route.ts';
import { ApiProblem } from './problem.ts';
import type { ApiRequest, ApiResponse, ApiRoute, RouteProblem } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { pathParameter, STATE_UNAVAILABLE } from './route-problems.ts';

const UNAVAILABLE: RouteProblem = {
  types: ['service-unavailable'],
  description:
    'The state bucket or the webhook queue is unavailable (retry after Retry-After), or webhooks are not configured (WEBHOOK_QUEUE_URL unset).',
};
const NOT_FOUND: RouteProblem = { types: ['not-found'], description: 'No webhook endpoint has this id.' };
const BODY_PROBLEMS = {
  400: { types: ['invalid-json'], description: 'The body is empty or not JSON.' },
  422: {
    types: ['validation-failed'],
    description:
      'The body has invalid fields (listed in `errors`), the URL is refused (not https, or a private, loopback or link-local address when deployed), an event type is unknown, or a replay names nothing it can send.',
  },
} satisfies Partial<Record<number, RouteProblem>>;

const ENDPOINT_PATH = '/webhooks/endpoints/{endpointId}';

/** The webhook routes, in the order of the OpenAPI document. */
export function webhookRoutes(context: RouteContext): ApiRoute[] {
  return [
    createEndpointRoute(context),
    listEndpointsRoute(context),
    getEndpointRoute(context),
    updateEndpointRoute(context),
    deleteEndpointRoute(context),
    statusRoute(context, 'disable'),
    statusRoute(context, 'enable'),
    rotateRoute(context),
    deliveriesRoute(context),
    replayRoute(context),
    publicKeyRoute(context),
  ];
}

function webhooksOf(context: RouteContext): WebhookDelivery {
  const webhooks = context.deps.webhooks;
  if (!webhooks) {
    throw new ApiProblem(
      'service-unavailable',
      'Webhooks are not configured on this bridge (WEBHOOK_QUEUE_URL is unset); deploy with the webhooks part or set it',
    );
  }
  return webhooks;
}

/** Runs a route's work, answering a webhook error as the problem it is. */
async function answering(work: () => Promise<ApiResponse>): Promise<ApiResponse> {
  try {
    return await work();
  } catch (error) {
    // A retryable one (the webhook queue did not take a replay) is the service's, not the request's.
    if (!(error instanceof WebhookError) || error.retryable) throw error;
    if (error.code === 'WEBHOOK_ENDPOINT_NOT_FOUND') throw new ApiProblem('not-found', error.message);
    throw new ApiProblem('validation-failed', error.message);
  }
}

function endpointIdOf(request: ApiRequest): string {
  return request.params.endpointId ?? '';
}

function createEndpointRoute(context: RouteContext): ApiRoute {
  const { schemas } = context;
  return jsonBodyRoute({
    method: 'POST',
    path: '/webhooks/endpoints',
    operationId: 'createWebhookEndpoint',
    summary: 'Register a webhook endpoint',
    description: 'The answer carries the endpoint secret (whsec_…) this once.',
    body: schemas.webhooks.endpointInput,
    responses: {
      201: {
        description: 'Registered.',
        schema: schemas.webhooks.endpointWithSecret,
        headers: { Location: 'The endpoint: /webhooks/endpoints/{endpointId}' },
      },
    },
    problems: { ...BODY_PROBLEMS, 503: UNAVAILABLE },
    answer: (body) =>
      answering(async () => {
        const { endpoint, secret } = await webhooksOf(context).registry.create(body);
        return {
          status: 201,
          body: { endpoint: endpointView(endpoint), secret },
          headers: { location: `/webhooks/endpoints/${endpoint.id}` },
        };
      }),
  });
}

function listEndpointsRoute(context: RouteContext): ApiRoute {
  return {
    method: 'GET',
    path: '/webhooks/endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'Every webhook endpoint',
    responses: {
      200: { description: 'The endpoints, without secrets.', schema: context.schemas.webhooks.endpointList },
    },
    problems: { 503: UNAVAILABLE },
    handle: async () => {
      const endpoints = await webhooksOf(context).registry.list();
      return { status: 200, body: { items: endpoints.map(endpointView) } };
    },
  };
}

/** A route on one endpoint: its path parameter, a 404 for an unknown id, 503. */
function endpointRoute(
  context: RouteContext,
  spec: Omit<ApiRoute, 'path' | 'parameters' | 'problems'> & {
    path?: string;
    problems?: ApiRoute['problems'];
  },
): ApiRoute {
  return {
    ...spec,
    path: spec.path ?? ENDPOINT_PATH,
    parameters: pathParameter('endpointId', context.schemas.webhooks.endpointId),
    problems: { 404: NOT_FOUND, 503: UNAVAILABLE, ...spec.problems },
    handle: (request) => answering(() => spec.handle(request)),
  };
}

function getEndpointRoute(context: RouteContext): ApiRoute {
  return endpointRoute(context, {
    method: 'GET',
    operationId: 'getWebhookEndpoint',
    summary: 'One webhook endpoint',
    responses: { 200: { description: 'The endpoint.', schema: context.schemas.webhooks.endpoint } },
    handle: async (request) => ({
      status: 200,
      body: endpointView(await webhooksOf(context).registry.require(endpointIdOf(request))),
    }),
  });
}

function updateEndpointRoute(context: RouteContext): ApiRoute {
  const route = jsonBodyRoute({
    method: 'PUT',
    path: ENDPOINT_PATH,
    operationId: 'updateWebhookEndpoint',
    summary: 'Change a webhook endpoint (URL, event types, subject filter, description)',
    body: context.schemas.webhooks.endpointUpdate,
    responses: { 200: { description: 'The changed endpoint.', schema: context.schemas.webhooks.endpoint } },
    problems: { ...BODY_PROBLEMS, 404: NOT_FOUND, 503: UNAVAILABLE },
    answer: (body, request) =>
      answering(async () => ({
        status: 200,
        body: endpointView(await webhooksOf(context).registry.update(endpointIdOf(request), body)),
      })),
  });
  return { ...route, parameters: pathParameter('endpointId', context.schemas.webhooks.endpointId) };
}

function deleteEndpointRoute(context: RouteContext): ApiRoute {
  return endpointRoute(context, {
    method: 'DELETE',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Remove a webhook endpoint (its delivery log stays until it expires)',
    responses: { 204: { description: 'Removed.' } },
    handle: async (request) => {
      await deleteEndpoint(webhooksOf(context).registry, context.store, endpointIdOf(request));
      return { status: 204 };
    },
  });
}

function statusRoute(context: RouteContext, change: 'disable' | 'enable'): ApiRoute {
  return endpointRoute(context, {
    method: 'POST',
    path: `${ENDPOINT_PATH}/${change}`,
    operationId: change === 'disable' ? 'disableWebhookEndpoint' : 'enableWebhookEndpoint',
    summary:
      change === 'disable'
        ? 'Stop deliveries to an endpoint (what it misses is recorded as undelivered; replay sends it later)'
        : 'Resume deliveries to an endpoint (its breaker closed)',
    responses: { 200: { description: 'The endpoint now.', schema: context.schemas.webhooks.endpoint } },
    handle: async (request) => {
      const registry = webhooksOf(context).registry;
      const id = endpointIdOf(request);
      const endpoint =
        change === 'disable'
          ? await registry.disable(id, `disabled by ${request.caller}`)
          : await registry.enable(id);
      return { status: 200, body: endpointView(endpoint) };
    },
  });
}

function rotateRoute(context: RouteContext): ApiRoute {
  return endpointRoute(context, {
    method: 'POST',
    path: `${ENDPOINT_PATH}/rotate`,
    operationId: 'rotateWebhookSecret',
    summary: 'A new secret for an endpoint; the old one keeps signing for WEBHOOK_ROTATION_OVERLAP_HOURS',
    responses: {
      200: {
        description: 'The endpoint and its new secret, shown this once.',
        schema: context.schemas.webhooks.endpointWithSecret,
      },
    },
    handle: async (request) => {
      const overlapMs = context.deps.webhookRotationOverlapMs ?? 86_400_000;
      const { endpoint, secret } = await webhooksOf(context).registry.rotate(
        endpointIdOf(request),
        overlapMs,
      );
      return { status: 200, body: { endpoint: endpointView(endpoint), secret } };
    },
  });
}

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'undelivered'];

function deliveriesRoute(context: RouteContext): ApiRoute {
  return endpointRoute(context, {
    method: 'GET',
    path: `${ENDPOINT_PATH}/deliveries`,
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of an endpoint (?status=pending|delivered|failed|undelivered, ?limit=1..1000)',
    responses: {
      200: {
        description: 'Delivery records, each with its attempts.',
        schema: context.schemas.webhooks.deliveryList,
      },
    },
    problems: {
      400: {
        types: ['invalid-query'],
        description: '`status` or `limit` is not one of the accepted values.',
      },
    },
    handle: async (request) => {
      const webhooks = webhooksOf(context);
      const id = endpointIdOf(request);
      await webhooks.registry.require(id);
      const query = request.event.queryStringParameters ?? {};
      const status = query.status as DeliveryStatus | undefined;
      if (status !== undefined && !DELIVERY_STATUSES.includes(status)) {
        throw new ApiProblem('invalid-query', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      }
      const limit = query.limit === undefined ? 100 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new ApiProblem('invalid-query', 'limit must be an integer from 1 to 1000');
      }
      const items = await listDeliveries(context.store, id, { limit, ...(status ? { status } : {}) });
      return { status: 200, body: { items } };
    },
  });
}

function replayRoute(context: RouteContext): ApiRoute {
  const route = jsonBodyRoute({
    method: 'POST',
    path: `${ENDPOINT_PATH}/replay`,
    operationId: 'replayWebhookEvents',
    summary: 'Send events to an endpoint again, with their original ids',
    description:
      "By id, or by time range (one page of at most 1000 events per request: repeat with since = next) and optionally only those not delivered; events that came while the endpoint did not exist or was disabled are included; only events the endpoint's filters take are sent (those named by id that they do not take are answered as skipped).",
    body: context.schemas.webhooks.replayRequest,
    responses: { 202: { description: 'Queued.', schema: context.schemas.webhooks.replayResult } },
    problems: { ...BODY_PROBLEMS, 404: NOT_FOUND, 503: UNAVAILABLE },
    answer: (body, request) =>
      answering(async () => {
        const result = await webhooksOf(context).replay(endpointIdOf(request), {
          ...(body.eventIds ? { eventIds: body.eventIds } : {}),
          ...(body.since ? { since: new Date(body.since) } : {}),
          ...(body.until ? { until: new Date(body.until) } : {}),
          ...(body.failedOnly !== undefined ? { failedOnly: body.failedOnly } : {}),
        });
        return { status: 202, body: result };
      }),
  });
  return { ...route, parameters: pathParameter('endpointId', context.schemas.webhooks.endpointId) };
}

function publicKeyRoute(context: RouteContext): ApiRoute {
  return {
    method: 'GET',
    path: '/webhooks/public-key',
    operationId: 'getWebhookPublicKey',
    summary: 'The public key that verifies v1a (ed25519) webhook signatures',
    responses: { 200: { description: 'The whpk_ key.', schema: context.schemas.webhooks.publicKey } },
    problems: { 503: STATE_UNAVAILABLE },
    handle: async () => {
      const publicKey = await webhooksOf(context).secrets.publicKey();
      return { status: 200, body: { publicKey, algorithm: 'ed25519' } };
    },
  };
}
