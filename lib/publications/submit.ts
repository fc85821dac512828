/**
 * Accepting a publication request durably, with Idempotency-Key semantics.
 *
 * Without a key: a random publication id, the publication record, the queue message.
 *
 * With a key, the publication id is derived from the caller and the key (a SHA-256 written as a
 * UUID), so every retry of one request names the same publication and no stray records are left by
 * races. The steps:
 *
 * 1. Create `publications/<id>.json` (If-None-Match). If it exists, its body hash must match (else 409).
 * 2. Create `idempotency/<hash>.json` as `pending` with a claim (If-None-Match). Exactly one of two
 *    concurrent identical requests wins this create.
 * 3. The winner sends the queue message, then marks the record `complete` with the answer.
 *
 * A request that finds the record already there compares body hashes (different body → 409
 * `idempotency-key-reused`), replays a complete answer, and waits briefly (default 2 s) for a pending
 * one; if the holder still has not finished it answers 409 `request-in-progress` with Retry-After. A
 * pending record whose holder gave up (queueing failed: the claim is released at once) or vanished
 * (its claim is older than the claim timeout) is taken over with a conditional write, and the taker
 * queues the message again: that is how a retry after a 503 gets the request queued. Creating, taking
 * over, completing and releasing follow the race rules of the claim primitive (lib/state/claim.ts).
 */
import { createHash, randomUUID } from 'node:crypto';
import { backoffDelayMs, sleep } from '../core/index.ts';
import { acquireClaim, advanceClaim, type Claim, type ClaimPolicy, releaseClaim } from '../state/claim.ts';
import { idempotencyKey, publicationKey, sha256Hex } from '../state/keys.ts';
import type { StateStore } from '../state/store.ts';
import { type PublicationQueue, PublicationQueueError } from './queue.ts';
import type { PublicationRecord } from './records.ts';
import type { PublicationRequestBody } from './schemas.ts';

/** The idempotency record of one (caller, Idempotency-Key). */
export interface IdempotencyRecord {
  bodyHash: string;
  publicationId: string;
  state: 'pending' | 'complete';
  createdAt: string;
  /** Held while a request is queueing the message; absent once released. */
  claim?: { token: string; at: string };
  /** Why the last holder gave up, while pending. */
  lastError?: string;
  completedAt?: string;
  /** The first answer, replayed to every retry. */
  response?: { status: 202; body: { publicationId: string; status: 'queued' } };
}

/** The Idempotency-Key was used before with a different body. */
export class IdempotencyConflictError extends Error {
  readonly publicationId: string;

  constructor(publicationId: string) {
    super(
      `This Idempotency-Key was already used for a different request (publication ${publicationId}); use a new key for a new publication`,
    );
    this.name = 'IdempotencyConflictError';
    this.publicationId = publicationId;
  }
}

/** Another request with the same key is still being accepted. */
export class RequestInProgressError extends Error {
  readonly publicationId: string;
  readonly retryAfterSeconds: number;

