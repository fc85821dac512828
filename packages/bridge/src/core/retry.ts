/**
 * The one retry policy of the bridge: every loop that tries something again within an invocation
 * runs here, and each caller states only what differs from the defaults (attempts, waits, which
 * extra errors are retried). A test (test/unit/retry-loops.test.ts) fails when a retry loop is
 * written anywhere else in the bridge.
 *
 * - **Attempts**: `maxAttempts`, the first included.
 * - **Waits**: exponential back-off with full jitter, `random() * min(maxDelayMs, baseDelayMs * 2^(n-1))`
 *   after failed attempt n, rounded down to whole ms (`jitter: 'none'` for exact waits). A delay hint
 *   the error carries (a server's Retry-After as `retryAfterMs`) replaces the back-off, capped at
 *   `maxHintMs` (a caller that must not wait that long says so in its `retryable` rule).
 * - **Which errors**: those the error model marks `retryable` (packages/bridge/src/core/errors.ts) unless the caller
 *   names its own rule.
 * - **Deadline**: never a wait that ends within `reserveMs` of the invocation's end, when the
 *   remaining time is known (given, or the invocation's scope).
 * - **Budget**: one {@link RetryBudget} per invocation, shared by every layer that retries inside it
 *   (the handler edge opens it, packages/bridge/src/lambda/handler.ts), so a PDS outage under a step that retries a call the
 *   transport already retried costs the budget's retries, not attempts × attempts. A token bucket in
 *   the spirit of the AWS SDKs' standard retry mode: each retry spends tokens (a timeout more), each
 *   success gives a little back. Outside any scope (scripts, tests) only the attempts bound a loop.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

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
 * exponential back-off without jitter. A schedule (SQS visibility delays), not a loop: loops use
 * {@link retry}.
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
 * Resolves after `ms` milliseconds: the default sleep of the policy (tests inject their own).
 *
 * @example
 * ```ts
 * await sleep(250);
 * ```
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

/** What a caller states about its retries; every field but `maxAttempts` has a default. */
export interface RetryPolicy {
  /** Attempts in total, the first included (1: never retried). */
  readonly maxAttempts: number;
  /** Ceiling of the wait after the first failure, in ms. Default 100. */
  readonly baseDelayMs?: number;
  /** Largest wait, in ms. Default 10 000. */
  readonly maxDelayMs?: number;
  /** `'full'` (default): a random wait up to the back-off; `'none'`: the back-off itself. */
  readonly jitter?: 'full' | 'none';
  /**
   * Which failures are tried again (`attempt` is the one that failed). Default {@link isRetryable}:
   * the error model's `retryable`.
   */
  readonly retryable?: (error: unknown, attempt: number) => boolean;
  /** The delay the failure asks for (a Retry-After), in ms. Default: the error's `retryAfterMs`. */
  readonly hint?: (error: unknown) => number | undefined;
  /** Longest hint honoured, in ms: a longer one waits this long. Default 30 000. */
  readonly maxHintMs?: number;
  /** Time kept free before the invocation's end, in ms: no wait ends inside it. Default 0. */
  readonly reserveMs?: number;
}

/** What one run of a loop is given besides its policy: injected clocks, hooks and bounds. */
export interface RetryRun {
  /** Waits between attempts. Default a timer; with `signal`, the wait ends when it aborts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Returns [0, 1): the jitter. Default Math.random. */
  readonly random?: () => number;
  /** Time left in the invocation, in ms. Default: the invocation scope's, else unbounded. */
  readonly remainingMs?: () => number;
  /** The budget retries spend. Default: the invocation scope's, else none. */
  readonly budget?: RetryBudget;
  /** Stops the loop: checked before each attempt and passed to `sleep`. */
  readonly signal?: AbortSignal;
  /** Called before each wait (logs, metrics); a throwing hook never fails the call. */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** One retry about to happen. */
export interface RetryEvent {
  /** The attempt that failed, starting at 1. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

/**
 * The default rule: an error whose `retryable` is `true` (every error of the bridge says, see
 * packages/bridge/src/core/errors.ts). An AWS SDK error is not: the SDK has retried it already.
 */
export function isRetryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}

function hintOf(error: unknown): number | undefined {
  const hinted = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
  return typeof hinted === 'number' ? hinted : undefined;
}

/**
 * The wait after failed attempt `attempt` under `policy`: the error's hint, else the back-off. Pure:
 * no budget, no deadline.
 *
 * @example
 * ```ts
 * retryDelay({ maxAttempts: 4, baseDelayMs: 200 }, 2, new Error('reset'), () => 0.5); // 200
 * ```
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  error: unknown,
  random: () => number = Math.random,
): number {
  const hinted = (policy.hint ?? hintOf)(error);
  if (hinted !== undefined) return retryAfterDelayMs(hinted, policy.maxHintMs ?? 30_000);
  const baseMs = policy.baseDelayMs ?? 100;
  const maxMs = policy.maxDelayMs ?? 10_000;
  return Math.floor(backoffDelayMs(attempt, { baseMs, maxMs }, policy.jitter === 'none' ? () => 1 : random));
}

/** Tokens one retry spends (the AWS SDKs' standard retry quota: 500 tokens, 5 a retry, 10 after a timeout, 1 back per success). */
export const RETRY_COST = 5;
/** Tokens a retry after a timeout spends (the other side may be overloaded). */
export const TIMEOUT_COST = 10;

/**
 * The retries one invocation may still make, across every layer that retries inside it: `capacity`
 * tokens (default 500). A retry spends {@link RETRY_COST} ({@link TIMEOUT_COST} after an error whose
 * code ends in `TIMEOUT`); a call that succeeds after retries gives the cost of its last retry back,
 * one that succeeds at once gives 1; never above `capacity`. Empty, every loop ends at its current
 * attempt with the error in hand.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget(20); // four retries
 * await withRetryScope({ budget }, () => handle(event));
 * ```
 */
export class RetryBudget {
  readonly #capacity: number;
  #tokens: number;

