/**
 * Keeps credentials out of everything an error carries.
 *
 * The transport knows the credentials and the `Authorization` value it built from them. Error messages
 * are built from the request line only, but two kinds of text come from elsewhere: the server's answer
 * (a misbehaving proxy may echo request headers into an error page) and the messages of lower-level
 * errors (Node's HTTP client and sockets, a JSON parser quoting the body). Both pass through a redactor before they reach
 * a `PdsError`, and lower-level errors are replaced by sanitised copies in the `cause` chain.
 *
 * The redactor replaces the credentials where they can actually appear, never the bare password as a
 * substring of any text: with the password `demo`, a key `demo-key-1` is user data and stays intact.
 */

const REDACTED = '[REDACTED]';
const MAX_CAUSE_DEPTH = 4;

/** An `Authorization` value: the scheme stays, the credentials go. */
const AUTHORIZATION_VALUE = /\b(Basic|Bearer)\s+([A-Za-z0-9+/=._~-]+)/gi;
/** The user-info of a URL (`scheme://user:password@host`). */
const URL_USER_INFO = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/?#@\s"'<>]*@/gi;

/** The credentials of one PDS account. */
export interface RedactedCredentials {
  readonly username: string;
  readonly password: string;
}

/** Replaces credentials in a text where they can appear, and nothing else. */
export class SecretRedactor {
  readonly #literals: string[];
  readonly #passwordMembers: RegExp | undefined;

  /**
   * @param credentials the account whose secrets must never be shown: redacted are an `Authorization`
   * value (`Basic …`, or its base64 token alone), the `username:password` pair (as in a URL's user-info
   * or a decoded header, percent-encoded too), any URL user-info, and the value of a `"password"` member
   * of JSON (the secret's JSON, also when quoted inside another JSON string). The password on its own is
   * not searched for: it could be part of a key, a file name or any other user data.
   * @example
   * ```ts
   * const redactor = new SecretRedactor({ username: 'demo', password: 'demo' });
   * redactor.redact('sent Basic ZGVtbzpkZW1v for demo-key-1'); // 'sent Basic [REDACTED] for demo-key-1'
   * ```
   */
  constructor({ username, password }: RedactedCredentials) {
    const pair = `${username}:${password}`;
    const literals = new Set([
      Buffer.from(pair, 'utf8').toString('base64'),
      pair,
      `${encodeURIComponent(username)}:${encodeURIComponent(password)}`,
    ]);
    // Longest first, so a secret that contains another is replaced whole.
    this.#literals = [...literals]
      .filter((literal) => literal.length > 1)
      .sort((a, b) => b.length - a.length);
    if (password) {
      // The password as a JSON string value, raw, once escaped, or escaped again (JSON inside a JSON string).
      const once = JSON.stringify(password).slice(1, -1);
      const twice = JSON.stringify(once).slice(1, -1);
      const values = [...new Set([password, once, twice])].map(escapeRegExp).join('|');
      this.#passwordMembers = new RegExp(`(password\\\\*"\\s*:\\s*\\\\*")(?:${values})(?=\\\\*")`, 'gi');
    }
  }

  /** The text with every credential replaced by `[REDACTED]`. */
  redact(text: string): string {
    let out = text;
    for (const literal of this.#literals) out = out.replaceAll(literal, REDACTED);
    out = out.replace(AUTHORIZATION_VALUE, (value, scheme: string, token: string) =>
      isCredentialToken(scheme, token) ? `${scheme} ${REDACTED}` : value,
    );
    out = out.replace(URL_USER_INFO, `$1${REDACTED}@`);
    if (this.#passwordMembers) out = out.replace(this.#passwordMembers, `$1${REDACTED}`);
    return out;
  }

  /**
   * A sanitised copy of a lower-level error, fit to be a `cause`: same name, code and (redacted) message
   * and stack, nested causes sanitised too, nothing else (lower-level errors can hold sockets and headers).
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

/** `error.code` when it is a string (Node system errors, Node's HTTP parser errors `HPE_*`). */
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether the word after `Basic` or `Bearer` is a credential rather than prose ("HTTP Basic auth"): a
 * Basic token is base64 of `user:password`, a bearer token is long.
 */
function isCredentialToken(scheme: string, token: string): boolean {
  if (scheme.toLowerCase() === 'bearer') return token.length >= 16;
  return /^[A-Za-z0-9+/]+={0,2}$/.test(token) && Buffer.from(token, 'base64').toString('utf8').includes(':');
}
