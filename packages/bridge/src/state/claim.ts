/**
 * The claim primitive: one record in the state store that at most one holder works on at a time.
 *
 * Leases of the pollers, ingest progress records and idempotency records all follow the same race
 * rules, written here once (as Powertools keeps in-progress, expiry and conflict in its
 * BasePersistenceLayer) so their modules only say what their records look like:
 *
 * - acquire: a free key is claimed with a conditional create (If-None-Match); a record whose lease has
 *   ended is taken over with a conditional update on the ETag just read (If-Match). Of two acquirers
 *   racing for either, exactly one wins; the other is told it lost the race, never overwrites.
 * - advance: the holder writes its next record on the ETag it wrote last, so a holder that was
 *   overtaken (its lease ran out) finds out at its next step instead of writing over the new holder.
 * - release: the holder deletes the record, or writes one without a live lease, again on its ETag.
 *
 * The shape of the stored record is the caller's ({@link ClaimPolicy}): records already in users'
 * state buckets keep their layout. Outcomes are typed results; only store failures other than a
 * conflict are thrown.
 */

import { StateConflictError } from './errors.ts';
import type { StateStore } from './store.ts';

/** The part of a {@link StateStore} claims use: stores that only hold claims need no more. */
export type ClaimStore = Pick<StateStore, 'get' | 'create' | 'update' | 'delete'>;

/** How the records of one kind carry their claim. */
export interface ClaimPolicy<R> {
  /**
   * Epoch ms at which the claim recorded in `record` ends. The record is held while this is later
   * than now; at or before now (or NaN) anyone may take it over.
   */
  leaseEnd(record: R): number;
  /**
   * The record a first claim creates. May be async, to write what the record will point to before it
   * becomes visible; it runs at most once per acquire, between the read and the create.
   */
  fresh(now: number): R | Promise<R>;
  /** The record written to take over `current` once its lease has ended. */
  takeOver(current: R, now: number): R;
  /**
   * False for records that can no longer be claimed (their work is finished, or they belong to another
   * request); acquire then reports them as `settled` and leaves them alone. Default: always true.
   */
  claimable?(record: R): boolean;
}

/** A held claim: the record as this holder last wrote it and the ETag of that write. */
export interface Claim<R> {
  readonly key: string;
  readonly record: R;
  readonly etag: string;
}

export interface AcquireOptions {
  /** Clock in epoch milliseconds. Default: Date.now. */
  readonly now?: () => number;
  /**
   * Try the conditional create before reading. For keys that are nearly always free (a fresh id), it
   * saves the read: one round trip instead of two. A refused create costs one more round trip than
   * reading first, after which acquire goes on as usual. Default false.
   */
  readonly createFirst?: boolean;
}

/** What {@link acquireClaim} found and did. */
export type AcquireResult<R> =
  /** This caller holds the record now: it created it, or took over one whose lease had ended. */
  | { readonly outcome: 'acquired'; readonly claim: Claim<R>; readonly takenOver: boolean }
  /** Someone else holds a live claim until `leaseEnd`. */
  | { readonly outcome: 'held'; readonly record: R; readonly leaseEnd: number }
  /** The policy says the record cannot be claimed any more; it is returned as stored. */
  | { readonly outcome: 'settled'; readonly record: R }
  /**
   * Another acquirer won the create or the take-over between this caller's read and write. `leaseEnd`
   * is the lease this caller tried to write: the winner's, when it claims with the same setting.
   */
  | { readonly outcome: 'raced'; readonly step: 'create' | 'take-over'; readonly leaseEnd: number };

/** What {@link advanceClaim} did. */
export type AdvanceResult<R> =
  | { readonly outcome: 'advanced'; readonly claim: Claim<R> }
  /** The record changed since this holder wrote it (taken over, released or removed): stop. */
  | { readonly outcome: 'lost' };

/** What {@link releaseClaim} did. */
export type ReleaseResult = { readonly outcome: 'released' } | { readonly outcome: 'lost' };