  constructor(capacity = 500) {
    this.#capacity = this.#tokens = capacity;
  }

  /** Tokens left. */
  get available(): number {
    return this.#tokens;
  }

  /** Spends the cost of retrying after `error` and returns it; 0 (nothing spent) when the budget cannot pay. */
  spend(error: unknown): number {
    const code = (error as { code?: unknown } | null)?.code;
    const cost = typeof code === 'string' && code.endsWith('TIMEOUT') ? TIMEOUT_COST : RETRY_COST;
    if (cost > this.#tokens) return 0;
    this.#tokens -= cost;
    return cost;
  }

  /** A call succeeded: `spent` is what its last retry cost (0 when it needed none: 1 comes back). */
  refund(spent: number): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (spent || 1));
  }
}

/** What one invocation's retries share. */
export interface RetryScope {
  readonly budget?: RetryBudget | undefined;
  /** Time left in the invocation, in ms (Lambda's `context.getRemainingTimeInMillis`). */
  readonly remainingMs?: (() => number) | undefined;
}

const scopes = new AsyncLocalStorage<RetryScope>();

/**
 * Runs `work` with `scope` as the retry scope of everything inside it, across awaits: every loop run
 * by {@link retry} without its own budget or deadline uses the scope's.
 *
 * @example
 * ```ts
 * await withRetryScope({ budget: new RetryBudget(), remainingMs: () => context.getRemainingTimeInMillis() }, run);
 * ```
 */
export function withRetryScope<T>(scope: RetryScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The retry scope of the work in progress, if any. */
export function currentRetryScope(): RetryScope | undefined {
  return scopes.getStore();
}

/**
 * Runs `attempt` until it succeeds or the policy gives up (not retryable, attempts spent, the
 * deadline, the budget), then throws the last error as it came.
 *
 * @example
 * ```ts
 * const body = await retry(() => fetchPage(cursor), { maxAttempts: 4, baseDelayMs: 200 }, {
 *   onRetry: (event) => log.info('Fetching again', { attempt: event.attempt, delayMs: event.delayMs }),
 * });
 * ```
 */
export async function retry<T>(
  attempt: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  run: RetryRun = {},
): Promise<T> {
  const scope = scopes.getStore();
  const budget = run.budget ?? scope?.budget;
  const remainingMs = run.remainingMs ?? scope?.remainingMs;
  const { signal } = run;
  let spent = 0;
  for (let number = 1; ; number++) {
    signal?.throwIfAborted();
    try {
      const value = await attempt(number);
      budget?.refund(spent);
      return value;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const delayMs =
        number < policy.maxAttempts && (policy.retryable ?? isRetryable)(error, number)
          ? retryDelay(policy, number, error, run.random)
          : -1;
      const late = remainingMs !== undefined && remainingMs() - delayMs <= (policy.reserveMs ?? 0);
      spent = delayMs < 0 || late ? 0 : (budget?.spend(error) ?? 1);
      if (!spent) throw error;
      try {
        run.onRetry?.({ attempt: number, delayMs, error });
      } catch {
        // A failing metrics or logging hook must not turn a recoverable call into a failed one.
      }
      await (run.sleep ?? sleep)(delayMs, signal).catch((failure: unknown) => {
        throw signal?.aborted ? signal.reason : failure;
      });
    }
  }
}

/**
 * Sends a batch whose items succeed or fail one by one (SQS SendMessageBatch, EventBridge PutEvents):
 * `attempt` sends `pending` and returns the items to try again (failed for now; `policy.retryable`
 * is not asked); they are sent again, alone, until none is left or the policy gives up. Returns the
 * items still failing and the attempts made; an error `attempt` throws ends the loop as it came.
 *
 * @example
 * ```ts
 * const { left, attempts } = await retryEach(entries, (pending) => sendOnce(pending), { maxAttempts: 4 });
 * ```
 */
export async function retryEach<T>(
  items: readonly T[],
  attempt: (pending: readonly T[], attempt: number) => Promise<readonly T[]>,
  policy: RetryPolicy,
  run: RetryRun = {},
): Promise<{ left: readonly T[]; attempts: number }> {
  let pending = items;
  let attempts = 0;
  try {
    await retry(
      async (number) => {
        attempts = number;
        pending = await attempt(pending, number);
        if (pending.length > 0) throw ITEMS_LEFT;
      },
      { ...policy, retryable: (error) => error === ITEMS_LEFT },
      run,
    );
  } catch (error) {
    if (error !== ITEMS_LEFT) throw error;
  }
  return { left: pending, attempts };
}

/** Some items of a batch failed for now (the service said no more). */
const ITEMS_LEFT = { code: 'ITEMS_LEFT' };
