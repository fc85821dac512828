/**
 * Sending a request and reading its JSON answer through a schema: the step every resource module
 * ends with, written once so the `expect` and the line an invalid answer names cannot drift apart.
 */
import type * as z from '../core/zod.ts';
import { parseAnswer } from './schemas.ts';
import {
  headerOf,
  type PdsConditional,
  type PdsRequest,
  type PdsResponse,
  type PdsTransport,
} from './transport.ts';

/**
 * Sends a request expecting JSON and checks the answer against a schema.
 *
 * @throws PdsInvalidResponseError when the answer does not fit the schema (see `parseAnswer`)
 * @example
 * ```ts
 * const selection = await requestJson(transport, { method: 'POST', path, json: { primaryKeys } }, schemas.selection);
 * ```
 */
export async function requestJson<T>(
  transport: PdsTransport,
  request: Omit<PdsRequest<'json'>, 'expect'>,
  schema: z.core.$ZodType<T>,
): Promise<T> {
  const response = await transport.request({ ...request, expect: 'json' });
  return parseAnswer(schema, response.body, response.request);
}

/**
 * The answer of a conditional GET sent with `acceptNotModified`: a 304 keeps the caller's copy (named by
 * the ETag the server confirmed, else the one sent), any other answer is checked against the schema.
 *
 * @example
 * ```ts
 * const response = await transport.request({ method: 'GET', path, headers, acceptNotModified: true, expect: 'json' });
 * return conditionalAnswer(response, ifNoneMatch, schemasV1.dataModel);
 * ```
 */
export function conditionalAnswer<T>(
  response: PdsResponse<unknown>,
  ifNoneMatch: string | undefined,
  schema: z.core.$ZodType<T>,
): PdsConditional<T> {
  const etag = headerOf(response.headers, 'etag');
  const cacheControl = headerOf(response.headers, 'cache-control');
  if (response.status === 304) {
    return { notModified: true, etag: etag ?? (ifNoneMatch as string), cacheControl };
  }
  return {
    notModified: false,
    value: parseAnswer(schema, response.body, response.request),
    etag,
    cacheControl,
  };
}
