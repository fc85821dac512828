/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the zod schemas the routes
 * validate with (`z.toJSONSchema`, JSON Schema 2020-12, which is OpenAPI 3.1's dialect). Nothing is
 * written by hand twice: a changed schema or a new route changes the document.
 */
import * as z from 'zod';
import type { ApiRoute } from './http.ts';
import { PROBLEM_CONTENT_TYPE, PROBLEMS } from './problem.ts';
import type { ApiSchemas } from './schemas.ts';

export interface OpenApiOptions {
  schemas: ApiSchemas;
  routes: readonly ApiRoute[];
  version: string;
}

type JsonObject = Record<string, unknown>;

/** Reason phrases of the statuses problem answers use. */
const PROBLEM_DESCRIPTIONS: Record<number, string> = Object.fromEntries(
  Object.values(PROBLEMS).map((problem) => [problem.status, problem.title]),
);

function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function schemaRef(schemas: ApiSchemas, schema: z.ZodType): JsonObject {
  const id = schemas.registry.get(schema)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  return withoutDialect(
    z.toJSONSchema(schema, { io: 'input', metadata: schemas.registry, unrepresentable: 'any' }) as JsonObject,
  );
}

function problemResponse(status: number, schemas: ApiSchemas): JsonObject {
  return {
    description: PROBLEM_DESCRIPTIONS[status] ?? 'Problem',
    content: { [PROBLEM_CONTENT_TYPE]: { schema: schemaRef(schemas, schemas.problem) } },
  };
}

function operationOf(route: ApiRoute, schemas: ApiSchemas): JsonObject {
  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(spec.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      ...(spec.schema
        ? { content: { 'application/json': { schema: schemaRef(schemas, spec.schema) } } }
        : {}),
    };
  }
  const problemStatuses = new Set([...route.problems, ...(route.public ? [] : [401]), 500]);
  for (const status of [...problemStatuses].sort((a, b) => a - b)) {
    responses[String(status)] = problemResponse(status, schemas);
  }
  const operation: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.public ? { security: [] } : {}),
    responses,
  };
  if (route.parameters && route.parameters.length > 0) {
    operation.parameters = route.parameters.map((parameter) => {
      const schema = schemaRef(schemas, parameter.schema);
      const { description, ...rest } = schema;
      return {
        name: parameter.name,
        in: parameter.in,
        required: parameter.in === 'path' ? true : (parameter.required ?? false),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      };
    });
  }
  if (route.body) {
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: schemaRef(schemas, route.body) } },
    };
  }
  return operation;
}

/**
 * The document served at `GET /openapi.json`.
 *
 * @example
 * ```ts
 * const document = buildOpenApiDocument({ schemas, routes, version: '0.1.0' });
 * document.openapi; // '3.1.0'
 * ```
 */
export function buildOpenApiDocument(options: OpenApiOptions): JsonObject {
  const { schemas, routes, version } = options;
  const generated = z.toJSONSchema(schemas.registry, {
    io: 'input',
    metadata: schemas.registry,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonObject> };
  const components = Object.fromEntries(
    Object.entries(generated.schemas).map(([id, schema]) => [id, withoutDialect(schema)]),
  );
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    (paths[route.path] as JsonObject)[route.method.toLowerCase()] = operationOf(route, schemas);
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'pds-bridge API',
      version,
      description:
        'Triggers publications in the Product Data Service durably and manages the supplier-review watch list. ' +
        'Deployed, every operation except GET /health needs AWS SigV4-signed requests (service execute-api); ' +
        'the local stack takes a bearer token instead. Errors are RFC 9457 problem details.',
    },
    security: [{ sigv4: [] }, { bearerToken: [] }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        sigv4: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'AWS Signature Version 4 for the execute-api service (IAM authorisation by API Gateway).',
          'x-amazon-apigateway-authtype': 'awsSigv4',
        },
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Local stack only: the token it prints at start-up (API_AUTH_MODE=bearer).',
        },
      },
    },
  };
}