/**
 * Claims the record under `key`: creates it when nothing is stored, takes it over when its lease has
 * ended, and otherwise reports who holds it, that it is settled, or that a concurrent acquirer won.
 * One read and at most one conditional write (with `createFirst`, the create comes first and the
 * read only when it was refused); callers decide whether to read again.
 *
 * @example
 * ```ts
 * const result = await acquireClaim(store, leaseKey('poll'), {
 *   leaseEnd: (r) => r.expiresAt,
 *   fresh: (now) => ({ owner, expiresAt: now + ttlMs }),
 *   takeOver: (_current, now) => ({ owner, expiresAt: now + ttlMs }),
 * });
 * if (result.outcome === 'acquired') await releaseClaim(store, result.claim);
 * ```
 */
export async function acquireClaim<R>(
  store: ClaimStore,
  key: string,
  policy: ClaimPolicy<R>,
  options: AcquireOptions = {},
): Promise<AcquireResult<R>> {
  const now = options.now ?? Date.now;
  if (options.createFirst) {
    const record = await policy.fresh(now());
    const created = await store.create(key, record);
    if (created.created) {
      return { outcome: 'acquired', claim: { key, record, etag: created.etag }, takenOver: false };
    }
  }
  const current = await store.get<R>(key);
  const at = now();
  if (current === undefined) {
    const record = await policy.fresh(at);
    const created = await store.create(key, record);
    if (!created.created) return { outcome: 'raced', step: 'create', leaseEnd: policy.leaseEnd(record) };
    return { outcome: 'acquired', claim: { key, record, etag: created.etag }, takenOver: false };
  }
  if (policy.claimable && !policy.claimable(current.value)) {
    return { outcome: 'settled', record: current.value };
  }
  const leaseEnd = policy.leaseEnd(current.value);
  if (leaseEnd > at) return { outcome: 'held', record: current.value, leaseEnd };
  const record = policy.takeOver(current.value, at);
  try {
    const { etag } = await store.update(key, record, current.etag);
    return { outcome: 'acquired', claim: { key, record, etag }, takenOver: true };
  } catch (error) {
    if (!(error instanceof StateConflictError)) throw error;
    return { outcome: 'raced', step: 'take-over', leaseEnd: policy.leaseEnd(record) };
  }
}

/**
 * Writes `next` as the holder's new record, on the ETag the holder wrote last (If-Match).
 *
 * @example
 * ```ts
 * const step = await advanceClaim(store, claim, { ...claim.record, status: 'uploaded' });
 * if (step.outcome === 'lost') return; // overtaken: someone else carries on
 * claim = step.claim;
 * ```
 */
export async function advanceClaim<R>(
  store: ClaimStore,
  claim: Claim<R>,
  next: R,
): Promise<AdvanceResult<R>> {
  try {
    const { etag } = await store.update(claim.key, next, claim.etag);
    return { outcome: 'advanced', claim: { key: claim.key, record: next, etag } };
  } catch (error) {
    if (error instanceof StateConflictError) return { outcome: 'lost' };
    throw error;
  }
}

/**
 * Gives the claim back so the next acquirer need not wait for the lease to end: deletes the record,
 * or, with `final`, writes that record (whose lease must have ended) in its place. Both are
 * conditional on the holder's ETag, so a claim already taken over is left alone.
 *
 * @example
 * ```ts
 * await releaseClaim(store, claim); // the key is free
 * await releaseClaim(store, claim, { ...claim.record, leaseUntil: 0 }); // kept, free to take over
 * ```
 */
export async function releaseClaim<R>(store: ClaimStore, claim: Claim<R>, final?: R): Promise<ReleaseResult> {
  try {
    if (final === undefined) await store.delete(claim.key, claim.etag);
    else await store.update(claim.key, final, claim.etag);
    return { outcome: 'released' };
  } catch (error) {
    if (error instanceof StateConflictError) return { outcome: 'lost' };
    throw error;
  }
}
