/**
 * The state layer's public surface: the `StateStore` port, claims and leases built on it, the state
 * bucket's key layout and the watch list. The S3 adapter is a separate entry (`./s3/index.ts`)
 * because it loads the AWS SDK, which building records must not.
 */
export {
  type AcquireResult,
  type AdvanceResult,
  acquireClaim,
  advanceClaim,
  type Claim,
  type ClaimPolicy,
  type ClaimStore,
  type ReleaseResult,
  releaseClaim,
} from './claim.ts';
export {
  StateConflictError,
  StateKeyError,
  StateStoreError,
  StateValueError,
  WatchListError,
} from './errors.ts';
export {
  checkpointKey,
  claimCheckKey,
  confirmationChannelPrefix,
  confirmationDeadlineKey,
  confirmationItemPrefix,
  confirmationKey,
  deadlineOfConfirmationDeadlineKey,
  encodeKeySegment,
  ingestEntriesKey,
  ingestObjectPrefix,
  ingestProgressKey,
  isIngestProgressKey,
  leaseKey,
  type ObjectWrite,
  publicationKey,
  STATE_PREFIXES,
  sha256Hex,
  watchKey,
} from './keys.ts';
export {
  acquireLease,
  type Lease,
  type LeaseRecord,
  type LeaseRunOutcome,
  releaseLease,
  renewLease,
} from './lease.ts';
export { MemoryStateStore, type MemoryStateStoreOptions, type StateOperation } from './memory.ts';
export {
  type CreateResult,
  type ListedState,
  type MutateOptions,
  type MutateResult,
  type Mutation,
  mutate,
  type StateEntry,
  type StateStore,
} from './store.ts';
export {
  getWatchEntry,
  isExpired,
  purgeIfExpired,
  type ReviewFailure,
  readWatchEntry,
  type WatchEntry,
  type WatchedKey,
  type WatchOptions,
  watch,
  watchEntries,
  watchedKeys,
} from './watch-list.ts';
