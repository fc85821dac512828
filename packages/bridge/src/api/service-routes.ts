/**
 * The routes about the API itself: GET /openapi.json (the OpenAPI 3.1 document, generated from the
 * route table and the schemas by ./openapi.ts) and GET /health (no authentication).
 */
import type { ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';

/** GET /openapi.json and GET /health. */
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
  ];
}
