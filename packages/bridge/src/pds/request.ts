/**
 * The shapes the PDS transport speaks in: a request, its body, the answer, the hooks and the
 * transport's options (./transport.ts sends them).
 */
import type http from 'node:http';
import type { Readable } from 'node:stream';
import type { PdsError, PdsRequestLine } from './errors.ts';
import type { RetryOptions } from './retry.ts';

/** How the answer's body is handed back. */
export type PdsExpect = 'json' | 'text' | 'stream' | 'none';

/** The body type for each {@link PdsExpect}: parsed JSON, a string, a stream to consume, or nothing. */
export type PdsResponseBody<E extends PdsExpect> = E extends 'json'
  ? unknown
  : E extends 'text'
    ? string
    : E extends 'stream'
      ? Readable
      : undefined;

/**
 * A request body. Strings, bytes and factories can be sent again on retry; a one-shot `Readable`
 * cannot, so a request with one is never retried.
 */
export type PdsRequestBody = string | Uint8Array | Readable | (() => Readable);

export type PdsHttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface PdsRequest<E extends PdsExpect = PdsExpect> {
  method: PdsHttpMethod;
  /** Path below the base URL, starting with '/', segments already encoded (see `pathOf`). */
  path: string;
  /** Query parameters; undefined values are left out, an array repeats the parameter once per element. */
  query?: Record<string, PdsQueryValue | readonly PdsQueryValue[] | undefined>;
  /** Extra headers (for example `content-type`, `content-length` of a stream body). */
  headers?: Record<string, string>;
  body?: PdsRequestBody;
  /** Serialised as the body with `content-type: application/json`; excludes `body`. */
  json?: unknown;
  /**
   * Repeating the request is harmless. Defaults to true for GET, HEAD, PUT, DELETE and false otherwise;
   * set it on a POST without side effects (validate) so it is retried like a GET.
   */
  idempotent?: boolean;
  expect: E;
  /**
   * Hand a `304 Not Modified` back as a response (status 304, body undefined) instead of throwing: set it
   * on conditional GETs sent with `If-None-Match`, where 304 means "your copy is current".
   */
  acceptNotModified?: boolean;
  signal?: AbortSignal;
}

/** One value of a query parameter. */
export type PdsQueryValue = string | number | boolean;

export type PdsResponseHeaders = Record<string, string | string[] | undefined>;

/** A conditional GET answered `304 Not Modified`: the copy the caller holds (named by `etag`) is current. */
export interface PdsNotModified {
  notModified: true;
  /** The ETag the server confirmed (the one sent in If-None-Match when the answer names none). */
  etag: string;
  cacheControl?: string;
}

/** A conditional GET answered with content: the value, and the ETag to send as If-None-Match next time. */
export interface PdsModified<T> {
  notModified: false;
  value: T;
  etag?: string;
  cacheControl?: string;
}

/**
 * The answer of a GET that honours `If-None-Match`: a "not modified" result is a normal outcome, not an error.
 *
 * @example
 * ```ts
 * const answer = await pds.dataModel.current({ ifNoneMatch: cached.etag });
 * const model = answer.notModified ? cached.model : answer.value;
 * ```
 */
export type PdsConditional<T> = PdsNotModified | PdsModified<T>;

/**
 * The first value of a response header (names are lower case, as Node gives them), or undefined.
 *
 * @example
 * ```ts
 * headerOf(response.headers, 'etag'); // '"abc"'
 * ```
 */
export function headerOf(headers: PdsResponseHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

export interface PdsResponse<B> {
  /** Method, and path and query as sent (base URL prefix included): what errors about this answer name. */
  request: PdsRequestLine;
  status: number;
  headers: PdsResponseHeaders;
  body: B;
}

/** Reported before each retry; `attempt` is the attempt that failed, starting at 1. */
export interface PdsRetryEvent {
  attempt: number;
  delayMs: number;
  error: PdsError;
  method: string;
  path: string;
}

/**
 * Reported after each attempt, answered or failed: how long the PDS took to answer (up to its status
 * and headers; an upload's time includes sending the body).
 */
export interface PdsAnswerEvent {
  method: string;
  path: string;
  /** The HTTP status, or `undefined` when no answer came (timeout, reset, refused connection). */
  status: number | undefined;
  durationMs: number;
}

export interface PdsCredentials {
  username: string;
  password: string;
}

export interface PdsTransportOptions {
  /** `PDS_BASE_URL`: http(s) origin, optionally with a path prefix; `/api/v1/...` and `/v1/...` go below it. */
  baseUrl: string;
  credentials: PdsCredentials;
  /** Most sockets open to the PDS at once; further requests wait for a free one. Default 16. */
  connections?: number;
  /** Longest wait for a new connection (TLS handshake included). Default 10 000 ms; 0: no limit. */
  connectTimeoutMs?: number;
  /** Longest wait for the answer's headers once the request is sent. Default 30 000 ms; 0: no limit. */
  headersTimeoutMs?: number;
  /** Longest silence between two chunks of the answer's body. Default 60 000 ms; 0: no limit. */
  bodyTimeoutMs?: number;
  /**
   * How long an idle keep-alive socket is kept. Default 4 000 ms (short: Lambda freezes idle sockets);
   * shorter when the PDS announces a keep-alive time (`Keep-Alive: timeout=N`): until 2 s before it.
   */
  keepAliveTimeoutMs?: number;
  retry?: Partial<RetryOptions>;
  /** Waits between attempts; injectable so tests record the waits instead of sleeping. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Returns [0, 1); the jitter source. Default Math.random. */
  random?: () => number;
  /** Called before each retry, e.g. to count retries in metrics. */
  onRetry?: (event: PdsRetryEvent) => void;
  /** Called after each attempt with its duration, e.g. to record the PDS's latency in metrics. */
  onAnswer?: (event: PdsAnswerEvent) => void;
  /**
   * Use this agent (an `https.Agent` for an https base URL, an `http.Agent` for http) instead of an own
   * keep-alive agent; `connections` and `keepAliveTimeoutMs` are then the agent's business, and `close()`
   * leaves it open.
   */
  agent?: http.Agent;
}
