/**
 * The `StateStore` port: small JSON documents under string keys, written with compare-and-swap.
 *
 * Every write is conditional: `create` succeeds only when nothing exists under the key, `update` and
 * a conditional `delete` only when the stored ETag is still the one the caller read. That is what makes
 * progress records, checkpoints, watch entries and leases safe when two invocations race: one wins,
 * the other gets a typed answer (`{ created: false }` or a {@link StateConflictError}) and re-reads.
 * Those answers describe other writers only: a write of this caller that took effect although its
 * answer was lost, and was sent again by the transport, is reported as done (./s3/store.ts says how).
 *
 * Adapters: `S3StateStore` (./s3/store.ts, S3 conditional writes on the state bucket) and
 * `MemoryStateStore` (./memory.ts, same semantics, for unit tests), both on {@link BaseStateStore}.
 * Keys: ./keys.ts and docs/architecture.md, "The state bucket".
 */

import { checkInteger, parseJson, retry } from '../core/index.ts';
import { StateConflictError, StateKeyError, StateValueError } from './errors.ts';

/** A stored value and the ETag that identifies this version of it. */
export interface StateEntry<T> {
  readonly value: T;
  /** Opaque; pass it back to `update` or `delete` unchanged. */
  readonly etag: string;
}

/** One key of a listing and the ETag of its current version. */
export interface ListedState {
  readonly key: string;
  readonly etag: string;
  /**
   * When this version was written, by the store's clock (S3's LastModified); absent when the store
   * cannot say. Lets a reader judge a version's age from the listing alone, without reading it.
   */
  readonly lastModified?: Date;
}

/** Where a listing starts. */
export interface StateListOptions {
  /**
   * Only keys after this one (UTF-8 byte order), as S3's `StartAfter`: a paged reader passes the last
   * key it saw and the listing resumes there instead of from the first key. Need not exist.
   */
  readonly startAfter?: string;
}

/** Outcome of `create`: the new ETag, or the fact that something already exists under the key. */
export type CreateResult = { readonly created: true; readonly etag: string } | { readonly created: false };

/**
 * Decides the next value from the current one (and the ETag it was read with, `undefined` when nothing
 * is stored); `undefined` leaves the stored value as it is.
 */
export type Mutation<T> = (
  current: T | undefined,
  etag: string | undefined,
) => T | undefined | Promise<T | undefined>;

export interface MutateOptions {
  /** Read–modify–write rounds before giving up with a {@link StateConflictError}. Default 10. */
  readonly maxAttempts?: number;
  /** First back-off ceiling in ms; doubles per attempt, with full jitter. Default 10. */
  readonly baseDelayMs?: number;
  /** Largest back-off in ms. Default 500. */
  readonly maxDelayMs?: number;
}

export interface MutateResult<T> {
  /** The value now stored (`undefined` when nothing is stored). */
  readonly value: T | undefined;
  readonly etag: string | undefined;
  /** False when the mutation returned `undefined` or a value equal to the stored one. */
  readonly written: boolean;
  /** Read–modify–write rounds used, 1 without contention. */
  readonly attempts: number;
}

/** JSON documents under keys, with conditional writes. */
export interface StateStore {
  /** The value and its ETag, or `undefined` when nothing is stored under the key. */
  get<T>(key: string): Promise<StateEntry<T> | undefined>;
  /** Stores `value` only if nothing exists under the key (If-None-Match: *). */
  create<T>(key: string, value: T): Promise<CreateResult>;
  /** Replaces the value only if its ETag is still `etag` (If-Match); otherwise throws {@link StateConflictError}. */
  update<T>(key: string, value: T, etag: string): Promise<{ readonly etag: string }>;
  /**
   * Removes the key; with `etag`, only if it is still that version (else {@link StateConflictError}).
   * Removing a key that does not exist is not an error.
   */
  delete(key: string, etag?: string): Promise<void>;
  /** Every key that starts with `prefix` (after `options.startAfter`), in ascending (UTF-8 byte) order. */
  list(prefix: string, options?: StateListOptions): AsyncIterable<string>;
  /**
   * Like `list`, with each key's current ETag (the one `get` would return): lets a caller that cached
   * a value with its ETag tell from the listing alone whether the value changed since.
   */
  listEntries(prefix: string, options?: StateListOptions): AsyncIterable<ListedState>;
  /**
   * Read–modify–write with conditional writes, retried with jittered back-off on conflicts. `fn` may run
   * more than once, so it must only compute (no side effects).
   *
   * @example
   * ```ts
   * await store.mutate<{ count: number }>('checkpoints/runs.json', (c) => ({ count: (c?.count ?? 0) + 1 }));
   * ```
   */
  mutate<T>(key: string, fn: Mutation<T>, options?: MutateOptions): Promise<MutateResult<T>>;
}

