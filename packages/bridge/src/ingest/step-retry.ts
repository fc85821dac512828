/**
 * Repeats a PDS step of an ingest (the upload, one import) within the invocation after a transient
 * answer: 503, 429, a reset, a timeout.
 *
 * The transport never repeats these POSTs on its own, rightly: a gateway's 503 does not prove the PDS
 * did nothing. On the ingest path, though, the alternative is SQS delivering the message again, which
 * sends the very same request again (the step was not recorded as done). Repeating it here carries no
 * new risk and keeps a passing fault from costing one of the message's five receives. The bounds:
 * a few attempts, full-jitter back-off, the PDS's Retry-After honoured, and never beyond the
 * invocation's remaining time less a reserve to record the outcome and release the claim: the core's
 * policy (packages/bridge/src/core/retry.ts) with the PDS's numbers; the invocation's retry budget is shared with the
 * transport underneath, so a PDS outage costs the budget's retries, not steps x transport attempts.
 */
import { retry } from '../core/index.ts';
import { PdsError, PdsRateLimitedError, pdsBackoff, type RetryOptions, retryAfterOf } from '../pds/index.ts';

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
  if (options === undefined) return attempt();
  const { remainingMs, random, sleep } = options;
  const hint = (error: unknown) =>
    retryAfterOf(error as PdsError) ??
    (error instanceof PdsRateLimitedError ? error.retryAfterMs : undefined);
  return retry(
    attempt,
    {
      ...pdsBackoff(options),
      // A Retry-After longer than maxRetryAfterMs is not shortened: the step is left to SQS instead.
      retryable: (error) =>
        error instanceof PdsError && error.retryable && !((hint(error) ?? 0) > options.maxRetryAfterMs),
      hint,
      reserveMs: options.reserveMs,
    },
    {
      remainingMs,
      ...(random && { random }),
      ...(sleep && { sleep }),
      onRetry: ({ attempt: failed, delayMs, error }) =>
        onRetry({ step, attempt: failed, delayMs, error: error as PdsError }),
    },
  );
}
