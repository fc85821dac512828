/**
 * The HTTP API (API Gateway HTTP API, payload 2.0): publications, communication channels, item
 * validation, the watch list, the OpenAPI document and health. Logic: packages/bridge/src/api (handlers.ts
 * wires it).
 */

import { createApiHandler } from '../src/api/handlers.ts';
import { lambdaHandler } from '../src/lambda/handler.ts';

const api = createApiHandler(process.env);

// Called from a function of this module, so an error's stack names the entry as well as the logic
// (serverless-api.test.ts checks the bundle's mapping through that frame). No cold-start metric:
// this function has never recorded one.
export const handler = lambdaHandler((event: Parameters<typeof api>[0], context) => api(event, context), {
  coldStartMetric: false,
});