/** UTF-8 byte order of two keys, the order S3 lists in (not UTF-16 code-unit order, not locale order). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * Deletes `key` only if it is still the version `etag` (the one the caller read and judged): true
 * when it was deleted, false when a writer changed it meanwhile (that newer version stays).
 *
 * @example
 * ```ts
 * const stored = await store.get<Marker>(key);
 * if (stored && isStale(stored.value)) await deleteIfUnchanged(store, key, stored.etag);
 * ```
 */
export async function deleteIfUnchanged(
  store: Pick<StateStore, 'delete'>,
  key: string,
  etag: string,
): Promise<boolean> {
  try {
    await store.delete(key, etag);
    return true;
  } catch (error) {
    if (error instanceof StateConflictError) return false;
    throw error;
  }
}

/** Longest key S3 accepts, in UTF-8 bytes. */
export const MAX_STATE_KEY_BYTES = 1024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Throws {@link StateKeyError} unless `key` is a storable key. */
export function assertStateKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new StateKeyError(String(key), 'it is empty');
  if (!key.isWellFormed()) throw new StateKeyError(key, 'it contains a lone UTF-16 surrogate');
  if (Buffer.byteLength(key, 'utf8') > MAX_STATE_KEY_BYTES) {
    throw new StateKeyError(key, `it is longer than ${MAX_STATE_KEY_BYTES} UTF-8 bytes`);
  }
  if (CONTROL_CHARACTERS.test(key)) throw new StateKeyError(key, 'it contains control characters');
  if (key.startsWith('/')) throw new StateKeyError(key, 'it starts with a slash');
  if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw new StateKeyError(key, 'it contains an empty, "." or ".." path segment');
  }
}

