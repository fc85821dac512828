/**
 * The routes that take a JSON body (POST /publications, POST /validations): the body is declared with
 * its schema for the OpenAPI document, and read and validated with that same schema (./gateway.ts:
 * 415, 400, 422) before the route answers, so the document promises what the route checks.
 */
import type * as z from '../core/zod.ts';
import { readJsonBody, validateBody } from './gateway.ts';
import type { ApiRequest, ApiResponse, ApiRoute } from './route.ts';
import { NOT_JSON } from './route-problems.ts';

/**
 * What a JSON-body route declares (but its 415, which every one of them gives), and how it answers
 * with the validated body.
 */
export type BodyRouteSpec<S extends z.ZodMiniType> = Omit<ApiRoute, 'body' | 'handle'> & {
  body: S;
  answer(body: z.output<S>, request: ApiRequest): Promise<ApiResponse>;
};

/**
 * A route whose handler gets the request's body read as JSON and validated with `spec.body`; its
 * problems include 415 for a body not declared as JSON.
 *
 * @example
 * ```ts
 * jsonBodyRoute({ method: 'POST', path: '/validations', operationId: 'validateItem', summary: '…',
 *   body: schemas.validationRequest, responses, problems,
 *   answer: async (body) => ({ status: 200, body: await pds.validate(body) }) });
 * ```
 */
export function jsonBodyRoute<S extends z.ZodMiniType>(spec: BodyRouteSpec<S>): ApiRoute {
  const { answer, ...declared } = spec;
  return {
    ...declared,
    problems: { 415: NOT_JSON, ...declared.problems },
    handle: async (request) => answer(validateBody(spec.body, readJsonBody(request.event)), request),
  };
}
