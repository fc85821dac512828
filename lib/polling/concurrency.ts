/**
 * Bounded concurrency, written once for both pollers: a semaphore that caps how many calls run at
 * the same time (the PDS never sees more than that many requests from one invocation), and a
 * `mapLimit` that runs a function over a list with such a cap and keeps every outcome.
 */

/** Runs `task` once a slot is free and frees the slot when it settles. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

function assertLimit(limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new RangeError(`A concurrency limit must be a positive integer, got ${String(limit)}`);
  }
}

/**
 * A semaphore with `limit` slots; callers wait in arrival order.
 *
 * @example
 * const limit = createLimiter(8);
 * const xml = await limit(() => pds.getMessagingAsset(42)); // at most 8 such calls in flight
 */
export function createLimiter(limit: number): Limiter {
  assertLimit(limit);
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    // The slot passes straight from a finishing task to the next waiter, so `active` never overshoots.
    try {
      return await task();
    } finally {
      release();
    }
  };
}

/** The outcome of one item: its value, or what it threw. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface MapLimitOptions {
  /** Items not yet started when this returns true are left out of the result (`started` stays false). */
  shouldStop?: () => boolean;
}

/**
 * Calls `fn` on every item with at most `limit` calls in flight; one failure never stops the others.
 * Results keep the items' order. Items skipped because `shouldStop` said so come back as `undefined`.
 *
 * @example
 * const results = await mapLimit([1, 2, 3], 2, async (id) => pds.getMessagingAsset(id));
 * results.filter((result) => result?.ok === false).length; // failed fetches
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  options: MapLimitOptions = {},
): Promise<Array<Settled<R> | undefined>> {
  assertLimit(limit);
  const results: Array<Settled<R> | undefined> = new Array(items.length).fill(undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      if (options.shouldStop?.()) return;
      const index = next++;
      try {
        results[index] = { ok: true, value: await fn(items[index] as T, index) };
      } catch (error) {
        results[index] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
