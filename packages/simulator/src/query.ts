/**
 * Reading query parameters of the `/v1` families strictly: a value that is present but malformed is a
 * 400 naming the parameter and what it accepts, never silently ignored.
 */
import { isIntegerInRange } from '@pds-bridge/bridge/core';
import { SimulatorHttpError } from './errors.ts';

/** Largest value of an int32 query parameter. */
export const INT32_MAX = 2 ** 31 - 1;

/**
 * A boolean parameter: `true` / `false` (any case); `undefined` when absent or empty.
 *
 * @example
 * booleanParam(new URLSearchParams('force=TRUE'), 'force'); // true
 */
export function booleanParam(query: URLSearchParams, name: string): boolean | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const value = raw.toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new SimulatorHttpError(400, `Query parameter ${name} must be true or false, got '${raw}'`);
}

/**
 * An integer parameter within `min..max` (default `0..INT32_MAX`); `undefined` when absent or empty.
 *
 * @example
 * integerParam(new URLSearchParams('limit=20'), 'limit', { min: 1, max: 1000 }); // 20
 */
export function integerParam(
  query: URLSearchParams,
  name: string,
  { min = 0, max = INT32_MAX }: { min?: number; max?: number } = {},
): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const value = /^-?\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!isIntegerInRange(value, { min, max })) {
    throw new SimulatorHttpError(
      400,
      `Query parameter ${name} must be an integer from ${min} to ${max}, got '${raw}'`,
    );
  }
  return value;
}

/**
 * A list parameter: repeated (`name=a&name=b`) and comma-separated (`name=a,b`) values alike, empty
 * values dropped; `undefined` when absent.
 *
 * @example
 * listParam(new URLSearchParams('code=GRM,KGM&code=EA'), 'code'); // ['GRM', 'KGM', 'EA']
 */
export function listParam(query: URLSearchParams, name: string): string[] | undefined {
  if (!query.has(name)) return undefined;
  return query
    .getAll(name)
    .flatMap((value) => value.split(','))
    .filter((value) => value !== '');
}

/**
 * A text parameter; `undefined` when absent or empty.
 *
 * @example
 * textParam(new URLSearchParams('q=net'), 'q'); // 'net'
 */
export function textParam(query: URLSearchParams, name: string): string | undefined {
  const raw = query.get(name);
  return raw === null || raw === '' ? undefined : raw;
}

/**
 * Words of a `keywords` parameter (split on white space, lower-cased); a record matches when every word
 * occurs in one of its texts.
 *
 * @example
 * matchesKeywords(['gtin', 'feed'], ['GTIN watch', 'Daily feed']); // true
 */
export function matchesKeywords(words: readonly string[], texts: readonly string[]): boolean {
  const haystack = texts.map((text) => text.toLowerCase());
  return words.every((word) => haystack.some((text) => text.includes(word)));
}

/** The lower-cased words of `keywords`; `[]` when absent (every record matches). */
export function keywordsParam(query: URLSearchParams, name = 'keywords'): string[] {
  return (query.get(name) ?? '')
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '');
}
