/**
 * When the transport may send a request again, and how long it waits first.
 *
 * Pure functions, so the rules can be tested without a network and read in one place.
 */
import { type RetryPolicy, retryDelay } from '../core/index.ts';
import { type PdsError, PdsHttpError, PdsNetworkError, PdsTimeoutError } from './errors.ts';

export interface RetryOptions {
  /** Attempts in total, the first included. Default 4. */
  maxAttempts: number;
  /** Base of the exponential backoff in ms. Default 200. */
  baseDelayMs: number;
  /** Upper bound of one backoff wait in ms. Default 10 000. */
  maxDelayMs: number;
  /** Longest Retry-After the transport honours, in ms; longer requests are shortened to this. Default 30 000. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 30_000,
};

/** Methods whose repetition has the same effect as one request (RFC 9110 §9.2.2). */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Statuses that say "not now" rather than "not like this". */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export interface RetryContext {
  /** The attempt that just failed, starting at 1. */
  attempt: number;
  maxAttempts: number;
  /** Repeating the request is harmless (idempotent method, or a POST flagged idempotent). */
  repeatable: boolean;
  /** The body can be produced again (no body, bytes, or a body factory; not a one-shot stream). */
  replayable: boolean;
}

/**
 * Whether the failed attempt may be repeated.
 *
 * A request that provably never reached the server (refused, name not resolved, connect timeout) is
 * repeated whatever its method. Anything else is repeated only when the request is repeatable:
 *
 * 429 and 503 on a non-idempotent POST are NOT retried here. The status may come from any hop (a
 * gateway, a load balancer) and says nothing certain about whether the origin already acted on the
 * request: a gateway answers 503 or 504 when the origin was too slow, while the origin may still finish
 * the import or publication. Sending it again could import or publish twice. The error carries
 * `retryable: true` (and `retryAfterMs` for 429), so the layer that owns idempotency (SQS redelivery with
 * idempotency records) decides whether and when to repeat the whole step.
 *
 * @example
 * ```ts
 * shouldRetry(new PdsServerError(503, line, ''), { attempt: 1, maxAttempts: 4, repeatable: true, replayable: true }); // true
 * ```
 */
export function shouldRetry(error: PdsError, context: RetryContext): boolean {
  if (context.attempt >= context.maxAttempts || !context.replayable) return false;
  if (neverReachedServer(error)) return true;
  if (!context.repeatable) return false;
  if (error instanceof PdsNetworkError || error instanceof PdsTimeoutError) return true;
  return error instanceof PdsHttpError && RETRYABLE_STATUSES.has(error.status);
}

/** True when the failure happened before any byte of the request could reach the server. */
export function neverReachedServer(error: PdsError): boolean {
  if (error instanceof PdsNetworkError) return !error.reachedServer;
  return error instanceof PdsTimeoutError && error.phase === 'connect';
}

/**
 * The PDS numbers in the terms of the bridge's one retry policy (packages/bridge/src/core/retry.ts): what the
 * transport and the ingest steps state, besides which errors they retry.
 */
export function pdsBackoff(options: RetryOptions): RetryPolicy {
  return {
    maxAttempts: options.maxAttempts,
    baseDelayMs: options.baseDelayMs,
    maxDelayMs: options.maxDelayMs,
    maxHintMs: options.maxRetryAfterMs,
  };
}

/**
 * Wait before the next attempt: the server's Retry-After when it sent one (capped at `maxRetryAfterMs`),
 * otherwise exponential backoff with full jitter, `random() * min(maxDelayMs, baseDelayMs * 2^(attempt-1))`
 * (packages/bridge/src/core/retry.ts computes both).
 *
 * @param attempt the attempt that just failed, starting at 1
 * @param random a function returning [0, 1), injectable for tests
 */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  options: RetryOptions,
  random: () => number,
): number {
  return retryDelay(pdsBackoff(options), attempt, { retryAfterMs }, random) ?? options.maxRetryAfterMs;
}

/**
 * Parses a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3). Undefined when absent or
 * unreadable; a date in the past gives 0.
 *
 * @example
 * ```ts
 * parseRetryAfter('3'); // 3000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')); // 2000
 * ```
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Retry-After of a failed attempt, kept beside the error the caller will see. */
const retryAfters = new WeakMap<PdsError, number>();

/** Keeps the Retry-After (ms) the server sent with the answer behind `error`. */
export function rememberRetryAfter(error: PdsError, retryAfterMs: number): void {
  retryAfters.set(error, retryAfterMs);
}

/**
 * The Retry-After (ms) the PDS sent with the 429 or 503 behind `error`, when it sent one; for callers
 * that repeat a step the transport does not repeat itself (see {@link shouldRetry}).
 *
 * @example
 * ```ts
 * const waitMs = retryAfterOf(error) ?? retryDelayMs(attempt, undefined, DEFAULT_RETRY, Math.random);
 * ```
 */
export function retryAfterOf(error: PdsError): number | undefined {
  return retryAfters.get(error);
}
