/**
 * The HTTP transport of the PDS client: one keep-alive agent of Node's own `node:http(s)` per base URL,
 * Basic authentication, explicit timeouts, safe retries, and one typed error for every way a call can fail.
 *
 * Operations (`workflow.ts`) describe *what* to send; this module decides *how*: which attempts may be
 * repeated, how long to wait, how a failure is named. Credentials never leave it in readable form:
 * every text that reaches an error passes through a {@link SecretRedactor}. The bytes of one attempt
 * are moved by `exchange.ts`.
 */

import type http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { setTimeout as sleepFor } from 'node:timers/promises';
import packageJson from '../../package.json' with { type: 'json' };
import {
  BridgeError,
  ConfigError,
  checkBaseUrl,
  checkDurationMs,
  checkInteger,
  parseJson,
} from '../core/index.ts';
import {
  findRequestBodyError,
  httpErrorFor,
  PdsError,
  PdsHttpError,
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsNetworkError,
  type PdsRequestLine,
  PdsUploadSourceError,
} from './errors.ts';
import { type ExchangeAnswer, type ExchangeTarget, exchange, keepAliveAgent } from './exchange.ts';
import { codeOf, SecretRedactor } from './redact.ts';
import {
  DEFAULT_RETRY,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  type RetryOptions,
  rememberRetryAfter,
  retryAfterOf,
  retryDelayMs,
  shouldRetry,
} from './retry.ts';

/** Sent on every request, e.g. `pds-bridge/0.1.0 (+node v24.21.0)`. */
export const USER_AGENT = `pds-bridge/${packageJson.version} (+node ${process.version})`;

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

const DEFAULTS = {
  connections: 16,
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 60_000,
  keepAliveTimeoutMs: 4_000,
};

/** Bytes of an error answer read for its excerpt; the rest is discarded with the connection. */
const ERROR_BODY_READ_LIMIT = 8 * 1024;
/**
 * Largest answer read into memory (JSON and text answers; streamed ones are not read here). Far
 * above any page or messaging asset the bridge accepts (XML stops at 10 MiB), so only a runaway
 * answer meets it, and it is refused instead of filling the function's memory.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;
/** The request may carry these only through the transport itself. */
const RESERVED_HEADERS = new Set(['authorization', 'host', 'user-agent']);
/** Node system-call names of failures that happen before a request byte is written. */
const PRE_REQUEST_SYSCALLS = new Set(['connect', 'getaddrinfo']);
const PRE_REQUEST_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Sends requests to one PDS and maps every outcome to a typed answer or a `PdsError`.
 *
 * @example
 * ```ts
 * const transport = new PdsTransport({ baseUrl: 'https://pds.example.com', credentials: { username, password } });
 * const { body } = await transport.request({ method: 'GET', path: '/api/v1/communicationchannels', expect: 'json' });
 * await transport.close();
 * ```
 */
export class PdsTransport {
  readonly #prefix: string;
  readonly #target: ExchangeTarget;
  readonly #ownsAgent: boolean;
  /** Exchanges not over yet: `close()` waits for them. */
  readonly #running = new Set<Promise<void>>();
  readonly #authorization: string;
  readonly #redactor: SecretRedactor;
  readonly #retry: RetryOptions;
  readonly #timeouts: { connect: number; headers: number; body: number };
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #onRetry: ((event: PdsRetryEvent) => void) | undefined;
  readonly #onAnswer: ((event: PdsAnswerEvent) => void) | undefined;
  #closing: Promise<void> | undefined;

  constructor(options: PdsTransportOptions) {
    const url = parseBaseUrl(options.baseUrl);
    this.#prefix = url.pathname.replace(/\/+$/, '');
    const { username, password } = checkCredentials(options.credentials);
    const token = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
    this.#authorization = `Basic ${token}`;
    this.#redactor = new SecretRedactor({ username, password });

    const connections = positiveInteger('connections', options.connections ?? DEFAULTS.connections);
    this.#timeouts = {
      connect: nonNegative('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs),
      headers: nonNegative('headersTimeoutMs', options.headersTimeoutMs ?? DEFAULTS.headersTimeoutMs),
      body: nonNegative('bodyTimeoutMs', options.bodyTimeoutMs ?? DEFAULTS.bodyTimeoutMs),
    };
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#retry = {
      maxAttempts: positiveInteger('retry.maxAttempts', retry.maxAttempts),
      baseDelayMs: nonNegative('retry.baseDelayMs', retry.baseDelayMs),
      maxDelayMs: nonNegative('retry.maxDelayMs', retry.maxDelayMs),
      maxRetryAfterMs: nonNegative('retry.maxRetryAfterMs', retry.maxRetryAfterMs),
    };
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#onRetry = options.onRetry;
    this.#onAnswer = options.onAnswer;

