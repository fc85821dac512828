/**
 * Every way a PDS call can fail, as a class of its own.
 *
 * `PdsError` is the root; `PdsHttpError` and its subclasses carry the answer the server gave,
 * `PdsTimeoutError` and `PdsNetworkError` say that no complete answer arrived. `retryable` tells
 * callers (SQS consumers, pollers) whether trying the same thing later can help.
 *
 * Messages name the method and path, never credentials: the transport builds them from the
 * request line only, and body excerpts are the server's answer, never the request.
 */
import { BridgeError } from '../core/index.ts';

export type PdsErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'HTTP_ERROR'
  | 'TIMEOUT'
  | 'NETWORK'
  | 'INVALID_RESPONSE'
  | 'INVALID_REQUEST'
  | 'UPLOAD_SOURCE';

export interface PdsRequestLine {
  method: string;
  /** Path and query as sent, without the base URL's origin. */
  path: string;
}

/** The root of the PDS errors; `code` is one of {@link PdsErrorCode}, `retryable` as packages/bridge/src/core defines it. */
export class PdsError extends BridgeError {
  declare readonly code: PdsErrorCode;
  readonly method: string;
  readonly path: string;

  constructor(
    code: PdsErrorCode,
    message: string,
    request: PdsRequestLine,
    retryable: boolean,
    options?: ErrorOptions,
  ) {
    super(code, message, { ...options, retryable });
    this.name = 'PdsError';
    this.method = request.method;
    this.path = request.path;
  }
}

/** Longest body excerpt kept on an error: enough to read the server's reason, never a whole document. */
export const BODY_EXCERPT_LENGTH = 500;

export function excerpt(body: string): string {
  const flat = body.replace(/\s+/g, ' ').trim();
  return flat.length > BODY_EXCERPT_LENGTH ? `${flat.slice(0, BODY_EXCERPT_LENGTH)}…` : flat;
}

/** The server answered with a status that is not a success. */
export class PdsHttpError extends PdsError {
  readonly status: number;
  readonly bodyExcerpt: string;

  constructor(
    status: number,
    request: PdsRequestLine,
    body: string,
    code: PdsErrorCode = 'HTTP_ERROR',
    retryable = false,
    hint = '',
  ) {
    const reason = excerpt(body);
    super(
      code,
      `PDS answered ${status} to ${request.method} ${request.path}${reason ? `: ${reason}` : ''}${hint ? ` (${hint})` : ''}`,
      request,
      retryable,
    );
    this.name = 'PdsHttpError';
    this.status = status;
    this.bodyExcerpt = reason;
  }
}

export class PdsBadRequestError extends PdsHttpError {
  constructor(status: number, request: PdsRequestLine, body: string) {
    super(status, request, body, 'BAD_REQUEST', false, 'the request was refused as invalid; fix its content');
    this.name = 'PdsBadRequestError';
  }
}

export class PdsUnauthorizedError extends PdsHttpError {
  constructor(status: number, request: PdsRequestLine, body: string) {
    super(
      status,
      request,
      body,
      status === 403 ? 'FORBIDDEN' : 'UNAUTHORIZED',
      false,
      status === 403
        ? 'the user is not signed in or lacks the privilege; check PDS_USERNAME and its rights'
        : 'check PDS_USERNAME / PDS_PASSWORD or the secret in PDS_CREDENTIALS_SECRET_ID',
    );
    this.name = 'PdsUnauthorizedError';
  }
}

export class PdsNotFoundError extends PdsHttpError {
  constructor(status: number, request: PdsRequestLine, body: string) {
    super(status, request, body, 'NOT_FOUND', false, 'nothing exists under that identifier');
    this.name = 'PdsNotFoundError';
  }
}

export class PdsConflictError extends PdsHttpError {
  constructor(status: number, request: PdsRequestLine, body: string) {
    super(
      status,
      request,
      body,
      'CONFLICT',
      false,
      'the resource is in a state that refuses this; see the reason',
    );
    this.name = 'PdsConflictError';
  }
}

export class PdsRateLimitedError extends PdsHttpError {
  /** What the server asked for in Retry-After, in milliseconds, when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, request: PdsRequestLine, body: string, retryAfterMs: number | undefined) {
    super(
      status,
      request,
      body,
      'RATE_LIMITED',
      true,
      'too many requests; lower the concurrency or try later',
    );
    this.name = 'PdsRateLimitedError';
    this.retryAfterMs = retryAfterMs;
  }
}

export class PdsServerError extends PdsHttpError {
  constructor(status: number, request: PdsRequestLine, body: string) {
    super(status, request, body, 'SERVER_ERROR', true, 'the PDS failed or is unavailable; try again later');
    this.name = 'PdsServerError';
  }
}

/** No complete answer within the configured connect, headers or body timeout. */
export class PdsTimeoutError extends PdsError {
  readonly phase: 'connect' | 'headers' | 'body' | 'total';

