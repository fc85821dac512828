/**
 * A table-driven router over API Gateway payload 2.0 events: each route is a method and a path
 * template such as `/publications/{publicationId}`; a request matches on its method and `rawPath`.
 *
 * Path parameters come from `event.pathParameters` when API Gateway filled them (it decodes them and,
 * on HTTP APIs, `rawPath` too); otherwise the matched raw segment is percent-decoded exactly once,
 * so behind the local adapter a key `a/b` travels as `a%2Fb`. A parameter that is empty or not
 * well-formed Unicode is refused for every route ({@link InvalidPathError}, answered 400). A path
 * that matches no template is `not-found`; one that matches with another method is
 * `method-not-allowed` with the allowed methods.
 */

import { InvalidPathError } from './errors.ts';

/** What a route needs for matching. */
export interface RouteShape {
  method: string;
  /** Template: literal segments and `{name}` segments, e.g. `/watch/{primaryKey}`. */
  path: string;
}

export type RouteMatch<R extends RouteShape> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

type Segment = { literal: string } | { param: string };

interface CompiledRoute<R> {
  route: R;
  segments: Segment[];
}

function compile(template: string): Segment[] {
  if (!template.startsWith('/')) throw new TypeError(`Route path ${template} must start with "/"`);
  return splitPath(template).map((part) => {
    const param = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(part);
    return param ? { param: param[1] as string } : { literal: part };
  });
}

function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '/' ? [] : trimmed.slice(1).split('/');
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidPathError(segment);
  }
}

/** Every route answers 400 for a parameter its handler could not use, before the handler runs. */
function checkedParameter(name: string, value: string): string {
  if (value === '') throw new InvalidPathError(value, `(path parameter ${name}) is empty; give a value`);
  if (!value.isWellFormed()) {
    throw new InvalidPathError(
      value,
      `(path parameter ${name}) is not well-formed Unicode (it holds a lone surrogate); send UTF-8 text`,
    );
  }
  return value;
}

/**
 * @example
 * ```ts
 * const router = new Router([{ method: 'GET', path: '/publications/{publicationId}' }]);
 * router.match('GET', '/publications/42'); // { kind: 'found', route, params: { publicationId: '42' } }
 * router.match('PUT', '/publications/42'); // { kind: 'method-not-allowed', allow: ['GET'] }
 * ```
 */
export class Router<R extends RouteShape> {
  readonly #routes: CompiledRoute<R>[];

  constructor(routes: readonly R[]) {
    this.#routes = routes.map((route) => ({ route, segments: compile(route.path) }));
  }

  /** Finds the route of a request; throws {@link InvalidPathError} for a parameter that cannot be decoded. */
  match(method: string, rawPath: string, pathParameters?: Record<string, string | undefined>): RouteMatch<R> {
    const parts = splitPath(rawPath || '/');
    const allow = new Set<string>();
    for (const { route, segments } of this.#routes) {
      if (segments.length !== parts.length) continue;
      const matches = segments.every(
        (segment, index) => 'param' in segment || segment.literal === parts[index],
      );
      if (!matches) continue;
      if (route.method !== method.toUpperCase()) {
        allow.add(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      segments.forEach((segment, index) => {
        if (!('param' in segment)) return;
        const given = pathParameters?.[segment.param];
        params[segment.param] = checkedParameter(
          segment.param,
          given ?? decodeSegment(parts[index] as string),
        );
      });
      return { kind: 'found', route, params };
    }
    return allow.size > 0 ? { kind: 'method-not-allowed', allow: [...allow].sort() } : { kind: 'not-found' };
  }
}
