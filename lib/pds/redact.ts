/**
 * Keeps credentials out of everything an error carries.
 *
 * The transport knows the password and the `Authorization` value it built from it. Error messages are
 * built from the request line only, but two kinds of text come from elsewhere: the server's answer (a
 * misbehaving proxy may echo request headers into an error page) and the messages of lower-level errors
 * (undici, Node, a JSON parser quoting the body). Both pass through a redactor before they reach a
 * `PdsError`, and lower-level errors are replaced by sanitised copies in the `cause` chain.
 */

const REDACTED = '[REDACTED]';
const MAX_CAUSE_DEPTH = 4;

/** Replaces every occurrence of the given secrets in a text. */
export class SecretRedactor {
  readonly #secrets: string[];

  /**
   * @param secrets values that must never be shown; empty strings are ignored. Percent-encoded variants
   * are added so a secret that ended up in a URL is caught too.
   * @example
   * ```ts
   * const redactor = new SecretRedactor(['hunter2']);
   * redactor.redact('password=hunter2'); // 'password=[REDACTED]'
   * ```
   */
  constructor(secrets: readonly string[]) {
    const all = new Set<string>();
    for (const secret of secrets) {
      if (!secret) continue;
      all.add(secret);
      all.add(encodeURIComponent(secret));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...all].sort((a, b) => b.length - a.length);
  }

  /** The text with every secret replaced by `[REDACTED]`. */
  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.replaceAll(secret, REDACTED);
    return out;
  }

  /**
   * A sanitised copy of a lower-level error, fit to be a `cause`: same name, code and (redacted) message
   * and stack, nested causes sanitised too, nothing else (undici errors can hold sockets and headers).
   */
  safeCause(error: unknown, depth = 0): Error {
    if (!(error instanceof Error)) return new Error(this.redact(String(error)));
    const details =
      error instanceof AggregateError && error.errors.length > 0
        ? ` [${error.errors.map((inner) => (inner instanceof Error ? codeAndMessage(inner) : String(inner))).join('; ')}]`
        : '';
    const nested =
      depth < MAX_CAUSE_DEPTH && error.cause !== undefined
        ? { cause: this.safeCause(error.cause, depth + 1) }
        : undefined;
    const copy = new Error(this.redact(`${error.message}${details}`), nested);
    copy.name = error.name;
    const code = codeOf(error);
    if (code !== undefined) Object.defineProperty(copy, 'code', { value: code, enumerable: true });
    copy.stack = this.redact(error.stack ?? `${error.name}: ${error.message}`);
    return copy;
  }
}

/** `error.code` when it is a string (Node system errors, undici errors). */
export function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** `code: message` of an inner error of an AggregateError, or its message without a code. */
function codeAndMessage(error: Error): string {
  const code = codeOf(error);
  return code ? `${code}: ${error.message}` : error.message;
}
