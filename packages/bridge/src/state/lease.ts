/**
 * Leases on the state store: "a run never overlaps itself".
 *
 * A lease is one object under `leases/<name>.json`, claimed with the primitive of ./claim.ts: taking a
 * free lease is a conditional create; taking over an expired one, renewing and releasing are
 * conditional on the ETag the holder read, so of two runs racing for the same lease exactly one wins. A holder that outlives its TTL without renewing
 * can be overtaken: keep the TTL above the longest run, or renew as the run goes.
 *
 * @example
 * ```ts
 * const lease = await acquireLease(store, 'poll-supplier-reviews', 5 * 60_000, context.awsRequestId);
 * if (!lease) return; // another run holds it
 * try {
 *   // ... the run ...
 * } finally {
 *   await releaseLease(store, lease);
 * }
 * ```
 */
import { randomUUID } from 'node:crypto';
import { OptionError } from '../core/index.ts';
import { acquireClaim, advanceClaim, type Claim, releaseClaim } from './claim.ts';
import { leaseKey } from './keys.ts';
import type { StateStore } from './store.ts';

/** What is stored for a lease. */
export interface LeaseRecord {
  /** Who holds it, for operators (an invocation id, a host name). */
  owner: string;
  /** New for every acquisition, so a stale holder's record is told apart from a fresh one. */
  token: string;
  /** Epoch milliseconds. */
  acquiredAt: number;
  /** Epoch milliseconds after which anyone may take the lease over. */
  expiresAt: number;
  /**
   * How the latest run that gave the lease back with an outcome ended (see {@link releaseLease}); kept
   * across acquisitions, so operators read "last run" and "last successful run" here (`pds bridge status`).
   */
  lastRun?: LeaseRunOutcome;
  /** Epoch milliseconds at which the latest successful run ended; kept across acquisitions. */
  lastSuccessAt?: number;
}

/** How one run under a lease ended. */
export interface LeaseRunOutcome {
  /** Who ran (the lease's owner). */
  owner: string;
  /** Epoch milliseconds at which the run started (acquired the lease). */
  startedAt: number;
  /** Epoch milliseconds at which it ended. */
  endedAt: number;
  ok: boolean;
  /** Why it did not succeed; at most 500 characters. */
  error?: string;
}

/** A held lease; pass it to {@link renewLease} and {@link releaseLease}. */
export interface Lease extends Readonly<LeaseRecord> {
  readonly name: string;
  readonly key: string;
  readonly etag: string;
}

export interface LeaseOptions {
  /** Clock in epoch milliseconds; defaults to Date.now. */
  readonly now?: () => number;
}

/** Now, and the end of a lease taken or renewed now for `ttlMs` (checked: a positive number). */
function leaseWindow(ttlMs: number, options: LeaseOptions): { now: number; expiresAt: number } {
  // Not checkDurationMs: that allows 0, and a lease that expires as it is taken excludes nobody.
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new OptionError('ttlMs', `Lease TTL must be a positive number of milliseconds, got ${ttlMs}`);
  }
  const now = (options.now ?? Date.now)();
  return { now, expiresAt: now + ttlMs };
}

function leaseOf(name: string, claim: Claim<LeaseRecord>): Lease {
  return { ...claim.record, name, key: claim.key, etag: claim.etag };
}

/**
 * Takes the lease `name` for `ttlMs` if it is free or expired; `undefined` when someone else holds it
 * (or won the race for it).
 *
 * @example
 * ```ts
 * const lease = await acquireLease(store, 'poll-supplier-reviews', 5 * 60_000, context.awsRequestId);
 * ```
 */
export async function acquireLease(
  store: StateStore,
  name: string,
  ttlMs: number,
  owner: string,
  options: LeaseOptions = {},
): Promise<Lease | undefined> {
  const { now, expiresAt } = leaseWindow(ttlMs, options);
  // A take-over writes a whole new record: of the expired holder's, only the run history is kept.
  const record: LeaseRecord = { owner, token: randomUUID(), acquiredAt: now, expiresAt };
  const result = await acquireClaim(
    store,
    leaseKey(name),
    {
      leaseEnd: (current) => current.expiresAt,
      fresh: () => record,
      takeOver: (current) => ({ ...record, ...runHistory(current) }),
    },
    { now: () => now },
  );
  return result.outcome === 'acquired' ? leaseOf(name, result.claim) : undefined;
}

/**
 * Extends a held lease to `ttlMs` from now; `undefined` when it was lost (taken over or released), in
 * which case the run should stop.
 *
 * @example
 * ```ts
 * const renewed = await renewLease(store, lease, 5 * 60_000);
 * if (!renewed) return; // another run took it over
 * ```
 */
export async function renewLease(
  store: StateStore,
  lease: Lease,
  ttlMs: number,
  options: LeaseOptions = {},
): Promise<Lease | undefined> {
  const { expiresAt } = leaseWindow(ttlMs, options);
  const record: LeaseRecord = { ...claimOf(lease).record, expiresAt };
  const step = await advanceClaim(store, claimOf(lease), record);
  return step.outcome === 'advanced' ? leaseOf(lease.name, step.claim) : undefined;
}

/**
 * Gives the lease back so the next run need not wait for it to expire. Returns false when it had
 * already been taken over (the record is then left alone). Without `outcome` the record is deleted;
 * with it, the record stays, expired, and says how the run ended (`lastRun`, and `lastSuccessAt` when
 * it succeeded), which the next holder keeps.
 *
 * @example
 * ```ts
 * await releaseLease(store, lease);
 * await releaseLease(store, lease, { ok: false, error: 'PDS unavailable' });
 * ```
 */
export async function releaseLease(
  store: StateStore,
  lease: Lease,
  outcome?: { ok: boolean; error?: string },
  options: LeaseOptions = {},
): Promise<boolean> {
  const claim = claimOf(lease);
  if (outcome === undefined) return (await releaseClaim(store, claim)).outcome === 'released';
  const endedAt = (options.now ?? Date.now)();
  const lastRun: LeaseRunOutcome = {
    owner: lease.owner,
    startedAt: lease.acquiredAt,
    endedAt,
    ok: outcome.ok,
    ...(outcome.ok || outcome.error === undefined ? {} : { error: outcome.error.slice(0, 500) }),
  };
  const final: LeaseRecord = {
    ...claim.record,
    expiresAt: 0,
    lastRun,
    ...(outcome.ok ? { lastSuccessAt: endedAt } : {}),
  };
  return (await releaseClaim(store, claim, final)).outcome === 'released';
}

/** The run history of a record, carried to the next holder. */
function runHistory(record: LeaseRecord): Pick<LeaseRecord, 'lastRun' | 'lastSuccessAt'> {
  return {
    ...(record.lastRun ? { lastRun: record.lastRun } : {}),
    ...(record.lastSuccessAt !== undefined ? { lastSuccessAt: record.lastSuccessAt } : {}),
  };
}

function claimOf(lease: Lease): Claim<LeaseRecord> {
  const { owner, token, acquiredAt, expiresAt } = lease;
  return {
    key: lease.key,
    etag: lease.etag,
    record: { owner, token, acquiredAt, expiresAt, ...runHistory(lease) },
  };
}