    const keepAliveTimeoutMs = nonNegative(
      'keepAliveTimeoutMs',
      options.keepAliveTimeoutMs ?? DEFAULTS.keepAliveTimeoutMs,
    );
    this.#ownsAgent = options.agent === undefined;
    this.#target = {
      agent: options.agent ?? keepAliveAgent(url.protocol, connections, keepAliveTimeoutMs),
      protocol: url.protocol,
      // An IPv6 address comes bracketed in a URL, and bare in a connect call.
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port,
      timeouts: this.#timeouts,
    };
    if (this.#target.agent instanceof https.Agent !== (url.protocol === 'https:')) {
      const wanted = url.protocol === 'https:' ? 'an https.Agent' : 'an http.Agent, not an https.Agent';
      throw new ConfigError(`PDS_BASE_URL uses ${url.protocol}, so the agent must be ${wanted}`);
    }
  }

  /**
   * Sends one request, retrying where that is safe (see `retry.ts`), and returns the answer.
   * Non-2xx answers throw the matching `PdsHttpError` subclass. For `expect: 'stream'` the caller must
   * consume or destroy the returned body; its errors are `PdsError`s too.
   */
  async request<E extends PdsExpect>(request: PdsRequest<E>): Promise<PdsResponse<PdsResponseBody<E>>> {
    const method = request.method.toUpperCase();
    const line: PdsRequestLine = { method, path: this.#pathAndQuery(request, method) };
    const headers = this.#headers(request, line);
    const body = request.json !== undefined ? JSON.stringify(request.json) : request.body;
    // A non-idempotent POST is repeated only when it provably never reached the server; a 429 or 503
    // answer does not prove that (see shouldRetry in retry.ts for why).
    const repeatable = request.idempotent ?? IDEMPOTENT_METHODS.has(method);
    const replayable = !(body instanceof Readable);

    for (let attempt = 1; ; attempt++) {
      request.signal?.throwIfAborted();
      const started = performance.now();
      try {
        const response = await this.#attempt(request, line, headers, body);
        this.#reportAnswer(line, response.status, started);
        return response;
      } catch (caught) {
        if (request.signal?.aborted) throw request.signal.reason;
        const error = caught instanceof PdsError ? caught : this.#toPdsError(caught, line);
        this.#reportAnswer(line, error instanceof PdsHttpError ? error.status : undefined, started);
        const context = { attempt, maxAttempts: this.#retry.maxAttempts, repeatable, replayable };
        if (!shouldRetry(error, context)) throw error;
        const delayMs = retryDelayMs(attempt, retryAfterOf(error), this.#retry, this.#random);
        try {
          this.#onRetry?.({ attempt, delayMs, error, method, path: line.path });
        } catch {
          // A failing metrics or logging hook must not turn a recoverable call into a failed one.
        }
        await this.#wait(delayMs, request.signal);
      }
    }
  }

  #reportAnswer(line: PdsRequestLine, status: number | undefined, started: number): void {
    try {
      this.#onAnswer?.({ ...line, status, durationMs: performance.now() - started });
    } catch {
      // Like onRetry: measuring must never fail the call it measures.
    }
  }

  /**
   * Closes the connections once running requests finish (a streamed answer once it is read or
   * destroyed); later requests fail with `PdsInvalidRequestError`. Closing twice is harmless. An
   * injected agent is left open to its owner.
   */
  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all(this.#running);
      if (this.#ownsAgent) this.#target.agent.destroy();
    })();
    return this.#closing;
  }

  async #attempt<E extends PdsExpect>(
    request: PdsRequest<E>,
    line: PdsRequestLine,
    headers: Record<string, string>,
    bodySource: PdsRequestBody | undefined,
  ): Promise<PdsResponse<PdsResponseBody<E>>> {
    const { expect, signal } = request;
    if (this.#closing) {
      throw new PdsInvalidRequestError('the client is closed; create a new one', line);
    }
    const body = typeof bodySource === 'function' ? bodySource() : bodySource;
    const sent = exchange(this.#target, { line, headers, body, signal }, (error) =>
      this.#toPdsError(error, line),
    );
    this.#running.add(sent.settled);
    void sent.settled.then(() => this.#running.delete(sent.settled));
    let response: ExchangeAnswer;
    try {
      response = await sent.answer;
    } catch (error) {
      if (body instanceof Readable && !body.destroyed) body.destroy();
      throw error;
    }

    const status = response.status;
    const responseHeaders: PdsResponseHeaders = response.headers;
    const answer = (value: unknown) =>
      ({ request: line, status, headers: responseHeaders, body: value }) as PdsResponse<PdsResponseBody<E>>;
    if (status === 304 && request.acceptNotModified) {
      await drain(response.body);
      return answer(undefined);
    }
    if (status < 200 || status > 299) {
      const text = await readExcerpt(response.body, ERROR_BODY_READ_LIMIT);
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(responseHeaders['retry-after']) : undefined;
      const error = httpErrorFor(status, line, this.#redactor.redact(text), retryAfterMs);
      if (retryAfterMs !== undefined) rememberRetryAfter(error, retryAfterMs);
      throw error;
    }

    switch (expect) {
      case 'stream':
        // Its errors are PdsErrors already, and destroying it releases the connection (exchange.ts).
        return answer(response.body);
      case 'none':
        // The status is the answer. A body that breaks now must not turn an accepted import or
        // publication into a failure the caller would repeat.
        await drain(response.body);
        return answer(undefined);
      default: {
        let text: string;
        try {
          text = await readAnswer(response.body, MAX_ANSWER_BYTES);
        } catch (error) {
          if (error instanceof AnswerTooLargeError) {
            throw new PdsInvalidResponseError(
              `an answer of more than ${MAX_ANSWER_BYTES} bytes, more than the bridge reads into memory`,
              line,
            );
          }
          throw this.#toPdsError(error, line);
        }
        return answer(expect === 'json' ? this.#parseJson(text, line) : text);
      }
    }
  }

  #parseJson(text: string, line: PdsRequestLine): unknown {
    try {
      return parseJson(text);
    } catch (error) {
      const detail = text.trim() === '' ? 'an empty body where JSON was expected' : 'a body that is not JSON';
      throw new PdsInvalidResponseError(`${detail} (${text.length} characters)`, line, {
        cause: this.#redactor.safeCause(error),
      });
    }
  }

  /** Names a lower-level failure. Messages hold the request line and redacted details only. */
  #toPdsError(error: unknown, line: PdsRequestLine): PdsError {
    if (error instanceof PdsError) return error;
    const cause = this.#redactor.safeCause(error);
    const bodyError = findRequestBodyError(error);
    if (bodyError?.sourceFailed) {
      return new PdsUploadSourceError(this.#redactor.redact(bodyError.message), line, { cause });
    }
    if (bodyError) {
      return new PdsInvalidRequestError(
        `the request body failed: ${this.#redactor.redact(bodyError.message)}`,
        line,
        {
          cause,
        },
      );
    }
    // Timeouts, a closed client and a body of the wrong length are PdsErrors already (exchange.ts).
    const code = codeOf(error);
    if (code?.startsWith('HPE_')) {
      return new PdsInvalidResponseError('the answer is not valid HTTP', line, { cause });
    }
    const detail = this.#redactor.redact(describeFailure(error));
    return new PdsNetworkError(detail, line, !failedBeforeRequest(error), { cause });
  }

  #pathAndQuery(request: PdsRequest, method: string): string {
    const { path } = request;
    if (!path.startsWith('/') || /[?#]/.test(path)) {
      throw new PdsInvalidRequestError(
        "the path must start with '/' and carry no '?' or '#'; pass query parameters in `query`",
        { method, path },
      );
    }
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      const values: readonly PdsQueryValue[] = Array.isArray(value) ? value : [value as PdsQueryValue];
      for (const each of values) params.append(name, String(each));
    }
    const query = params.toString();
    return `${this.#prefix}${path}${query ? `?${query}` : ''}`;
  }

  #headers(request: PdsRequest, line: PdsRequestLine): Record<string, string> {
    if (request.json !== undefined && request.body !== undefined) {
      throw new PdsInvalidRequestError('pass either `json` or `body`, not both', line);
    }
    const headers: Record<string, string> = {
      accept: request.expect === 'json' ? 'application/json' : '*/*',
    };
    if (request.json !== undefined) headers['content-type'] = 'application/json';
    for (const [rawName, value] of Object.entries(request.headers ?? {})) {
      const name = rawName.toLowerCase();
      if (RESERVED_HEADERS.has(name)) {
        throw new PdsInvalidRequestError(`the header '${name}' is set by the transport; remove it`, line);
      }
      if (/[\r\n\0]/.test(value)) {
        throw new PdsInvalidRequestError(
          `the header '${name}' contains a line break or NUL; remove it`,
          line,
        );
      }
      headers[name] = value;
    }
    headers.authorization = this.#authorization;
    headers['user-agent'] = USER_AGENT;
    return headers;
  }

  async #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    }
  }
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return sleepFor(ms, undefined, signal ? { signal } : undefined);
}