  constructor(
    phase: PdsTimeoutError['phase'],
    timeoutMs: number,
    request: PdsRequestLine,
    options?: ErrorOptions,
  ) {
    super(
      'TIMEOUT',
      `PDS did not ${phase === 'connect' ? 'accept the connection' : `send the ${phase === 'total' ? 'answer' : phase}`} within ${timeoutMs} ms for ${request.method} ${request.path} (raise the timeout or check the PDS)`,
      request,
      true,
      options,
    );
    this.name = 'PdsTimeoutError';
    this.phase = phase;
  }
}

/** The connection failed: refused, reset, DNS, TLS. `reachedServer` is false when the request provably never left. */
export class PdsNetworkError extends PdsError {
  readonly reachedServer: boolean;

  constructor(detail: string, request: PdsRequestLine, reachedServer: boolean, options?: ErrorOptions) {
    super(
      'NETWORK',
      `Network failure on ${request.method} ${request.path}: ${detail} (check PDS_BASE_URL and connectivity)`,
      request,
      true,
      options,
    );
    this.name = 'PdsNetworkError';
    this.reachedServer = reachedServer;
  }
}

/** The server answered 2xx with a body the client cannot read (for example invalid JSON). */
export class PdsInvalidResponseError extends PdsError {
  constructor(detail: string, request: PdsRequestLine, options?: ErrorOptions) {
    super(
      'INVALID_RESPONSE',
      `PDS sent an unreadable answer to ${request.method} ${request.path}: ${detail}`,
      request,
      false,
      options,
    );
    this.name = 'PdsInvalidResponseError';
  }
}

/** The caller asked for something the client refuses to send (for example an empty path segment). */
export class PdsInvalidRequestError extends PdsError {
  constructor(detail: string, request: PdsRequestLine, options?: ErrorOptions) {
    super(
      'INVALID_REQUEST',
      `Refused to send ${request.method} ${request.path}: ${detail}`,
      request,
      false,
      options,
    );
    this.name = 'PdsInvalidRequestError';
  }
}

/** Maps a non-success status to its error class. */
export function httpErrorFor(
  status: number,
  request: PdsRequestLine,
  body: string,
  retryAfterMs?: number,
): PdsHttpError {
  if (status === 401 || status === 403) return new PdsUnauthorizedError(status, request, body);
  if (status === 404) return new PdsNotFoundError(status, request, body);
  if (status === 409) return new PdsConflictError(status, request, body);
  if (status === 429) return new PdsRateLimitedError(status, request, body, retryAfterMs);
  if (status >= 500) return new PdsServerError(status, request, body);
  if (status === 400 || status === 422) return new PdsBadRequestError(status, request, body);
  return new PdsHttpError(status, request, body);
}

/**
 * Reading the caller's upload source failed midway (for example an S3 object stream that was cut).
 * Retryable: the same upload can succeed once the source is opened again.
 */
export class PdsUploadSourceError extends PdsError {
  constructor(detail: string, request: PdsRequestLine, options?: ErrorOptions) {
    super(
      'UPLOAD_SOURCE',
      `Reading the upload source of ${request.method} ${request.path} failed: ${detail}`,
      request,
      true,
      options,
    );
    this.name = 'PdsUploadSourceError';
  }
}

/**
 * A request body produced locally (an upload source, a generated stream) failed or did not match the
 * length it declared. Body producers throw it from inside the stream so the transport can tell "our own
 * bytes were wrong" apart from "the network failed": the first is never retried and surfaces as
 * `PdsInvalidRequestError`, the second follows the retry rules.
 *
 * @example
 * ```ts
 * if (sent !== declared) throw new PdsRequestBodyError(`the source yielded ${sent} bytes but declared ${declared}`);
 * ```
 */

export class PdsRequestBodyError extends BridgeError {
  /** True when the source itself failed while being read (opening it again may work), not our declared size. */
  readonly sourceFailed: boolean;

  constructor(message: string, options?: ErrorOptions & { sourceFailed?: boolean }) {
    super('PDS_REQUEST_BODY_INVALID', message, { ...options, retryable: options?.sourceFailed ?? false });
    this.name = 'PdsRequestBodyError';
    this.sourceFailed = options?.sourceFailed ?? false;
  }
}

/** True when `error` or anything in its `cause` chain is a {@link PdsRequestBodyError}. */
export function findRequestBodyError(error: unknown): PdsRequestBodyError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof PdsRequestBodyError) return current;
    current = current.cause;
  }
  return undefined;
}
