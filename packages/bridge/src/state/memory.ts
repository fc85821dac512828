/**
 * An in-memory `StateStore` with the same conditional semantics as the S3 adapter, for unit tests of
 * the logic built on top (ingest progress, checkpoints, watch list, idempotency, leases).
 *
 * Values are kept as JSON text, so callers never share objects with the store. Every write gets a new
 * ETag (stricter than S3, where rewriting identical content keeps the ETag), so logic that wrongly
 * relies on an ETag staying put shows up here first.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { StateConflictError } from './errors.ts';
import {
  BaseStateStore,
  type CreateResult,
  compareKeys,
  type ListedState,
  type StateListOptions,
} from './store.ts';

/** One call into the store, as seen by {@link MemoryStateStoreOptions.beforeOperation}. */
export interface StateOperation {
  readonly kind: 'get' | 'create' | 'update' | 'delete' | 'list';
  /** The key, or the prefix for `list`. */
  readonly key: string;
}

export interface MemoryStateStoreOptions {
  /**
   * Runs (and is awaited) before each operation touches the data. Throw to inject a failure, or write
   * through the store to simulate a concurrent writer. Calls made from inside the hook are not hooked.
   */
  readonly beforeOperation?: (operation: StateOperation) => void | Promise<void>;
  /** The clock a version's LastModified is taken from (tests that move time). Default: the system clock. */
  readonly now?: () => Date;
}

/** Marks calls made from inside the hook, per async flow, so they skip the hook. */
const insideHook = new AsyncLocalStorage<boolean>();

interface Stored {
  readonly text: string;
  readonly etag: string;
  /** When this version was written (S3's LastModified). */
  readonly modifiedAt: Date;
}

/**
 * @example
 * ```ts
 * const store = new MemoryStateStore();
 * await store.create('checkpoints/assets.json', { lastId: 0 }); // { created: true, etag: '"m1"' }
 * ```
 */
export class MemoryStateStore extends BaseStateStore {
  readonly #objects = new Map<string, Stored>();
  readonly #beforeOperation: MemoryStateStoreOptions['beforeOperation'];
  readonly #now: () => Date;
  #writes = 0;

  constructor(options: MemoryStateStoreOptions = {}) {
    super();
    this.#beforeOperation = options.beforeOperation;
    this.#now = options.now ?? (() => new Date());
  }

  /** Number of stored objects. */
  get size(): number {
    return this.#objects.size;
  }

  async #hook(kind: StateOperation['kind'], key: string): Promise<void> {
    const hook = this.#beforeOperation;
    if (!hook || insideHook.getStore()) return;
    await insideHook.run(true, () => hook({ kind, key }));
  }

  #nextEtag(): string {
    this.#writes += 1;
    return `"m${this.#writes}"`;
  }

  protected async readText(key: string): Promise<Stored | undefined> {
    await this.#hook('get', key);
    return this.#objects.get(key);
  }

  protected async createText(key: string, text: string): Promise<CreateResult> {
    await this.#hook('create', key);
    if (this.#objects.has(key)) return { created: false };
    const etag = this.#nextEtag();
    this.#objects.set(key, { text, etag, modifiedAt: this.#now() });
    return { created: true, etag };
  }

  protected async replaceText(key: string, text: string, etag: string): Promise<{ etag: string }> {
    await this.#hook('update', key);
    const stored = this.#objects.get(key);
    if (!stored) throw new StateConflictError(key, 'it no longer exists');
    if (stored.etag !== etag) throw new StateConflictError(key, `its ETag is ${stored.etag}, not ${etag}`);
    const next = this.#nextEtag();
    this.#objects.set(key, { text, etag: next, modifiedAt: this.#now() });
    return { etag: next };
  }

  protected async removeKey(key: string, etag?: string): Promise<void> {
    await this.#hook('delete', key);
    const stored = this.#objects.get(key);
    if (!stored) return;
    if (etag !== undefined && stored.etag !== etag) {
      throw new StateConflictError(key, `its ETag is ${stored.etag}, not ${etag}`);
    }
    this.#objects.delete(key);
  }

  async *listEntries(prefix: string, options: StateListOptions = {}): AsyncIterable<ListedState> {
    await this.#hook('list', prefix);
    const { startAfter } = options;
    const keys = [...this.#objects.keys()]
      .filter(
        (key) => key.startsWith(prefix) && (startAfter === undefined || compareKeys(key, startAfter) > 0),
      )
      .sort(compareKeys);
    for (const key of keys) {
      const stored = this.#objects.get(key);
      if (stored) yield { key, etag: stored.etag, lastModified: stored.modifiedAt };
    }
  }
}
