/**
 * Repeats a PDS step of an ingest (the upload, one import) within the invocation after a transient
 * answer: 503, 429, a reset, a timeout.
 *
 * The transport never repeats these POSTs on its own, rightly: a gateway's 503 does not prove the PDS
 * did nothing. On the ingest path, though, the alternative is SQS delivering the message again, which
 * sends the very same request again (the step was not recorded as done). Repeating it here carries no
 * new risk and keeps a passing fault from costing one of the message's five receives. The bounds:
 * a few attempts, full-jitter back-off (packages/bridge/src/pds/retry.ts), the PDS's Retry-After honoured, and never
 * beyond the invocation's remaining time less a reserve to record the outcome and release the claim.
 */
import { sleep } from '../core/index.ts';
import {
  PdsError,
  PdsRateLimitedError,
  type RetryOptions,
  retryAfterOf,
  retryDelayMs,
} from '../pds/index.ts';

export interface StepRetryPolicy extends RetryOptions {
  /** Kept free at the end of the invocation to record the outcome and release the claim, in ms. */
  reserveMs: number;
}

/** The policy of the deployed function (`INGEST_PDS_ATTEMPTS` sets `maxAttempts`). */
export const DEFAULT_STEP_RETRY: StepRetryPolicy = Object.freeze({
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 30_000,
  // Recording the outcome and releasing the claim are a few S3 and SQS requests: seconds at worst.
  reserveMs: 10_000,
});

export interface StepRetryOptions extends StepRetryPolicy {
  /** Time left in this invocation, in ms (Lambda's `context.getRemainingTimeInMillis`). */
  remainingMs: () => number;
  /** Defaults to Math.random. */
  random?: () => number;
  /** Defaults to a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** One repetition, for logs and metrics. */
export interface StepRetryEvent {
  step: 'upload' | 'import';
  /** The attempt that failed, starting at 1. */
  attempt: number;
  delayMs: number;
  error: PdsError;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the attempts or the time run out; then throws
 * the last error (for SQS to retry, as before). Without `options`, runs it once.
 *
 * A Retry-After longer than `maxRetryAfterMs` is not shortened: the step is left to SQS instead.
 *
 * @example
 * ```ts
 * const entries = await retryPdsStep('upload', () => uploadOnce(write), {
 *   ...DEFAULT_STEP_RETRY,
 *   remainingMs: () => context.getRemainingTimeInMillis(),
 * }, (event) => log.info('Repeating a PDS step', event));
 * ```
 */
export async function retryPdsStep<T>(
  step: StepRetryEvent['step'],
  attempt: () => Promise<T>,
  options: StepRetryOptions | undefined,
  onRetry: (event: StepRetryEvent) => void = () => {},
): Promise<T> {
  for (let attempts = 1; ; attempts++) {
    try {
      return await attempt();
    } catch (error) {
      const delayMs = options ? delayBeforeRepeat(error, attempts, options) : undefined;
      if (options === undefined || delayMs === undefined) throw error;
      onRetry({ step, attempt: attempts, delayMs, error: error as PdsError });
      await (options.sleep ?? sleep)(delayMs);
    }
  }
}

/** The wait before repeating the step, or undefined when it must not be repeated here. */
function delayBeforeRepeat(error: unknown, attempt: number, options: StepRetryOptions): number | undefined {
  if (!(error instanceof PdsError) || !error.retryable || attempt >= options.maxAttempts) return undefined;
  const retryAfterMs =
    retryAfterOf(error) ?? (error instanceof PdsRateLimitedError ? error.retryAfterMs : undefined);
  if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs) return undefined;
  const delayMs = retryDelayMs(attempt, retryAfterMs, options, options.random ?? Math.random);
  return options.remainingMs() - delayMs > options.reserveMs ? delayMs : undefined;
}
