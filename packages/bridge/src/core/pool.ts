/**
 * Bounded concurrency, written once: a semaphore capping how many calls run at once, `mapLimit`, which
 * keeps every outcome, and `mapAll`, which fails like `Promise.all`. Results always keep the items'
 * order.
 */
import { checkInteger } from './options.ts';

/** Runs `task` once a slot is free and frees the slot when it settles. */
export type Limiter = <T>(task: () => Promise<T>) => Promise<T>;

/** The outcome of one item: its value, or what it threw. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

function checkLimit(limit: number): void {
  checkInteger('A concurrency limit', limit, { min: 1 });
}

/**
 * A semaphore with `limit` slots; callers wait in arrival order.
 *
 * @example
 * ```ts
 * const limit = createLimiter(8);
 * const xml = await limit(() => pds.getMessagingAsset(42)); // at most 8 such calls in flight
 * ```
 */
export function createLimiter(limit: number): Limiter {
  checkLimit(limit);
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

export interface MapLimitOptions {
  /** Items not yet started when this returns true are left out of the result (`started` stays false). */
  shouldStop?: () => boolean;
}

/**
 * Starts `min(limit, items)` workers that take the next index until none is left or `stop` says so.
 * Resolves when every worker is done; rejects as soon as `run` throws (the other workers go on).
 */
async function runWorkers(
  count: number,
  limit: number,
  run: (index: number) => Promise<void>,
  stop?: () => boolean,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      if (stop?.()) return;
      await run(next++);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
}

/**
 * Calls `fn` on every item with at most `limit` calls in flight; one failure never stops the others.
 * Results keep the items' order. Items skipped because `shouldStop` said so come back as `undefined`.
 *
 * @example
 * ```ts
 * const results = await mapLimit([1, 2, 3], 2, async (id) => pds.getMessagingAsset(id));
 * results.filter((result) => result?.ok === false).length; // failed fetches
 * ```
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  options: MapLimitOptions = {},
): Promise<Array<Settled<R> | undefined>> {
  checkLimit(limit);
  const results: Array<Settled<R> | undefined> = new Array(items.length).fill(undefined);
  await runWorkers(
    items.length,
    limit,
    async (index) => {
      try {
        results[index] = { ok: true, value: await fn(items[index] as T, index) };
      } catch (error) {
        results[index] = { ok: false, error };
      }
    },
    options.shouldStop,
  );
  return results;
}

/**
 * Calls `fn` on every item with at most `limit` calls in flight and resolves with the results in the
 * items' order; rejects with the first error, like `Promise.all` (calls already started still finish,
 * no new one starts in the failed worker).
 *
 * @example
 * ```ts
 * const outcomes = await mapAll(batches, 4, (batch) => sendBatch(batch));
 * ```
 */
export async function mapAll<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  checkLimit(limit);
  const results: R[] = new Array(items.length);
  await runWorkers(items.length, limit, async (index) => {
    results[index] = await fn(items[index] as T, index);
  });
  return results;
}
