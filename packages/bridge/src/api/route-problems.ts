/**
 * Problem answers several routes document, with what they mean there (the OpenAPI document lists
 * them per route and status), and the path parameter the routes under a `{name}` segment declare.
 */
import type * as z from '../core/zod.ts';
import type { ParameterSpec, RouteProblem } from './route.ts';

export const STATE_UNAVAILABLE: RouteProblem = {
  types: ['service-unavailable'],
  description: 'The state bucket is unavailable; retry after Retry-After.',
};
export const BAD_PATH: RouteProblem = {
  types: ['invalid-path'],
  description: 'The path parameter is empty, too long or not valid percent-encoding.',
};
export const NOT_JSON: RouteProblem = {
  types: ['unsupported-media-type'],
  description: 'The body is not declared as application/json (see Accept-Post).',
};
export const PDS_REFUSED: RouteProblem = {
  types: ['pds-error'],
  description:
    "The PDS refused the bridge's request or failed in a way retrying does not fix (e.g. the bridge's credentials were refused).",
};
export const PDS_DOWN: RouteProblem = {
  types: ['pds-unavailable'],
  description: 'The PDS is unavailable (5xx, 429, timeout or network); retry after Retry-After.',
};

/**
 * The problems of a route that reads one stored thing named by its path: a bad path (400), nothing
 * stored under it (404, in the route's words) and the state bucket unavailable (503).
 */
export function lookupProblems(notFound: RouteProblem): Partial<Record<number, RouteProblem>> {
  return { 400: BAD_PATH, 404: notFound, 503: STATE_UNAVAILABLE };
}

/** The one path parameter of a route under `/…/{name}`. */
export function pathParameter(name: string, schema: z.ZodMiniType): ParameterSpec[] {
  return [{ name, in: 'path', schema }];
}
