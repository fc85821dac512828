/**
 * Reading JSON that came from outside (a queue message, a file, a stored document): a text that is not
 * JSON gets the caller's error, which names what the text was and what to do, not a bare SyntaxError.
 */

/**
 * `JSON.parse(text)`; when `text` is not JSON, throws the error `refuse` builds from the parse failure.
 *
 * @example
 * ```ts
 * const value = parseJsonOr(record.body, (cause) => new TypeError('The message is not JSON', { cause }));
 * ```
 */
export function parseJsonOr(text: string, refuse: (cause: unknown) => Error): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw refuse(cause);
  }
}
