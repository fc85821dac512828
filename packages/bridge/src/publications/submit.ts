/**
 * Accepting a publication request durably, with Idempotency-Key semantics
 * (draft-ietf-httpapi-idempotency-key-header).
 *
 * Without a key: a random publication id; create the publication record, then send the message.
 *
 * With a key, the publication id is derived from the caller and the key (a SHA-256 written as a
 * UUID), so every retry of one request names the same record, `publications/<id>.json`, and that
 * record carries the key's bookkeeping (`idempotency`: a claim while a request queues the message,
 * `queuedAt` once the queue accepted it). Three sequential round trips for a new key:
 *
 * 1. Create the record, holding the claim (If-None-Match). This one write makes the request durable
 *    and tells whether the key is new: exactly one of two concurrent requests with a key wins it.
 * 2. Send the message.
 * 3. Mark the record queued (If-Match on the ETag of step 1), so that a retry knows the first answer
 *    was 202 and replays it. Losing this write to the worker (which moved the record on after
 *    receiving the message) is fine: a record the worker moved was queued.
 *
 * A request whose create is refused reads the record: another body → 422 `idempotency-key-reused`;
 * queued (or moved on by the worker) → the 202 replayed; claimed by a request still within the claim
 * timeout → wait briefly (default 2 s) for it, then 409 `request-in-progress` with Retry-After; a
 * claim released (queueing failed) or abandoned (older than the claim timeout: its request died) →
 * taken over with a conditional write, and the taker queues the message again. That is how a retry
 * after a 503 gets the request queued. The race rules are the claim primitive's (packages/bridge/src/state/claim.ts).
 *
 * docs/api.md ("Round trips of POST /publications") says why none of the three steps can go.
 */

import { createHash, randomUUID } from 'node:crypto';
import { type RetryPolicy, retry } from '../core/index.ts';
import { acquireClaim, advanceClaim, type Claim, type ClaimPolicy, releaseClaim } from '../state/claim.ts';
import { type StateStore, sha256Hex } from '../state/index.ts';
import {
  IdempotencyConflictError,
  IdempotencyContentionError,
  PublicationQueueError,
  RequestInProgressError,
} from './errors.ts';
import { publicationKey } from './keys.ts';
import type { PublicationQueue } from './queue.ts';
import type { PublicationRecord, PublicationRequestBody } from './records.ts';

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
const IN_PROGRESS_POLL: RetryPolicy = {
  maxAttempts: Number.MAX_SAFE_INTEGER,
  baseDelayMs: 25,
  maxDelayMs: 250,
  jitter: 'none',
};

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
    // A random id is never taken, so the create needs no read before it.
    const created = await deps.store.create(
      publicationKey(publicationId),
      newRecord(publicationId, input, bodyHash, now()),
    );
    if (!created.created) throw new Error(`The random publication id ${publicationId} is already taken`);
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
 * True once the request of a keyed record is known to be queued: marked so by the request that
 * queued it, or moved on by the worker, which only touches a record after receiving its message.
 */
function isQueued(record: PublicationRecord): boolean {
  return record.idempotency?.queuedAt !== undefined || record.status !== 'queued';
}

/**
 * How a keyed publication record carries its claim: `claim.at` plus the claim timeout is the lease
 * end, an absent claim (released) has none. Records of another body, already queued, or written
 * before records carried the key's bookkeeping are never claimed: acquire reports them settled.
 */
function idempotencyPolicy(
  deps: SubmitDependencies,
  input: SubmitInput,
  publicationId: string,
  bodyHash: string,
  now: () => Date,
): ClaimPolicy<PublicationRecord> {
  const claimTimeoutMs = deps.claimTimeoutMs ?? 30_000;
  const claim = () => ({ token: randomUUID(), at: now().toISOString() });
  return {
    leaseEnd: (record) => {
      const held = record.idempotency?.claim;
      return held ? Date.parse(held.at) + claimTimeoutMs : Number.NEGATIVE_INFINITY;
    },
    claimable: (record) =>
      record.bodyHash === bodyHash && record.idempotency !== undefined && !isQueued(record),
    fresh: () => ({ ...newRecord(publicationId, input, bodyHash, now()), idempotency: { claim: claim() } }),
    takeOver: (record) => ({ ...record, idempotency: { ...record.idempotency, claim: claim() } }),
  };
}

async function submitWithKey(
  deps: SubmitDependencies,
  input: SubmitInput,
  key: string,
  bodyHash: string,
  now: () => Date,
): Promise<SubmitResult> {
  const waitUntil = now().getTime() + (deps.inProgressWaitMs ?? 2_000);
  const publicationId = publicationIdFor(input.caller, key);
  const stateKey = publicationKey(publicationId);
  const policy = idempotencyPolicy(deps, input, publicationId, bodyHash, now);
  let conflicts = 0;
  // A new key is the common case: create first, and read only when the create is refused.
  let createFirst = true;

  // One pass until the key is ours, settled, or held by a concurrent request.
  const settle = async (): Promise<SubmitResult> => {
    for (;;) {
      const result = await acquireClaim(deps.store, stateKey, policy, {
        now: () => now().getTime(),
        createFirst,
      });
      createFirst = false;
      switch (result.outcome) {
        case 'acquired':
          // Created, or taken over from a holder that gave up or vanished: queue the message ourselves.
          return queueAndMarkQueued(deps, result.claim, now);
        case 'settled': {
          const { record } = result;
          if (record.bodyHash !== bodyHash) throw new IdempotencyConflictError(publicationId);
          if (record.idempotency === undefined && record.status === 'queued') {
            // Written before records carried the key's bookkeeping: whether its message went out is
            // unknown, so send it again (the worker is idempotent by publication id) before replaying.
            await send(deps.queue, publicationId);
          }
          return { publicationId, replayed: true };
        }
        case 'held':
          throw new RequestInProgressError(publicationId, RETRY_AFTER_SECONDS);
        case 'raced':
          if (result.step === 'create') continue; // a concurrent request won the create: read its record
          conflicts += 1;
          if (conflicts >= MAX_TAKEOVER_CONFLICTS) throw new IdempotencyContentionError();
          continue;
      }
    }
  };
  // Held by a concurrent request: read again until inProgressWaitMs has passed (or the invocation's
  // retry budget or time ran out), then answer 409.
  const held = (error: unknown) => error instanceof RequestInProgressError && now().getTime() < waitUntil;
  return retry(settle, { ...IN_PROGRESS_POLL, retryable: held }, deps.sleep ? { sleep: deps.sleep } : {});
}

async function queueAndMarkQueued(
  deps: SubmitDependencies,
  held: Claim<PublicationRecord>,
  now: () => Date,
): Promise<SubmitResult> {
  const { record } = held;
  const { publicationId } = record;
  try {
    await send(deps.queue, publicationId);
  } catch (error) {
    // Release the claim so that the client's retry re-queues at once instead of waiting for the timeout.
    await releaseClaim(deps.store, held, {
      ...record,
      idempotency: { lastError: (error as Error).message ?? String(error) },
    }).catch(() => undefined);
    throw error;
  }
  // The message is queued, so the request is accepted whatever happens to this write. If it fails,
  // a retry finds the record claimed and, once the claim times out, queues again: harmless, the
  // worker is idempotent by publication id. If the worker already moved the record on, the write is
  // refused and not needed (see isQueued).
  await advanceClaim(deps.store, held, {
    ...record,
    idempotency: { queuedAt: now().toISOString() },
  }).catch(() => undefined);
  return { publicationId, replayed: false };
}