  constructor(publicationId: string, retryAfterSeconds: number) {
    super(
      `A request with this Idempotency-Key is still being accepted (publication ${publicationId}); retry in ${retryAfterSeconds} s with the same key and body`,
    );
    this.name = 'RequestInProgressError';
    this.publicationId = publicationId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The state store kept changing under us; the caller may retry. */
export class IdempotencyContentionError extends Error {
  constructor() {
    super('The idempotency record kept changing while this request tried to take it over; retry the request');
    this.name = 'IdempotencyContentionError';
  }
}

export interface SubmitDependencies {
  store: StateStore;
  queue: PublicationQueue;
  /** Default: the clock. */
  now?: () => Date;
  /** How long a request waits for a concurrent one with the same key; default 2000 ms. */
  inProgressWaitMs?: number;
  /** After this long a claim counts as abandoned (its request died); default 30 000 ms, above the API timeout. */
  claimTimeoutMs?: number;
  /** Injected by tests; default a timer. */
  sleep?: (ms: number) => Promise<void>;
}

export interface SubmitInput {
  request: PublicationRequestBody;
  /** Scopes the Idempotency-Key: two callers never share a record. */
  caller: string;
  idempotencyKey?: string;
}

export interface SubmitResult {
  publicationId: string;
  /** True when the answer is the replay of an earlier request with the same key. */
  replayed: boolean;
}

const RETRY_AFTER_SECONDS = 1;
const MAX_TAKEOVER_CONFLICTS = 5;

/** Waits between reads of a request still in progress: 25, 50, 100, 200, 250 ms…, without jitter. */
const IN_PROGRESS_POLL = { baseMs: 25, maxMs: 250 } as const;

/** Sends the message; any failure of the queue adapter becomes a {@link PublicationQueueError}. */
async function send(queue: PublicationQueue, publicationId: string): Promise<void> {
  try {
    await queue.send({ publicationId });
  } catch (error) {
    if (error instanceof PublicationQueueError) throw error;
    throw new PublicationQueueError(publicationId, (error as Error).message ?? String(error), {
      cause: error,
    });
  }
}

/**
 * The publication id for an Idempotency-Key: SHA-256 over caller and key, written as a version 8 UUID.
 *
 * @example
 * ```ts
 * publicationIdFor('local', 'order-42') === publicationIdFor('local', 'order-42'); // true
 * ```
 */
export function publicationIdFor(caller: string, key: string): string {
  const hex = createHash('sha256')
    .update(JSON.stringify(['publication', caller, key]), 'utf8')
    .digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** SHA-256 of the validated body (zod output, so key order and whitespace of the original do not matter). */
export function bodyHashOf(request: PublicationRequestBody): string {
  return sha256Hex(JSON.stringify(request));
}

/**
 * Records and queues a publication request; see the module comment for the idempotency rules.
 * Throws {@link IdempotencyConflictError}, {@link RequestInProgressError},
 * {@link IdempotencyContentionError}, or the queue's error (the request stays recorded).
 *
 * @example
 * ```ts
 * const { publicationId } = await submitPublication({ store, queue }, { request, caller: 'local', idempotencyKey: 'k1' });
 * ```
 */
export async function submitPublication(deps: SubmitDependencies, input: SubmitInput): Promise<SubmitResult> {
  const now = deps.now ?? (() => new Date());
  const bodyHash = bodyHashOf(input.request);
  if (input.idempotencyKey === undefined) {
    const publicationId = randomUUID();
    await createPublicationRecord(deps.store, newRecord(publicationId, input, bodyHash, now()));
    await queueOrMarkFailed(deps, publicationId, now);
    return { publicationId, replayed: false };
  }
  return submitWithKey(deps, input, input.idempotencyKey, bodyHash, now);
}

function newRecord(publicationId: string, input: SubmitInput, bodyHash: string, at: Date): PublicationRecord {
  return {
    publicationId,
    status: 'queued',
    request: input.request,
    bodyHash,
    requestedBy: input.caller,
    createdAt: at.toISOString(),
    updatedAt: at.toISOString(),
    attempts: 0,
  };
}

async function createPublicationRecord(store: StateStore, record: PublicationRecord): Promise<void> {
  const created = await store.create(publicationKey(record.publicationId), record);
  if (created.created) return;
  const existing = await store.get<PublicationRecord>(publicationKey(record.publicationId));
  if (existing && existing.value.bodyHash !== record.bodyHash) {
    throw new IdempotencyConflictError(record.publicationId);
  }
}

async function queueOrMarkFailed(deps: SubmitDependencies, publicationId: string, now: () => Date) {
  try {
    await send(deps.queue, publicationId);
  } catch (error) {
    // Without a key nobody can retry this record: say so on it rather than leave it queued forever.
    await deps.store
      .mutate<PublicationRecord>(publicationKey(publicationId), (current) => {
        if (current?.status !== 'queued') return undefined;
        const at = now().toISOString();
        return {
          ...current,
          status: 'failed',
          updatedAt: at,
          failedAt: at,
          error: { reason: 'the request could not be queued; send it again', retryable: true, at },
        };
      })
      .catch(() => undefined);
    throw error;
  }
}

/**
 * How an idempotency record carries its claim: `claim.at` plus the claim timeout is the lease end, an
 * absent claim (released) has none. Records of another body or already complete are never claimed.
 */
function idempotencyPolicy(
  deps: SubmitDependencies,
  input: SubmitInput,
  key: string,
  bodyHash: string,
  now: () => Date,
): ClaimPolicy<IdempotencyRecord> {
  const claimTimeoutMs = deps.claimTimeoutMs ?? 30_000;
  return {
    leaseEnd: (record) =>
      record.claim ? Date.parse(record.claim.at) + claimTimeoutMs : Number.NEGATIVE_INFINITY,
    claimable: (record) => record.bodyHash === bodyHash && record.state !== 'complete',
    fresh: async () => {
      // The publication record is written first, so the idempotency record never names a missing one.
      const publicationId = publicationIdFor(input.caller, key);
      await createPublicationRecord(deps.store, newRecord(publicationId, input, bodyHash, now()));
      return {
        bodyHash,
        publicationId,
        state: 'pending',
        createdAt: now().toISOString(),
        claim: { token: randomUUID(), at: now().toISOString() },
      };
    },
    takeOver: (record) => ({ ...record, claim: { token: randomUUID(), at: now().toISOString() } }),
  };
}

async function submitWithKey(
  deps: SubmitDependencies,
  input: SubmitInput,
  key: string,
  bodyHash: string,
  now: () => Date,
): Promise<SubmitResult> {
  const wait = deps.sleep ?? sleep;
  const waitUntil = now().getTime() + (deps.inProgressWaitMs ?? 2_000);
  const stateKey = idempotencyKey(key, input.caller);
  const policy = idempotencyPolicy(deps, input, key, bodyHash, now);
  let waits = 0;
  let conflicts = 0;

  for (;;) {
    const result = await acquireClaim(deps.store, stateKey, policy, { now: () => now().getTime() });
    switch (result.outcome) {
      case 'acquired':
        // Created, or taken over from a holder that gave up or vanished: queue the message ourselves.
        return queueAndComplete(deps, result.claim, now);
      case 'settled':
        if (result.record.bodyHash !== bodyHash)
          throw new IdempotencyConflictError(result.record.publicationId);
        return { publicationId: result.record.publicationId, replayed: true };
      case 'held':
        if (now().getTime() >= waitUntil) {
          throw new RequestInProgressError(result.record.publicationId, RETRY_AFTER_SECONDS);
        }
        waits += 1;
        await wait(backoffDelayMs(waits, IN_PROGRESS_POLL, () => 1));
        continue;
      case 'raced':
        if (result.step === 'create') continue; // a concurrent request won the create: read its record
        conflicts += 1;
        if (conflicts >= MAX_TAKEOVER_CONFLICTS) throw new IdempotencyContentionError();
        continue;
    }
  }
}

async function queueAndComplete(
  deps: SubmitDependencies,
  held: Claim<IdempotencyRecord>,
  now: () => Date,
): Promise<SubmitResult> {
  const { record } = held;
  const { publicationId } = record;
  try {
    await send(deps.queue, publicationId);
  } catch (error) {
    // Release the claim so that the client's retry re-queues at once instead of waiting for the timeout.
    const { claim: _released, ...rest } = record;
    await releaseClaim(deps.store, held, {
      ...rest,
      lastError: (error as Error).message ?? String(error),
    }).catch(() => undefined);
    throw error;
  }
  const { claim: _done, lastError: _cleared, ...rest } = record;
  const complete: IdempotencyRecord = {
    ...rest,
    state: 'complete',
    completedAt: now().toISOString(),
    response: { status: 202, body: { publicationId, status: 'queued' } },
  };
  // The message is queued, so the request is accepted whatever happens to this write. If it fails (or
  // someone took over after our claim timed out), a retry finds the record pending and, once the claim
  // times out, queues again: harmless, the worker is idempotent by publication id.
  await advanceClaim(deps.store, held, complete).catch(() => undefined);
  return { publicationId, replayed: false };
}
