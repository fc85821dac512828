/**
 * The routes about the API itself: GET /openapi.json (the OpenAPI 3.1 document, generated from the
 * route table and the schemas by ./openapi.ts), GET /health (no authentication) and GET /health/pds
 * (signed: the function proves it reaches the PDS with its own role and credentials, so an operator's
 * check after a deploy never needs the PDS credentials itself).
 */
import type { ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { PDS_DOWN, PDS_REFUSED } from './route-problems.ts';

/** GET /openapi.json, GET /health and GET /health/pds. */
export function serviceRoutes(context: RouteContext, document: () => Record<string, unknown>): ApiRoute[] {
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
    {
      method: 'GET',
      path: '/health/pds',
      operationId: 'getPdsHealth',
      summary: "Readiness: the function reaches the PDS with the bridge's own credentials",
      description:
        "Lists the PDS's communication channels, never from the cache: it proves that the function's role reads the PDS credentials, that the PDS answers and that it accepts them. `pds bridge check` calls it after a deploy.",
      responses: { 200: { description: 'The PDS answered.', schema: schemas.pdsHealth } },
      problems: { 502: PDS_REFUSED, 503: PDS_DOWN },
      async handle() {
        const started = performance.now();
        const channels = await (await deps.pds()).listCommunicationChannels();
        const latencyMs = Math.round(performance.now() - started);
        return {
          status: 200,
          body: { status: 'ok', pds: { latencyMs, communicationChannels: channels.length } },
        };
      },
    },
  ];
}
