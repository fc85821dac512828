/**
 * A StateStore that passes every call to another one and counts what went over the wire: requests by
 * kind and the bytes of every document written (create and update, as serialised for storage). For
 * tests and benchmarks that assert or print how state traffic grows, on any adapter.
 */
import {
  type CreateResult,
  type ListedState,
  type MutateOptions,
  type MutateResult,
  type Mutation,
  mutate,
  type StateEntry,
  type StateListOptions,
  type StateStore,
  serializeState,
} from '../../packages/bridge/src/state/store.ts';

export type StateRequestKind = 'get' | 'create' | 'update' | 'delete' | 'list';

export class TrafficCountingStore implements StateStore {
  readonly #inner: StateStore;
  readonly requests: Record<StateRequestKind, number> = { get: 0, create: 0, update: 0, delete: 0, list: 0 };
  /** UTF-8 bytes of every document sent with create or update, refused creates included. */
  bytesWritten = 0;
  /** Bytes written per kind of key (see `kindOf`). */
  readonly bytesByKind = new Map<string, number>();

  readonly kindOf: (key: string) => string;

  /** @param kindOf names the kind a key's bytes are counted under in `bytesByKind` */
  constructor(inner: StateStore, kindOf: (key: string) => string = () => 'all') {
    this.#inner = inner;
    this.kindOf = kindOf;
  }

  /** Every request so far. */
  get totalRequests(): number {
    return Object.values(this.requests).reduce((sum, count) => sum + count, 0);
  }

  #wrote(key: string, value: unknown): void {
    const bytes = Buffer.byteLength(serializeState(key, value), 'utf8');
    this.bytesWritten += bytes;
    const kind = this.kindOf(key);
    this.bytesByKind.set(kind, (this.bytesByKind.get(kind) ?? 0) + bytes);
  }

  get<T>(key: string): Promise<StateEntry<T> | undefined> {
    this.requests.get += 1;
    return this.#inner.get<T>(key);
  }

  create<T>(key: string, value: T): Promise<CreateResult> {
    this.requests.create += 1;
    this.#wrote(key, value);
    return this.#inner.create(key, value);
  }

  update<T>(key: string, value: T, etag: string): Promise<{ readonly etag: string }> {
    this.requests.update += 1;
    this.#wrote(key, value);
    return this.#inner.update(key, value, etag);
  }

  delete(key: string, etag?: string): Promise<void> {
    this.requests.delete += 1;
    return this.#inner.delete(key, etag);
  }

  async *list(prefix: string, options?: StateListOptions): AsyncIterable<string> {
    for await (const entry of this.listEntries(prefix, options)) yield entry.key;
  }

  async *listEntries(prefix: string, options?: StateListOptions): AsyncIterable<ListedState> {
    // One request per listing page of 1,000 keys, as S3's ListObjectsV2.
    let listed = 0;
    this.requests.list += 1;
    for await (const entry of this.#inner.listEntries(prefix, options)) {
      if (listed > 0 && listed % 1000 === 0) this.requests.list += 1;
      listed += 1;
      yield entry;
    }
  }

  mutate<T>(key: string, fn: Mutation<T>, options?: MutateOptions): Promise<MutateResult<T>> {
    return mutate(this, key, fn, options);
  }
}
