/**
 * Paging, as the list routes (GET /watch, GET /confirmations) share it: reading a page request from
 * the query string (`limit`, default {@link DEFAULT_PAGE_SIZE}; an opaque `cursor` that only this API
 * hands out, the base64url of where the next page starts; the other query values, each checked
 * against its schema with a 400 `invalid-query` naming it), and the page answered, `entries` and the
 * `nextCursor` of the page after it.
 */
import * as z from '../core/zod.ts';
import { ApiProblem } from './problem.ts';
import type { ParameterSpec } from './route.ts';

/** Entries per page when the request gives no `limit`. */
export const DEFAULT_PAGE_SIZE = 100;

/** The query string of a payload 2.0 event. */
export type Query = Readonly<Record<string, string | undefined>>;

/** The cursor a page hands out for where the next one starts. */
export function encodeCursor(position: string): string {
  return Buffer.from(position, 'utf8').toString('base64url');
}

/**
 * Where the page named by `cursor` starts; throws 400 `invalid-query` unless the cursor is one this
 * API handed out: the exact encoding of a position `isPosition` accepts.
 */
export function decodeCursor(cursor: string, isPosition: (position: string) => boolean): string {
  const position = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!isPosition(position) || encodeCursor(position) !== cursor) {
    throw new ApiProblem(
      'invalid-query',
      'cursor is not a nextCursor this API returned; start again without it',
    );
  }
  return position;
}

/**
 * The query value `name` parsed with `schema`, `undefined` when absent; throws 400 `invalid-query`
 * saying `name` and what it must be (`hint`) when the value does not parse.
 *
 * @example
 * ```ts
 * const gtin = queryValue(query, 'gtin', schemas.primaryKey, 'must be a GTIN of 1 to 512 characters');
 * ```
 */
export function queryValue<S extends z.ZodMiniType>(
  query: Query,
  name: string,
  schema: S,
  hint: string,
): z.output<S> | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiProblem('invalid-query', `${name} ${hint}`);
  return parsed.data;
}

/** `limit` of the query, checked with `schema` (1 to 1000), or {@link DEFAULT_PAGE_SIZE}. */
export function pageLimit(query: Query, schema: z.ZodMiniType<number, unknown>): number {
  return queryValue(query, 'limit', schema, 'must be an integer from 1 to 1000') ?? DEFAULT_PAGE_SIZE;
}

/** The `limit` and `cursor` parameters of a list route, for its OpenAPI parameters. */
export function pageParameters(parameters: {
  pageLimit: z.ZodMiniType;
  pageCursor: z.ZodMiniType;
}): ParameterSpec[] {
  return [
    { name: 'limit', in: 'query', schema: parameters.pageLimit },
    { name: 'cursor', in: 'query', schema: parameters.pageCursor },
  ];
}

/**
 * The schema of one page of `entry`, registered as `id`: `entries`, and `nextCursor` unless it is the
 * last page. `contents` completes "One page of …".
 */
export function pageSchema<E extends z.ZodMiniType>(
  registry: z.core.$ZodRegistry<z.core.JSONSchemaMeta>,
  entry: E,
  page: { id: string; contents: string },
) {
  return z.object({ entries: z.array(entry), nextCursor: z.optional(z.string()) }).register(registry, {
    id: page.id,
    description: `One page of ${page.contents}; pass nextCursor as \`cursor\` for the next page.`,
  });
}

/** The body of one page: its entries, and the cursor of the page that starts at `next`, if any. */
export function pageBody<T>(
  entries: readonly T[],
  next: string | undefined,
): { entries: readonly T[]; nextCursor?: string } {
  return { entries, ...(next === undefined ? {} : { nextCursor: encodeCursor(next) }) };
}
