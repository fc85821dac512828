/**
 * The state layer's public surface: the `StateStore` port, its memory implementation and errors, and
 * the rules of the state bucket's keys with the registry of its prefixes (each flow builds its own
 * keys). What is built on the port has an entry of its own: claims (`./claim.ts`), leases
 * (`./lease.ts`), the watch list (`./watch-list.ts`) and the activity index (`./activity-index.ts`).
 * The S3 adapter is a separate entry (`./s3/index.ts`) because it loads the AWS SDK, which building
 * records must not.
 */
export {
  StateConflictError,
  StateKeyError,
  StateStoreError,
  StateValueError,
  WatchListError,
} from './errors.ts';
export {
  declaredStatePrefixes,
  decodeKeySegment,
  encodeKeyPart,
  encodeKeySegment,
  leaseKey,
  MAX_READABLE_SEGMENT,
  sha256Hex,
  statePrefix,
  WATCH_PREFIX,
  watchKey,
} from './keys.ts';
export { MemoryStateStore, type MemoryStateStoreOptions, type StateOperation } from './memory.ts';
export {
  type CreateResult,
  compareKeys,
  deleteIfUnchanged,
  type ListedState,
  type MutateOptions,
  type MutateResult,
  type Mutation,
  mutate,
  type StateEntry,
  type StateListOptions,
  type StateStore,
} from './store.ts';
