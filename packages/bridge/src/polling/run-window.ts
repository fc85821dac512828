/**
 * What a scheduled run needs from the Lambda around it: how long it may work (so it stops starting
 * pages or keys in time to write its checkpoint) and how long its lease must last (longer than the
 * invocation can live, so no other run can take it over while this one still works).
 */

/** Part of the Lambda context the pollers read. */
export interface RemainingTime {
  getRemainingTimeInMillis(): number;
}

export interface RunWindow {
  /** Epoch ms after which no new page or key is started. */
  deadline: number;
  /** Lease TTL: the remaining time plus a minute. */
  leaseTtlMs: number;
}

/** Time kept back at the end of an invocation for the last publish and checkpoint write. */
export const STOP_MARGIN_MS = 20_000;

/**
 * The window of one invocation.
 *
 * @example
 * const { deadline, leaseTtlMs } = runWindow(context); // 300 s timeout → stop starting work after ~280 s
 */
export function runWindow(context: RemainingTime, now = Date.now()): RunWindow {
  const remaining = Math.max(0, context.getRemainingTimeInMillis());
  // Short invocations (tests, manual runs) keep a fifth of their time back instead of 20 s.
  const margin = Math.min(STOP_MARGIN_MS, Math.floor(remaining / 5));
  return { deadline: now + remaining - margin, leaseTtlMs: remaining + 60_000 };
}
