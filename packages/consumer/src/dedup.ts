/**
 * Drops the duplicates that at-least-once delivery produces, by event id (the bridge's ids are
 * deterministic: the same fact always has the same id, whichever run or retry sent it).
 *
 * The race rules are the bridge's own claim primitive (packages/bridge/src/state/claim.ts): an id is claimed with a
 * conditional create, so of two consumers receiving the same event at once exactly one processes it.
 * While it works the record is `in-progress` with a lease; the other gets `duplicate-in-progress`
 * (retryable: its message comes back after the visibility timeout and is then recognised as done).
 * Work that fails releases the claim, so the redelivery processes the event; a consumer that dies
 * mid-work leaves a lease that ends after `inProgressMs`, and the next delivery takes it over. A
 * processed id is remembered for `ttlMs`.
 *
 * Stores ({@link DedupStore}): `MemoryDedupStore` (one process, bounded) and `s3DedupStore` (S3
 * conditional writes, shared by every consumer instance).
 */
import { checkDurationMs, OptionError } from '../../bridge/src/core/index.ts';
import {
  acquireClaim,
  advanceClaim,
  type ClaimPolicy,
  type ClaimStore,
  releaseClaim,
} from '../../bridge/src/state/claim.ts';
import { encodeKeySegment } from '../../bridge/src/state/index.ts';
import { ConsumerError } from './errors.ts';

/**
 * Where processed ids are recorded: conditional create, read, and compare-and-swap update and delete
 * on ETags (the bridge's `StateStore` operations). Implement it for another database by honouring
 * those conditions; the race logic stays in {@link Deduplicator}.
 */
export type DedupStore = ClaimStore;

/** What the store holds per event id. */
export interface DedupRecord {
  status: 'in-progress' | 'done';
  /** Epoch ms: the end of the processing lease (`in-progress`) or of the memory of it (`done`). */
  until: number;
}

/** Default key prefix of the records. */
export const DEFAULT_DEDUP_PREFIX = 'pds-events/processed/';

export interface DeduplicatorOptions {
  store: DedupStore;
  /**
   * How long a processed id is remembered, in ms. Default 24 hours. Keep it above the longest time
   * between two deliveries of one event (the queue's retention period is the safe upper bound).
   */
  ttlMs?: number;
  /**
   * How long a consumer may work on one event before another may take it over, in ms. Default
   * 15 minutes (a Lambda function's longest run). Keep it above your slowest processing time.
   */
  inProgressMs?: number;
  /** Prefix of the record keys, so several consumers can share one bucket. Default {@link DEFAULT_DEDUP_PREFIX}. */
  keyPrefix?: string;
  /** Clock in epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** What {@link Deduplicator.once} did. */
export type OnceResult<R> = { readonly duplicate: false; readonly value: R } | { readonly duplicate: true };

const HOUR_MS = 3_600_000;

/**
 * @example
 * ```ts
 * const dedup = new Deduplicator({ store: s3DedupStore({ client: new S3Client({}), bucket: 'my-consumer-state' }) });
 * const outcome = await dedup.once(event, () => saveToDatabase(event));
 * if (outcome.duplicate) logger.info('already processed', { id: event.id });
 * ```
 */
export class Deduplicator {
  readonly #store: DedupStore;
  readonly #ttlMs: number;
  readonly #inProgressMs: number;
  readonly #keyPrefix: string;
  readonly #now: () => number;
  readonly #policy: ClaimPolicy<DedupRecord>;

  constructor(options: DeduplicatorOptions) {
    if (typeof options?.store?.create !== 'function') {
      throw new OptionError(
        'store',
        'Deduplicator needs a store: new MemoryDedupStore() or s3DedupStore({ client, bucket })',
      );
    }
    this.#store = options.store;
    this.#ttlMs = checkDurationMs('ttlMs', options.ttlMs ?? 24 * HOUR_MS);
    this.#inProgressMs = checkDurationMs('inProgressMs', options.inProgressMs ?? HOUR_MS / 4);
    const prefix = options.keyPrefix ?? DEFAULT_DEDUP_PREFIX;
    if (prefix !== '' && (!prefix.endsWith('/') || prefix.startsWith('/'))) {
      throw new OptionError(
        'keyPrefix',
        `keyPrefix must be empty or end with "/" (and not start with one), got ${JSON.stringify(prefix)}`,
      );
    }
    this.#keyPrefix = prefix;
    this.#now = options.now ?? Date.now;
    const lease = (now: number): DedupRecord => ({ status: 'in-progress', until: now + this.#inProgressMs });
    this.#policy = {
      leaseEnd: (record) => record.until,
      fresh: lease,
      takeOver: (_current, now) => lease(now),
    };
  }

  /** The store key of an event id. */
  keyOf(eventId: string): string {
    return `${this.#keyPrefix}${encodeKeySegment(eventId)}.json`;
  }

  /**
   * Runs `work` unless the event was already processed: `{ duplicate: true }` when it was, `{ duplicate:
   * false, value }` after running it. When `work` throws, the id is released and the error rethrown,
   * so the redelivered message is processed. Throws {@link ConsumerError} `duplicate-in-progress`
   * (retryable) while another consumer holds the event.
   */
  async once<R>(event: { readonly id: string }, work: () => Promise<R> | R): Promise<OnceResult<R>> {
    const key = this.keyOf(event.id);
    let acquired = await acquireClaim(this.#store, key, this.#policy, { now: this.#now });
    // A racing consumer may have created and then released (its work failed): one more look settles it.
    if (acquired.outcome === 'raced')
      acquired = await acquireClaim(this.#store, key, this.#policy, { now: this.#now });
    if (acquired.outcome === 'held' && acquired.record.status === 'done') return { duplicate: true };
    if (acquired.outcome !== 'acquired') {
      const until = acquired.outcome === 'held' ? acquired.leaseEnd : this.#now() + this.#inProgressMs;
      throw new ConsumerError(
        'duplicate-in-progress',
        `event ${event.id} is being processed by another consumer (its claim lasts until ${new Date(until).toISOString()}); let the message return to the queue and it is recognised as done on its next delivery.`,
        { eventId: event.id, retryable: true },
      );
    }
    let value: R;
    try {
      value = await work();
    } catch (error) {
      // The work's error is what the caller needs; a failed release only delays the redelivery until
      // the lease ends (inProgressMs), after which it is taken over.
      await releaseClaim(this.#store, acquired.claim).catch(() => undefined);
      throw error;
    }
    // 'lost' means our lease ran out and another consumer took over: the work is done either way.
    await advanceClaim(this.#store, acquired.claim, { status: 'done', until: this.#now() + this.#ttlMs });
    return { duplicate: false, value };
  }
}
