/**
 * When a failed delivery is tried again (docs/webhooks.md, "Retries"): after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 14 h, 20 h and 20 h — ten attempts over about three days (71.6 h without jitter)
 * — each delay drawn within ±20 % (jitter), never sooner than a Retry-After the endpoint sent
 * (capped at 24 h). After the last attempt the delivery is `failed` in the delivery log, and a
 * replay can send it again.
 */

/** Delay before attempt n+1 after attempt n failed, in seconds (index 0: after the first attempt). */
export const RETRY_SCHEDULE_SECONDS = Object.freeze([
  5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 72_000,
]);

/** Attempts of one delivery, the first included. */
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;

/** Longest Retry-After honoured, in seconds. */
export const MAX_RETRY_AFTER_SECONDS = 86_400;

/**
 * The delay in ms before the attempt after `attempt` (1-based) failed, or `undefined` when it was the
 * last. `random` in [0, 1) draws the jitter.
 *
 * @example
 * ```ts
 * retryDelayMs(1, { random: () => 0.5 }); // 5000
 * retryDelayMs(1, { retryAfterSeconds: 60, random: () => 0.5 }); // 60000
 * retryDelayMs(10, {}); // undefined
 * ```
 */
export function retryDelayMs(
  attempt: number,
  options: { retryAfterSeconds?: number | undefined; random?: () => number } = {},
): number | undefined {
  const base = RETRY_SCHEDULE_SECONDS[attempt - 1];
  if (base === undefined) return undefined;
  const random = options.random ?? Math.random;
  const jittered = base * 1000 * (0.8 + 0.4 * random());
  const retryAfter = Math.min(options.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS) * 1000;
  return Math.round(Math.max(jittered, retryAfter));
}

/**
 * Seconds a Retry-After header asks for (delta-seconds or an HTTP date), or `undefined`.
 *
 * @example
 * ```ts
 * parseRetryAfter('120', new Date()); // 120
 * ```
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

/** Consecutive failed attempts of an endpoint that open its circuit breaker. */
export const BREAKER_THRESHOLD = 5;

/**
 * How long an endpoint's breaker stays open after its `failures`-th consecutive failure: 30 s at the
 * threshold, doubling per further failure, at most 15 min. While open, deliveries to it wait (no
 * attempt is spent); the first attempt after it closes decides (half-open).
 */
export function breakerOpenMs(failures: number): number {
  if (failures < BREAKER_THRESHOLD) return 0;
  return Math.min(30_000 * 2 ** (failures - BREAKER_THRESHOLD), 900_000);
}
