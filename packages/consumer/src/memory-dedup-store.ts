/**
 * A {@link DedupStore} in this process's memory: for a single consumer process, or for tests. It
 * forgets everything on restart, and two processes do not see each other's records; use
 * `s3DedupStore` when several consumers (Lambda instances) share a queue.
 */

import { checkInteger, parseJson } from '../../bridge/src/core/index.ts';
import { type CreateResult, StateConflictError, type StateEntry } from '../../bridge/src/state/index.ts';
import type { DedupStore } from './dedup.ts';

export interface MemoryDedupStoreOptions {
  /**
   * Most records kept; above it the least recently written is forgotten first. Default 10 000. Keep it
   * above the number of events the consumer receives within the deduplicator's `ttlMs`, or an old
   * duplicate may be processed again.
   */
  maxEntries?: number;
  /** Clock in epoch ms, to drop records whose `until` has passed. Default `Date.now`. */
  now?: () => number;
}

interface Stored {
  readonly body: string;
  readonly etag: string;
  /** From the record's `until`, when it has one: after it the record is dropped. */
  readonly until: number;
}

function untilOf(value: unknown): number {
  const until = (value as { until?: unknown } | null)?.until;
  return typeof until === 'number' ? until : Number.POSITIVE_INFINITY;
}

/**
 * @example
 * ```ts
 * const dedup = new Deduplicator({ store: new MemoryDedupStore({ maxEntries: 50_000 }), ttlMs: 3_600_000 });
 * ```
 */
export class MemoryDedupStore implements DedupStore {
  readonly #records = new Map<string, Stored>();
  readonly #maxEntries: number;
  readonly #now: () => number;
  #writes = 0;

  constructor(options: MemoryDedupStoreOptions = {}) {
    this.#maxEntries = checkInteger('maxEntries', options.maxEntries ?? 10_000, { min: 1 });
    this.#now = options.now ?? Date.now;
  }

  /** Records held now (expired ones included until they are next looked at or pushed out). */
  get size(): number {
    return this.#records.size;
  }

  #live(key: string): Stored | undefined {
    const stored = this.#records.get(key);
    if (stored !== undefined && stored.until <= this.#now()) {
      this.#records.delete(key);
      return undefined;
    }
    return stored;
  }

  #write(key: string, value: unknown): string {
    this.#writes += 1;
    const etag = `"d${this.#writes}"`;
    // Re-inserted, so Map order is write order and the first key is the one to forget.
    this.#records.delete(key);
    this.#records.set(key, { body: JSON.stringify(value), etag, until: untilOf(value) });
    while (this.#records.size > this.#maxEntries) {
      const oldest = this.#records.keys().next().value;
      if (oldest === undefined) break;
      this.#records.delete(oldest);
    }
    return etag;
  }

  async get<T>(key: string): Promise<StateEntry<T> | undefined> {
    const stored = this.#live(key);
    return stored && { value: parseJson(stored.body) as T, etag: stored.etag };
  }

  async create<T>(key: string, value: T): Promise<CreateResult> {
    if (this.#live(key) !== undefined) return { created: false };
    return { created: true, etag: this.#write(key, value) };
  }

  async update<T>(key: string, value: T, etag: string): Promise<{ etag: string }> {
    const stored = this.#live(key);
    if (stored === undefined) throw new StateConflictError(key, 'it no longer exists');
    if (stored.etag !== etag) throw new StateConflictError(key, `its ETag is ${stored.etag}, not ${etag}`);
    return { etag: this.#write(key, value) };
  }

  async delete(key: string, etag?: string): Promise<void> {
    const stored = this.#live(key);
    if (stored === undefined) return;
    if (etag !== undefined && stored.etag !== etag) {
      throw new StateConflictError(key, `its ETag is ${stored.etag}, not ${etag}`);
    }
    this.#records.delete(key);
  }
}