/** True when the error provably happened before the request could reach the server. */
function failedBeforeRequest(error: unknown): boolean {
  if (error instanceof AggregateError && error.errors.length > 0) {
    // Happy-eyeballs connects try several addresses and report every refusal together.
    return error.errors.every(failedBeforeRequest);
  }
  if (typeof error !== 'object' || error === null) return false;
  const { syscall } = error as { syscall?: unknown };
  const code = codeOf(error);
  return (
    (typeof syscall === 'string' && PRE_REQUEST_SYSCALLS.has(syscall)) || PRE_REQUEST_CODES.has(code ?? '')
  );
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = codeOf(error);
  const message = error.message || error.name;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

class AnswerTooLargeError extends BridgeError {
  constructor(limit: number) {
    super('PDS_ANSWER_TOO_LARGE', `The PDS answer is longer than ${limit} bytes`);
  }
}

/** The whole answer as text; AnswerTooLargeError (the body destroyed) past `limit` bytes. */
async function readAnswer(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > limit) {
      body.destroy();
      throw new AnswerTooLargeError(limit);
    }
    chunks.push(buffer);
  }
  // UTF-8, a leading byte order mark dropped (TextDecoder's default, as the answers were read before).
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** Reads an answer to its end and drops it, so its connection can be reused; a failure is dropped too. */
async function drain(body: Readable): Promise<void> {
  try {
    for await (const _chunk of body) {
      // discarded
    }
  } catch {
    // The status is the answer; a body that breaks only costs the connection.
  }
}

