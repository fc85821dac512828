/**
 * Argument checks shared by the resource modules, so a refused argument reads the same whichever
 * operation refused it.
 */
import { PdsInvalidRequestError, type PdsRequestLine } from './errors.ts';

/**
 * Refuses anything but a non-empty string, naming the argument and the operation.
 *
 * @throws PdsInvalidRequestError `<name> must be a non-empty string`
 * @example
 * ```ts
 * requireText(request.gatheringKey, 'gatheringKey', { method: 'POST', path: '/api/v1/imports' });
 * ```
 */
export function requireText(value: unknown, name: string, line: PdsRequestLine): void {
  if (typeof value !== 'string' || value === '') {
    throw new PdsInvalidRequestError(`${name} must be a non-empty string`, line);
  }
}

/**
 * Whether a value is a plain object (not null, not an array).
 *
 * @example
 * ```ts
 * isObject({ gtin: '1' }); // true
 * isObject([]);            // false
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a value is an array of strings (an empty array is one).
 *
 * @example
 * ```ts
 * isStringArray(['a', 'b']); // true
 * isStringArray(['a', 1]);   // false
 * ```
 */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
}

/**
 * An optional `If-None-Match` value, refused when it is empty or would break the header line.
 *
 * @throws PdsInvalidRequestError `<name> must be a non-empty ETag such as '"abc"' on one line`
 * @example
 * ```ts
 * const ifNoneMatch = optionalEtag(options.ifNoneMatch, 'ifNoneMatch', line); // '"abc"' or undefined
 * ```
 */
export function optionalEtag(
  value: string | undefined,
  name: string,
  line: PdsRequestLine,
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || /[\r\n\0]/.test(value)) {
    throw new PdsInvalidRequestError(`${name} must be a non-empty ETag such as '"abc"' on one line`, line);
  }
  return value;
}
