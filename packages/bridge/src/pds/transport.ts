/**
 * The HTTP transport of the PDS client: one keep-alive agent of Node's own `node:http(s)` per base URL,
 * Basic authentication, explicit timeouts, safe retries, and one typed error for every way a call can fail.
 *
 * Operations (`workflow.ts`) describe *what* to send; this module decides *how*: which attempts may be
 * repeated, how long to wait, how a failure is named. Credentials never leave it in readable form:
 * every text that reaches an error passes through a {@link SecretRedactor}. The bytes of one attempt
 * are moved by `exchange.ts`.
 */

import https from 'node:https';
import { Readable } from 'node:stream';
import { setTimeout as sleepFor } from 'node:timers/promises';
import packageJson from '../../package.json' with { type: 'json' };
import { ConfigError, parseJson, type RetryPolicy, type RetryRun, retry } from '../core/index.ts';
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
import type {
  PdsAnswerEvent,
  PdsExpect,
  PdsQueryValue,
  PdsRequest,
  PdsRequestBody,
  PdsResponse,
  PdsResponseBody,
  PdsResponseHeaders,
  PdsRetryEvent,
  PdsTransportOptions,
} from './request.ts';
import {
  DEFAULT_RETRY,
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  pdsBackoff,
  type RetryOptions,
  rememberRetryAfter,
  retryAfterOf,
  shouldRetry,
} from './retry.ts';
import { checkCredentials, nonNegative, parseBaseUrl, positiveInteger } from './transport-options.ts';

export {
  headerOf,
  type PdsAnswerEvent,
  type PdsConditional,
  type PdsCredentials,
  type PdsExpect,
  type PdsHttpMethod,
  type PdsModified,
  type PdsNotModified,
  type PdsQueryValue,
  type PdsRequest,
  type PdsRequestBody,
  type PdsResponse,
  type PdsResponseBody,
  type PdsResponseHeaders,
  type PdsRetryEvent,
  type PdsTransportOptions,
} from './request.ts';

/** Sent on every request, e.g. `pds-bridge/0.1.0 (+node v24.21.0)`. */
export const USER_AGENT = `pds-bridge/${packageJson.version} (+node ${process.version})`;

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
  /**
   * The retry policy of each kind of request (repeatable or not × replayable or not), and the run
   * of a request without a signal: built once, so that a request that succeeds allocates nothing its
   * failures alone would need.
   */
  readonly #policies: readonly RetryPolicy[];
  readonly #run: RetryRun;
  /** Names an attempt's lower-level failure (see {@link PdsTransport.#toPdsError}); one function for all. */
  readonly #nameFailure = (error: unknown, line: PdsRequestLine): PdsError => this.#toPdsError(error, line);
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
    this.#policies = this.#retryPolicies();
    this.#run = this.#retryRun(undefined);

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
    const policy = this.#policies[policyIndex(repeatable, replayable)] as RetryPolicy;
    return retry(
      async () => {
        const started = performance.now();
        try {
          const response = await this.#attempt(request, line, headers, body);
          this.#reportAnswer(line, response.status, started);
          return response;
        } catch (caught) {
          if (request.signal?.aborted) throw request.signal.reason;
          const error = caught instanceof PdsError ? caught : this.#toPdsError(caught, line);
          this.#reportAnswer(line, error instanceof PdsHttpError ? error.status : undefined, started);
          throw error;
        }
      },
      policy,
      request.signal ? this.#retryRun(request.signal) : this.#run,
    );
  }

  /** The policy of each kind of request, at its {@link policyIndex}. */
  #retryPolicies(): RetryPolicy[] {
    const policies: RetryPolicy[] = [];
    for (const repeatable of [true, false]) {
      for (const replayable of [true, false]) {
        policies[policyIndex(repeatable, replayable)] = {
          ...pdsBackoff(this.#retry),
          retryable: (error, attempt) =>
            shouldRetry(error as PdsError, {
              attempt,
              maxAttempts: this.#retry.maxAttempts,
              repeatable,
              replayable,
            }),
          hint: (error) => retryAfterOf(error as PdsError),
        };
      }
    }
    return policies;
  }

  /**
   * The run of a request: the shared one, or one with the request's signal. `onRetry` reports the
   * request line from the error, which every failure of a request carries (PdsError's method and
   * path), so no request builds a report function of its own.
   */
  #retryRun(signal: AbortSignal | undefined): RetryRun {
    const onRetry = this.#onRetry;
    return {
      sleep: this.#sleep,
      random: this.#random,
      ...(signal ? { signal } : {}),
      ...(onRetry && {
        onRetry: (event) => {
          const error = event.error as PdsError;
          onRetry({ ...event, error, method: error.method, path: error.path });
        },
      }),
    };
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
    const sent = exchange(this.#target, { line, headers, body, signal }, this.#nameFailure);
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
      await response.body.drain();
      return answer(undefined);
    }
    if (status < 200 || status > 299) {
      const text = await response.body.excerpt(ERROR_BODY_READ_LIMIT);
      const retryAfterMs =
        status === 429 || status === 503 ? parseRetryAfter(responseHeaders['retry-after']) : undefined;
      const error = httpErrorFor(status, line, this.#redactor.redact(text), retryAfterMs);
      if (retryAfterMs !== undefined) rememberRetryAfter(error, retryAfterMs);
      throw error;
    }

    switch (expect) {
      case 'stream':
        // Its errors are PdsErrors already, and destroying it releases the connection (answer-body.ts).
        return answer(response.body.stream());
      case 'none':
        // The status is the answer. A body that breaks now must not turn an accepted import or
        // publication into a failure the caller would repeat.
        await response.body.drain();
        return answer(undefined);
      default: {
        // Its failures are PdsErrors already (answer-body.ts).
        const text = await response.body.text(MAX_ANSWER_BYTES);
        if (text === undefined) {
          throw new PdsInvalidResponseError(
            `an answer of more than ${MAX_ANSWER_BYTES} bytes, more than the bridge reads into memory`,
            line,
          );
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
    if (request.query === undefined) return `${this.#prefix}${path}`;
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(request.query)) {
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
}

function policyIndex(repeatable: boolean, replayable: boolean): number {
  return (repeatable ? 2 : 0) + (replayable ? 1 : 0);
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
