/**
 * Leases on the state store: "a run never overlaps itself".
 *
 * A lease is one object under `leases/<name>.json`. Taking a free lease is a conditional create; taking
 * over an expired one, renewing and releasing are conditional on the ETag the holder read, so of two
 * runs racing for the same lease exactly one wins. A holder that outlives its TTL without renewing
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
import { leaseKey } from './keys.ts';
import { StateConflictError, type StateStore } from './store.ts';

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
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`Lease TTL must be a positive number of milliseconds, got ${ttlMs}`);
  }
}

/**
 * Takes the lease `name` for `ttlMs` if it is free or expired; `undefined` when someone else holds it
 * (or won the race for it).
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
  const key = leaseKey(name);
  const record: LeaseRecord = { owner, token: randomUUID(), acquiredAt: now, expiresAt: now + ttlMs };
  const current = await store.get<LeaseRecord>(key);
  if (current === undefined) {
    const created = await store.create(key, record);
    return created.created ? { ...record, name, key, etag: created.etag } : undefined;
  }
  if (current.value.expiresAt > now) return undefined;
  try {
    const { etag } = await store.update(key, record, current.etag);
    return { ...record, name, key, etag };
  } catch (error) {
    if (error instanceof StateConflictError) return undefined;
    throw error;
  }
}

/**
 * Extends a held lease to `ttlMs` from now; `undefined` when it was lost (taken over or released), in
 * which case the run should stop.
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
  try {
    const { etag } = await store.update(lease.key, record, lease.etag);
    return { ...record, name: lease.name, key: lease.key, etag };
  } catch (error) {
    if (error instanceof StateConflictError) return undefined;
    throw error;
  }
}

/**
 * Gives the lease back so the next run need not wait for it to expire. Returns false when it had
 * already been taken over (the record is then left alone).
 */
export async function releaseLease(store: StateStore, lease: Lease): Promise<boolean> {
  try {
    await store.delete(lease.key, lease.etag);
    return true;
  } catch (error) {
    if (error instanceof StateConflictError) return false;
    throw error;
  }
}
