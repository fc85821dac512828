/**
 * The one back-off computation of the bridge's retry loops. Each loop keeps its own numbers (base,
 * cap, attempts) and only asks here how long to wait.
 */

/** Numbers of an exponential back-off. */
export interface BackoffPolicy {
  /** Ceiling of the wait after the first failure. */
  baseMs: number;
  /** Largest ceiling of any wait. */
  maxMs: number;
}

/** Doublings beyond this change nothing for any sane cap, and keep `2 ** n` finite. */
const MAX_EXPONENT = 52;

/**
 * The wait after failed attempt `attempt` (1 for the first): full jitter,
 * `random() * min(maxMs, baseMs * 2^(attempt-1))`, not rounded. Pass `random = () => 1` for a plain
 * exponential back-off without jitter (loops whose callers rely on exact delays).
 *
 * @param attempt the attempt that just failed, starting at 1
 * @param random returns [0, 1); defaults to Math.random
 *
 * @example
 * ```ts
 * backoffDelayMs(3, { baseMs: 100, maxMs: 5000 }, () => 1);   // 400
 * backoffDelayMs(3, { baseMs: 100, maxMs: 5000 }, () => 0.5); // 200
 * ```
 */
export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(0, attempt - 1), MAX_EXPONENT);
  return random() * Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}

/**
 * A server's Retry-After as a wait: never negative, at most `maxMs`.
 *
 * @example
 * ```ts
 * retryAfterDelayMs(90_000, 30_000); // 30000
 * ```
 */
export function retryAfterDelayMs(retryAfterMs: number, maxMs: number): number {
  return Math.min(Math.max(0, retryAfterMs), maxMs);
}

/**
 * Resolves after `ms` milliseconds: the default sleep of every retry loop (tests inject their own).
 *
 * @example
 * ```ts
 * await sleep(backoffDelayMs(attempt, policy));
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
