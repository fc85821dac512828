/** The scheduled pollers: messaging assets and supplier reviews become events (see each module). */
export {
  advanceCheckpoint,
  CheckpointFormatError,
  DEFAULT_MAX_RETRY,
  DEFAULT_SEEN_WINDOW,
  type FirstRun,
  initialCheckpoint,
  type MessagingAssetCheckpoint,
  parseCheckpoint,
  type RetryEntry,
  selectCandidates,
} from './checkpoint.ts';
export { CoalescingSink, type CoalescingSinkOptions } from './coalescing-sink.ts';
export { type ExclusiveOptions, type ExclusiveResult, runExclusive } from './exclusive.ts';
export { FINGERPRINT_LENGTH, reviewFingerprint } from './fingerprint.ts';
export {
  MESSAGING_ASSETS_CHECKPOINT,
  type MessagingAssetPollDeps,
  type MessagingAssetPollOptions,
  type MessagingAssetPollReport,
  messagingAssetEvent,
  passedMessagingAssetEvent,
  pollMessagingAssets,
} from './messaging-assets.ts';
export {
  recordMessagingAssetMetrics,
  recordReviewMetrics,
  recordScheduledReviewMetrics,
} from './metrics.ts';
export {
  DEFAULT_FAILURE_LIMIT,
  messageErrorOfFetch,
  messageErrorOfRefusal,
  publishEach,
  reachesFailureLimit,
} from './poison.ts';
export {
  chunkKeys,
  parseReviewKeyChunk,
  ReviewChunkFormatError,
  ReviewFanOutError,
  type ReviewKeyChunk,
  type ReviewKeyQueue,
} from './review-queue.ts';
export { messagingAssetRunFailure, PollIncompleteError, reviewChunkFailure, runWindow } from './run.ts';
export {
  MESSAGING_ASSET_POLL_SETTINGS,
  POLL_SETTINGS,
  REVIEW_POLL_SETTINGS,
} from './settings.ts';
export { SqsReviewKeyQueue } from './sqs/review-queue.ts';
export {
  type KeyOutcome,
  type KeyStatus,
  pollReviewKeys,
  pollSupplierReviews,
  type ReviewPollDeps,
  type ReviewPollOptions,
  type ReviewPollReport,
  reviewEvent,
  type ScheduledReviewPollReport,
} from './supplier-reviews.ts';
