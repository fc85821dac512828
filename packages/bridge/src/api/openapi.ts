/**
 * The OpenAPI 3.1 document of the API, generated from the route table and the zod schemas the routes
 * validate with (`z.toJSONSchema`, JSON Schema 2020-12, which is OpenAPI 3.1's dialect). Nothing is
 * written by hand twice: a changed schema or a new route changes the document.
 *
 * It describes what callers meet when deployed, not only what the function answers: every error
 * response lists the problem types the route gives at that status, and beside them the answers API
 * Gateway gives by itself (403, 413, 429, 500, 503 as `{"message": …}`).
 */
import * as z from '../core/zod.ts';
import { PROBLEM_CONTENT_TYPE, PROBLEM_TYPE_PREFIX } from './problem.ts';
import type { ApiRoute, RouteProblem } from './route.ts';
import type { ApiSchemas } from './schemas.ts';

export interface OpenApiOptions {
  schemas: ApiSchemas;
  routes: readonly ApiRoute[];
  version: string;
}

type JsonObject = Record<string, unknown>;

function withoutDialect(schema: JsonObject): JsonObject {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function schemaRef(schemas: ApiSchemas, schema: z.ZodMiniType): JsonObject {
  const id = schemas.registry.get(schema)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  return withoutDialect(
    z.toJSONSchema(schema, { io: 'input', metadata: schemas.registry, unrepresentable: 'any' }) as JsonObject,
  );
}

/**
 * What API Gateway answers by itself, in `{"message": …}` bodies (application/json, never problem+json),
 * by status: what it means and the message it carries. HTTP APIs answer an integration timeout with
 * 503, not 504 as REST APIs do.
 */
const GATEWAY_ANSWERS: Record<number, { description: string; message: string }> = {
  403: {
    description:
      'the request was refused before the bridge saw it: no SigV4 signature, an invalid or expired one, or a ' +
      'principal without execute-api:Invoke on this route (docs/api.md, Authentication). The message may name the reason.',
    message: 'Forbidden',
  },
  413: { description: 'the body is over the 10 MB payload limit.', message: 'Request Entity Too Large' },
  429: {
    description: 'the throttling limits of the stage or the account were reached; retry with back-off.',
    message: 'Too Many Requests',
  },
  500: {
    description:
      'the api function failed before it could answer (crashed, ran out of memory or hit its 29 s timeout).',
    message: 'Internal Server Error',
  },
  503: {
    description: 'the api function did not answer within the integration timeout (30 s).',
    message: 'Service Unavailable',
  },
};

/** Problem answers every route may give, besides its own. */
const COMMON_PROBLEMS: Record<number, RouteProblem> = {
  401: {
    types: ['unauthorized'],
    description:
      'The request carried no IAM identity (deployed: only if a route were left without IAM authorisation) or, on the ' +
      'local stack, no valid bearer token. Nothing was recorded.',
  },
  500: {
    types: ['internal-error'],
    description: "Unexpected; the api function's logs have the details under `requestId`.",
  },
};

function problemContent(schemas: ApiSchemas, status: number, problem: RouteProblem): JsonObject {
  return {
    schema: {
      allOf: [
        schemaRef(schemas, schemas.problem),
        {
          properties: {
            type: { enum: problem.types.map((slug) => `${PROBLEM_TYPE_PREFIX}${slug}`) },
            status: { const: status },
          },
        },
      ],
    },
  };
}

function gatewayContent(schemas: ApiSchemas, status: number): JsonObject {
  return {
    schema: schemaRef(schemas, schemas.gatewayMessage),
    example: { message: GATEWAY_ANSWERS[status]?.message },
  };
}

/** The error responses of a route: its problems, the common ones, and what API Gateway answers itself. */
function errorResponses(route: ApiRoute, schemas: ApiSchemas): Record<string, JsonObject> {
  const problems: Partial<Record<number, RouteProblem>> = { ...route.problems, 500: COMMON_PROBLEMS[500] };
  if (!route.public) problems[401] = COMMON_PROBLEMS[401];
  const gateway = new Set([429, 500, 503, ...(route.public ? [] : [403]), ...(route.body ? [413] : [])]);
  const statuses = new Set([...Object.keys(problems).map(Number), ...gateway]);
  const responses: Record<string, JsonObject> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const problem = problems[status];
    const fromGateway = gateway.has(status) ? GATEWAY_ANSWERS[status] : undefined;
    const descriptions = [
      ...(problem ? [problem.description] : []),
      ...(fromGateway
        ? [
            `${problem ? 'Or, from' : 'From'} API Gateway itself (application/json): ${fromGateway.description}`,
          ]
        : []),
    ];
    const content: JsonObject = {};
    if (problem) content[PROBLEM_CONTENT_TYPE] = problemContent(schemas, status, problem);
    if (fromGateway) content['application/json'] = gatewayContent(schemas, status);
    responses[String(status)] = { description: descriptions.join(' '), content };
  }
  return responses;
}

function operationOf(route: ApiRoute, schemas: ApiSchemas): JsonObject {
  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(spec.headers).map(([name, header]) => {
                const { description, schema = { type: 'string' } } =
                  typeof header === 'string' ? { description: header } : header;
                return [name, { description, schema }];
              }),
            ),
          }
        : {}),
      ...(spec.schema
        ? { content: { 'application/json': { schema: schemaRef(schemas, spec.schema) } } }
        : {}),
    };
  }
  Object.assign(responses, errorResponses(route, schemas));
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
    // Relative to where this document is served (GET /openapi.json at the API's root): the stack
    // output ApiUrl when deployed, the address the local stack prints locally.
    servers: [{ url: '/', description: 'The API that serves this document' }],
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
