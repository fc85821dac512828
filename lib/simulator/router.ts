/**
 * A table-driven router: each resource family contributes an array of routes (method, path pattern,
 * handler); `:name` segments become path parameters, percent-decoded exactly once.
 */
import type { IncomingMessage } from 'node:http';
import { SimulatorHttpError } from './errors.ts';
import type { Reply } from './http.ts';

/** What a handler receives: the request (body unread), the decoded path parameters and the query. */
export interface RequestContext {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
}

export type Handler = (context: RequestContext) => Promise<Reply> | Reply;

/**
 * One route. `path` is matched segment by segment against the raw (still encoded) request path;
 * a trailing `/` is significant, so register both spellings when both are served.
 *
 * @example
 * { method: 'GET', path: '/api/v1/supplierreviews/:primaryKey', handler }
 */
export interface Route {
  method: string;
  path: string;
  handler: Handler;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface CompiledRoute {
  route: Route;
  segments: string[];
}

/**
 * Finds the route for a method and raw path.
 *
 * @example
 * new Router(routes).match('GET', '/api/v1/supplierreviews/a%2Fb'); // params { primaryKey: 'a/b' }
 */
export class Router {
  readonly #routes: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    this.#routes = routes.map((route) => ({ route, segments: route.path.split('/') }));
  }

  /** Matches the path first, then the method; 400 when a parameter is not valid percent-encoding. */
  match(method: string, rawPath: string): RouteMatch {
    const segments = rawPath.split('/');
    const allow: string[] = [];
    for (const candidate of this.#routes) {
      const raw = matchSegments(candidate.segments, segments);
      if (!raw) continue;
      if (candidate.route.method !== method) {
        allow.push(candidate.route.method);
        continue;
      }
      return { kind: 'found', route: candidate.route, params: decodeParams(raw) };
    }
    return allow.length > 0
      ? { kind: 'method-not-allowed', allow: [...new Set(allow)] }
      : { kind: 'not-found' };
  }
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i += 1) {
    const expected = pattern[i] as string;
    const given = actual[i] as string;
    if (expected.startsWith(':')) {
      if (given === '') return undefined;
      params[expected.slice(1)] = given;
    } else if (expected !== given) return undefined;
  }
  return params;
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      decoded[name] = decodeURIComponent(value);
    } catch {
      throw new SimulatorHttpError(
        400,
        `Path parameter ${name} '${value}' is not valid percent-encoding; encode it with encodeURIComponent`,
      );
    }
  }
  return decoded;
}