/** Serialises a value for storage, refusing what JSON cannot represent. */
export function serializeState(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StateValueError(key, `the value cannot be written as JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (text === undefined) {
    throw new StateValueError(
      key,
      'the value cannot be written as JSON (undefined or a function); use delete to remove',
    );
  }
  return text;
}

/** Parses a stored document, naming the key when it is not JSON. */
export function parseState<T>(key: string, text: string): T {
  try {
    return parseJson(text) as T;
  } catch (error) {
    throw new StateValueError(
      key,
      `the stored document is not valid JSON (${(error as Error).message}); fix or delete the object`,
      { cause: error },
    );
  }
}

/**
 * The read–modify–write loop behind `StateStore.mutate`, written once over the other four operations.
 *
 * @example
 * ```ts
 * mutate(store, key, (current) => ({ ...current, seen: true }), { maxAttempts: 5 });
 * ```
 */
export async function mutate<T>(
  store: Pick<StateStore, 'get' | 'create' | 'update'>,
  key: string,
  fn: Mutation<T>,
  options: MutateOptions = {},
): Promise<MutateResult<T>> {
  const maxAttempts = options.maxAttempts ?? 10;
  checkInteger('maxAttempts', maxAttempts, { min: 1 });
  let conflict: StateConflictError | undefined;
  const lost = (attempt: number, cause: unknown) => {
    conflict = new StateConflictError(
      key,
      `still contended after ${attempt} read-modify-write attempts (raise maxAttempts or reduce concurrent writers)`,
      { cause },
    );
    return conflict;
  };
  // Full jitter after each conflict: attempt 2 waits up to baseDelayMs, each further one twice that.
  return retry((attempt) => mutateOnce(store, key, fn, attempt, lost), {
    maxAttempts,
    baseDelayMs: options.baseDelayMs ?? 10,
    maxDelayMs: options.maxDelayMs ?? 500,
    retryable: (error) => error === conflict,
  });
}

/** One read–modify–write; a write lost to a concurrent writer throws what `lost` makes of it. */
async function mutateOnce<T>(
  store: Pick<StateStore, 'get' | 'create' | 'update'>,
  key: string,
  fn: Mutation<T>,
  attempt: number,
  lost: (attempt: number, conflict: unknown) => StateConflictError,
): Promise<MutateResult<T>> {
  const current = await store.get<T>(key);
  const next = await fn(current?.value, current?.etag);
  if (next === undefined) {
    return { value: current?.value, etag: current?.etag, written: false, attempts: attempt };
  }
  if (current && serializeState(key, next) === serializeState(key, current.value)) {
    return { value: current.value, etag: current.etag, written: false, attempts: attempt };
  }
  try {
    if (current === undefined) {
      const created = await store.create(key, next);
      if (created.created) return { value: next, etag: created.etag, written: true, attempts: attempt };
      throw lost(attempt, new StateConflictError(key, 'it was created concurrently'));
    }
    const { etag } = await store.update(key, next, current.etag);
    return { value: next, etag, written: true, attempts: attempt };
  } catch (error) {
    if (!(error instanceof StateConflictError)) throw error;
    throw lost(attempt, error);
  }
}

/**
 * The part of a `StateStore` every adapter shares, written once: key checks, JSON in and out, `list`
 * from `listEntries`, and `mutate`. An adapter implements the conditional primitives on stored text.
 *
 * @example
 * ```ts
 * class MapStateStore extends BaseStateStore {
 *   protected async readText(key: string) { … } // { text, etag } or undefined
 *   // createText, replaceText, removeKey, listEntries likewise
 * }
 * ```
 */
export abstract class BaseStateStore implements StateStore {
  /** The stored text under a checked key and its ETag; `undefined` when nothing is stored. */
  protected abstract readText(key: string): Promise<{ text: string; etag: string } | undefined>;
  /** Stores `text` only if nothing exists under the key (`create`'s semantics). */
  protected abstract createText(key: string, text: string): Promise<CreateResult>;
  /** Replaces the text only if the ETag is still `etag` (`update`'s semantics). */
  protected abstract replaceText(key: string, text: string, etag: string): Promise<{ etag: string }>;
  /** Removes the key, with `etag` only if it is still that version (`delete`'s semantics). */
  protected abstract removeKey(key: string, etag?: string): Promise<void>;
  abstract listEntries(prefix: string, options?: StateListOptions): AsyncIterable<ListedState>;

  async get<T>(key: string): Promise<StateEntry<T> | undefined> {
    assertStateKey(key);
    const stored = await this.readText(key);
    return stored && { value: parseState<T>(key, stored.text), etag: stored.etag };
  }

  async create<T>(key: string, value: T): Promise<CreateResult> {
    assertStateKey(key);
    return this.createText(key, serializeState(key, value));
  }

  async update<T>(key: string, value: T, etag: string): Promise<{ etag: string }> {
    assertStateKey(key);
    return this.replaceText(key, serializeState(key, value), etag);
  }

  async delete(key: string, etag?: string): Promise<void> {
    assertStateKey(key);
    await this.removeKey(key, etag);
  }

  async *list(prefix: string, options?: StateListOptions): AsyncIterable<string> {
    for await (const entry of this.listEntries(prefix, options)) yield entry.key;
  }

  mutate<T>(key: string, fn: Mutation<T>, options?: MutateOptions): Promise<MutateResult<T>> {
    return mutate(this, key, fn, options);
  }
}
