/**
 * The state layer's public surface: the `StateStore` port, claims and leases built on it, the rules
 * of the state bucket's keys with the registry of its prefixes (each flow builds its own keys) and
 * the watch list. The S3 adapter is a separate entry (`./s3/index.ts`)
 * because it loads the AWS SDK, which building records must not.
 */
export {
  ACTIVITY_MARKER_GRACE_MS,
  type ActivityMarker,
  activityFamilyPrefix,
  markedInWindow,
  openMarkerKey,
  openMarkerPrefix,
  recordKeyOfMarker,
  timeMarkerKey,
  timeMarkerPrefix,
  writeActivityMarker,
} from './activity-index.ts';
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