/** Reads at most `limit` bytes of an error answer; a body that breaks only loses the excerpt. */
async function readExcerpt(body: Readable, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      chunks.push(buffer);
      size += buffer.length;
      if (size >= limit) break;
    }
  } catch {
    // The status already tells what happened.
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function parseBaseUrl(baseUrl: string): URL {
  const checked = checkBaseUrl(baseUrl);
  if (checked.ok) return checked.url;
  switch (checked.kind) {
    case 'invalid':
      throw new ConfigError(
        'PDS_BASE_URL is not a valid URL; set it to the PDS address, e.g. https://pds.example.com',
      );
    case 'protocol':
      throw new ConfigError(`PDS_BASE_URL must use http or https, not ${checked.protocol}`);
    case 'credentials':
      throw new ConfigError(
        'PDS_BASE_URL must not carry credentials; set PDS_USERNAME / PDS_PASSWORD or PDS_CREDENTIALS_SECRET_ID',
      );
    case 'query':
      throw new ConfigError('PDS_BASE_URL must not carry a query or fragment; remove them');
  }
}

function checkCredentials(credentials: PdsCredentials): PdsCredentials {
  const { username, password } = credentials ?? {};
  if (typeof username !== 'string' || username === '' || typeof password !== 'string' || password === '') {
    throw new ConfigError('PDS credentials need a non-empty username and password');
  }
  if (username.includes(':')) {
    // RFC 7617: the user-id of Basic authentication cannot contain a colon.
    throw new ConfigError("the PDS username must not contain ':' (HTTP Basic cannot carry it)");
  }
  return { username, password };
}

const configurationError = (message: string) => new ConfigError(message);

function positiveInteger(name: string, value: number): number {
  return checkInteger(name, value, { min: 1 }, configurationError);
}

function nonNegative(name: string, value: number): number {
  return checkDurationMs(name, value, configurationError);
}
