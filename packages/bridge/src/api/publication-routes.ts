/**
 * The publication routes: POST /publications accepts a publication (validated, its channels checked,
 * recorded and queued for the publish worker; Idempotency-Key aware) and GET
 * /publications/{publicationId} answers its status and outcome.
 */
import { submitPublication } from '../publications/submit.ts';
import { jsonBodyRoute } from './body-route.ts';
import { CHANNEL_CHECK_PARAMETER, checkChannelDestinations, skipsChannelCheck } from './destination-check.ts';
import { headerOf } from './gateway.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH, parseIdempotencyKey } from './idempotency-key.ts';
import { ApiProblem } from './problem.ts';
import { publicationReadRoute } from './publication-lookup.ts';
import { publicationView } from './publication-view.ts';
import type { ApiRequest, ApiResponse, ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { IDEMPOTENCY_KEY_RETENTION, type PublicationRequestBody } from './schemas.ts';

/** POST /publications and GET /publications/{publicationId}, in this order. */
export function publicationRoutes(context: RouteContext): ApiRoute[] {
  return [createPublicationRoute(context), getPublicationRoute(context)];
}

/** POST /publications. */
function createPublicationRoute(context: RouteContext): ApiRoute {
  const { schemas, parameters } = context;
  return jsonBodyRoute({
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
    answer: (body, request) => acceptPublication(context, body, request),
  });
}

/** GET /publications/{publicationId}. */
function getPublicationRoute(context: RouteContext): ApiRoute {
  return publicationReadRoute(context, {
    path: '/publications/{publicationId}',
    operationId: 'getPublication',
    summary: 'Status and outcome of a publication',
    responses: { 200: { description: 'The publication.', schema: context.schemas.publication } },
    answer: (publication) => ({ status: 200, body: publicationView(publication) }),
  });
}

/** Accepts a publication: validated, its channels checked, recorded and queued (see submit.ts). */
async function acceptPublication(
  context: RouteContext,
  body: PublicationRequestBody,
  request: ApiRequest,
): Promise<ApiResponse> {
  const { deps, store, channels, now, log } = context;
  if (!skipsChannelCheck(request.event.queryStringParameters)) {
    await checkChannelDestinations(body.destinations, () =>
      channels.get(async () => (await deps.pds()).listCommunicationChannels()),
    );
  }
  const idempotencyKey = idempotencyKeyOf(request);
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

/** The request's Idempotency-Key, unquoted; throws 400 `invalid-header` for a malformed one. */
function idempotencyKeyOf(request: ApiRequest): string | undefined {
  const header = headerOf(request.event, 'idempotency-key');
  if (header === undefined) return undefined;
  const parsed = parseIdempotencyKey(header);
  if (!parsed.ok) {
    throw new ApiProblem(
      'invalid-header',
      `The Idempotency-Key ${parsed.reason}; send one key of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters, e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324" (quotes optional)`,
    );
  }
  return parsed.key;
}
