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

function checkTtl(ttlMs: number): void {
  // Not checkDurationMs: that allows 0, and a lease that expires as it is taken excludes nobody.
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new OptionError('ttlMs', `Lease TTL must be a positive number of milliseconds, got ${ttlMs}`);
  }
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
  checkTtl(ttlMs);
  const now = (options.now ?? Date.now)();
  // A take-over writes a whole new record: nothing of the expired holder's is kept.
  const record: LeaseRecord = { owner, token: randomUUID(), acquiredAt: now, expiresAt: now + ttlMs };
  const result = await acquireClaim(
    store,
    leaseKey(name),
    { leaseEnd: (current) => current.expiresAt, fresh: () => record, takeOver: () => record },
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
  checkTtl(ttlMs);
  const now = (options.now ?? Date.now)();
  const record: LeaseRecord = {
    owner: lease.owner,
    token: lease.token,
    acquiredAt: lease.acquiredAt,
    expiresAt: now + ttlMs,
  };
  const step = await advanceClaim(store, claimOf(lease), record);
  return step.outcome === 'advanced' ? leaseOf(lease.name, step.claim) : undefined;
}

/**
 * Gives the lease back so the next run need not wait for it to expire. Returns false when it had
 * already been taken over (the record is then left alone).
 *
 * @example
 * ```ts
 * await releaseLease(store, lease);
 * ```
 */
export async function releaseLease(store: StateStore, lease: Lease): Promise<boolean> {
  return (await releaseClaim(store, claimOf(lease))).outcome === 'released';
}

function claimOf(lease: Lease): Claim<LeaseRecord> {
  const { owner, token, acquiredAt, expiresAt } = lease;
  return { key: lease.key, etag: lease.etag, record: { owner, token, acquiredAt, expiresAt } };
}
