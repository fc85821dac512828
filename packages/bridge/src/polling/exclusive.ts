/**
 * "A run never overlaps itself": a scheduled run holds a lease in the state store (packages/bridge/src/state/lease.ts)
 * while it works. A second run that starts meanwhile (a slow run, a retried invocation, an operator's
 * manual invoke) finds the lease held and returns at once. Reserved concurrency 1 in the deployment is
 * the first line; the lease also covers invocations the deployment does not control.
 */

import { errorSummary } from '../core/index.ts';
import { leaseKey, type StateStore } from '../state/index.ts';
import { acquireLease, type LeaseRecord, releaseLease } from '../state/lease.ts';

/** The leases of the scheduled pollers, one per function (their state keys are `leaseKey(name)`). */
export const POLLER_LEASES = Object.freeze({
  messagingAssets: 'poll-messaging-assets',
  supplierReviews: 'poll-supplier-reviews',
} as const);

export interface ExclusiveOptions<T = unknown> {
  /** Lease name, e.g. `poll-messaging-assets`. */
  name: string;
  /** Longer than the run can last (the handler uses the Lambda's remaining time plus a margin). */
  ttlMs: number;
  /** Who runs, e.g. the Lambda request id. */
  owner: string;
  now?: () => number;
  /**
   * Says whether the run's value is a success. When given, the lease record is kept when the run ends
   * and records how it ended (`lastRun`, `lastSuccessAt`: packages/bridge/src/state/lease.ts); a throw is a failure.
   * Without it the lease record is deleted.
   */
  succeeded?: (value: T) => boolean | { ok: false; error: string };
}

/** The run's value, or who held the lease when it did not run. */
export type ExclusiveResult<T> =
  | { ran: true; value: T }
  | { ran: false; heldBy: string | undefined; expiresAt: string | undefined };

/**
 * Runs `fn` while holding the lease `name`; does not run it when the lease is held by someone else.
 * The lease is released when `fn` settles, whether it succeeded or threw.
 *
 * @example
 * const result = await runExclusive(store, { name: 'poll-messaging-assets', ttlMs: 360_000, owner: requestId }, () => poll());
 * if (!result.ran) logger.info('Another run holds the lease', { heldBy: result.heldBy });
 */
export async function runExclusive<T>(
  store: StateStore,
  options: ExclusiveOptions<T>,
  fn: () => Promise<T>,
): Promise<ExclusiveResult<T>> {
  const lease = await acquireLease(
    store,
    options.name,
    options.ttlMs,
    options.owner,
    options.now ? { now: options.now } : {},
  );
  if (!lease) {
    const holder = (await store.get<LeaseRecord>(leaseKey(options.name)))?.value;
    return {
      ran: false,
      heldBy: holder?.owner,
      expiresAt: holder ? new Date(holder.expiresAt).toISOString() : undefined,
    };
  }
  const release = (outcome?: { ok: boolean; error?: string }) =>
    // A lease that cannot be released expires after its TTL; that must not hide the run's own outcome.
    releaseLease(store, lease, outcome, options.now ? { now: options.now } : {}).catch(() => false);
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    await release(options.succeeded ? { ok: false, error: errorSummary(error) } : undefined);
    throw error;
  }
  const judged = options.succeeded?.(value);
  await release(
    judged === undefined
      ? undefined
      : judged === true
        ? { ok: true }
        : judged === false
          ? { ok: false }
          : judged,
  );
  return { ran: true, value };
}
