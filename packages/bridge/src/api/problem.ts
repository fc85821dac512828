/**
 * RFC 9457 problem details: every error the API answers is `application/problem+json` with `type`,
 * `title`, `status`, `detail` and `instance`, plus `errors` (one entry per invalid field, each with a
 * JSON Pointer into the request body) on 422. docs/api.md lists every problem type.
 *
 * Handlers throw an {@link ApiProblem}; the API turns it into the answer, so no route formats errors
 * on its own.
 */
import { BridgeError, boundedText } from '../core/index.ts';

/** Prefix of every problem type URI; the suffix is the slug listed in docs/api.md. */
export const PROBLEM_TYPE_PREFIX = 'urn:pds-bridge:problem:';

/** The media type of every error answer. */
export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One invalid field of a request body. */
export interface FieldError {
  /** JSON Pointer (RFC 6901) into the request body, e.g. `/primaryKeys/3`; `` for the whole body. */
  pointer: string;
  detail: string;
}

/** The JSON body of a problem answer. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

/**
 * Every problem the function answers: slug → status and title. API Gateway answers some requests
 * itself (403, 413, 429, and 500/503 when the function fails or is late) with its own
 * `{"message": …}` bodies, never these; ./openapi.ts documents both.
 */
export const PROBLEMS = {
  'invalid-json': { status: 400, title: 'The request body is not valid JSON' },
  'invalid-header': { status: 400, title: 'A request header is not valid' },
  'invalid-path': { status: 400, title: 'The request path is not valid' },
  'invalid-query': { status: 400, title: 'A query parameter is not valid' },
  unauthorized: { status: 401, title: 'Authentication is required' },
  'not-found': { status: 404, title: 'Nothing exists at this address' },
  'method-not-allowed': { status: 405, title: 'The method is not allowed on this resource' },
  'idempotency-key-reused': { status: 422, title: 'The Idempotency-Key was used with a different body' },
  'request-in-progress': { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  'unsupported-media-type': { status: 415, title: 'The request body must be JSON' },
  'validation-failed': { status: 422, title: 'The request body has invalid fields' },
  'unknown-item': { status: 422, title: 'The PDS does not know this item' },
  'internal-error': { status: 500, title: 'The bridge failed unexpectedly' },
  'pds-error': { status: 502, title: 'The PDS refused or failed the request' },
  'pds-unavailable': { status: 503, title: 'The PDS is unavailable' },
  'service-unavailable': { status: 503, title: 'The bridge cannot accept the request right now' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEMS;

export interface ApiProblemOptions {
  errors?: FieldError[];
  /** Extra response headers, e.g. `Allow`, `Retry-After`, `WWW-Authenticate`. */
  headers?: Record<string, string>;
  /** Extension members of the problem document (RFC 9457 §3.2). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * A problem to answer with. Throw it from a route; the API writes it as problem+json.
 *
 * @example
 * ```ts
 * throw new ApiProblem('not-found', `No publication ${id}; check the id the POST answered`);
 * ```
 */
export class ApiProblem extends BridgeError {
  readonly slug: ProblemSlug;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(slug: ProblemSlug, detail: string, options: ApiProblemOptions = {}) {
    // A detail quoting outside input (a PDS answer, a value) stays readable and bounded.
    detail = boundedText(detail);
    const status = PROBLEMS[slug].status;
    // The client may succeed by sending the same request later only when the bridge or the PDS was busy.
    const retryable = status === 503 || slug === 'request-in-progress';
    super(
      'API_PROBLEM',
      detail,
      options.cause === undefined ? { retryable } : { retryable, cause: options.cause },
    );
    this.name = 'ApiProblem';
    this.slug = slug;
    this.status = status;
    this.title = PROBLEMS[slug].title;
    this.detail = detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  /** The problem document, with `instance` naming the request path. */
  toDocument(instance?: string): ProblemDocument {
    return {
      ...this.extensions,
      type: `${PROBLEM_TYPE_PREFIX}${this.slug}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(instance === undefined ? {} : { instance }),
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
  }
}

/**
 * A JSON Pointer (RFC 6901) for a path of property names and array indexes.
 *
 * @example
 * ```ts
 * jsonPointer(['destinations', 0, 'destinationType']); // '/destinations/0/destinationType'
 * jsonPointer(['a/b', 'c~d']); // '/a~1b/c~0d'
 * ```
 */
export function jsonPointer(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
