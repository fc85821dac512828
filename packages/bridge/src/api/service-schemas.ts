/**
 * What every route of the HTTP API may answer (problems, API Gateway's own messages) and the service
 * routes' answers (./service-routes.ts), registered in the API's registry.
 */
import * as z from '../core/zod.ts';
import type { SchemaRegistry } from './schema-parts.ts';

/** What every route may answer (problems, API Gateway's own messages) and the service routes. */
export function serviceSchemas(registry: SchemaRegistry) {
  const health = z
    .object({ status: z.literal('ok'), service: z.string(), version: z.string() })
    .register(registry, { id: 'Health', description: 'The API answers; no dependency is checked.' });

  const pdsHealth = z
    .object({
      status: z.literal('ok'),
      pds: z.object({
        latencyMs: z.number().check(z.int()),
        communicationChannels: z.number().check(z.int()),
      }),
    })
    .register(registry, {
      id: 'PdsHealth',
      description:
        "The function reached the PDS with the bridge's own credentials: how long the PDS took to list its communication channels, and how many it listed.",
    });

  const fieldError = z.object({ pointer: z.string(), detail: z.string() }).register(registry, {
    id: 'FieldError',
    description: 'One invalid field: a JSON Pointer into the request body and what is wrong there.',
  });

  const problem = z
    .looseObject({
      type: z.string(),
      title: z.string(),
      status: z.number().check(z.int()),
      detail: z.string(),
      instance: z.optional(z.string()),
      // Registered, not .describe()d: the document is generated from this registry's metadata only.
      requestId: z.optional(
        z.string().register(registry, {
          description:
            "API Gateway's id of the request (also in the api function's logs); quote it when reporting a problem.",
        }),
      ),
      errors: z.optional(z.array(fieldError)),
    })
    .register(registry, {
      id: 'Problem',
      description: 'RFC 9457 problem details (application/problem+json); docs/api.md lists every type.',
    });

  const gatewayMessage = z.object({ message: z.string() }).register(registry, {
    id: 'GatewayMessage',
    description:
      'What API Gateway answers itself, before or instead of the bridge (never problem+json): e.g. {"message":"Forbidden"}.',
  });

  const openApiDocument = z
    .looseObject({
      openapi: z.literal('3.1.0'),
      info: z.looseObject({ title: z.string(), version: z.string() }),
      paths: z.record(z.string(), z.unknown()),
    })
    .register(registry, {
      id: 'OpenApiDocument',
      description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0): this one.',
    });

  return { health, pdsHealth, problem, fieldError, gatewayMessage, openApiDocument };
}
