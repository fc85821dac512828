/**
 * A table-driven router: each resource family contributes an array of routes (method, path pattern,
 * handler); `:name` segments become path parameters and a final `*name` segment collects the rest of
 * the path (zero or more segments), each percent-decoded exactly once.
 */
import type { IncomingMessage } from 'node:http';
import { SimulatorHttpError } from './errors.ts';
import type { Reply } from './reply.ts';

/** What a handler receives: the request (body unread), the decoded path parameters and the query. */
export interface RequestContext {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The decoded segments a final `*name` pattern segment matched (`[]` when none or no such segment). */
  rest: string[];
  /** The signed-in user; '' on a public route answered without credentials. */
  user: string;
}

export type Handler = (context: RequestContext) => Promise<Reply> | Reply;

/**
 * What a caller without valid credentials gets: 401 with `WWW-Authenticate` (the default,
 * docs/spec-gaps.md), 403 (the data model, as the spec says) or the route itself (`'public'`).
 */
export type SignedOutPolicy = 401 | 403 | 'public';

/**
 * One route. `path` is matched segment by segment against the raw (still encoded) request path;
 * a trailing `/` is significant, so register both spellings when both are served. A final `*name`
 * segment matches any rest, the empty rest included: earlier routes win, so list fixed paths first.
 *
 * @example
 * { method: 'GET', path: '/api/v1/supplierreviews/:primaryKey', handler }
 * { method: 'GET', path: '/v1/assetFolders/*path', handler } // '/v1/assetFolders/a/b' → rest ['a', 'b']
 */
export interface Route {
  method: string;
  path: string;
  handler: Handler;
  /** Default 401. */
  signedOut?: SignedOutPolicy;
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string>; rest: string[] }
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
      return {
        kind: 'found',
        route: candidate.route,
        params: decodeParams(raw.params),
        rest: raw.rest.map((segment, index) => decodeSegment(`segment ${index + 1} of the path`, segment)),
      };
    }
    return allow.length > 0
      ? { kind: 'method-not-allowed', allow: [...new Set(allow)] }
      : { kind: 'not-found' };
  }

  /**
   * What a caller without valid credentials gets on this path: the policy of the route the request
   * would reach (or of the first route on that path when the method does not fit); 401 on unknown paths.
   */
  signedOutPolicy(method: string, rawPath: string): SignedOutPolicy {
    const segments = rawPath.split('/');
    const onPath = this.#routes.filter((candidate) => matchSegments(candidate.segments, segments));
    const route = (onPath.find((candidate) => candidate.route.method === method) ?? onPath[0])?.route;
    return route?.signedOut ?? 401;
  }
}

function matchSegments(
  pattern: string[],
  actual: string[],
): { params: Record<string, string>; rest: string[] } | undefined {
  const wildcard = pattern.at(-1)?.startsWith('*') === true;
  const fixed = wildcard ? pattern.length - 1 : pattern.length;
  if (wildcard ? actual.length < fixed : actual.length !== fixed) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < fixed; i += 1) {
    const expected = pattern[i] as string;
    const given = actual[i] as string;
    if (expected.startsWith(':')) {
      if (given === '') return undefined;
      params[expected.slice(1)] = given;
    } else if (expected !== given) return undefined;
  }
  return { params, rest: wildcard ? actual.slice(fixed) : [] };
}

function decodeParams(raw: Record<string, string>): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) decoded[name] = decodeSegment(`parameter ${name}`, value);
  return decoded;
}

function decodeSegment(what: string, value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new SimulatorHttpError(
      400,
      `Path ${what} '${value}' is not valid percent-encoding; encode it with encodeURIComponent`,
    );
  }
}
