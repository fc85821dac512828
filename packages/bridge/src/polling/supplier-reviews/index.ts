/**
 * The supplier-review poller's room: the scheduled run and the fan-out worker's chunk poll (run.ts),
 * each key through the stages — select (select.ts), fetch and parse (fetch.ts), publish (publish.ts),
 * record progress shard by shard (shards.ts, review-progress.ts) — folded into a report (report.ts);
 * the fan-out's chunk format (review-queue.ts) and the fingerprints that say a review was emitted
 * (fingerprint.ts). Two more entries: the SQS fan-out queue (./sqs/review-queue.ts), which loads
 * the AWS SDK, and the progress shards (./review-progress.ts), which the API's watch routes and
 * `pds watch` read and forget (`seenReviewCounts`, `unwatch`) without loading the poller. The kernel both pollers share (lease, run window, poison rule, metrics) is ../.
 */
export { FINGERPRINT_LENGTH, reviewFingerprint } from './fingerprint.ts';
export {
  growLayout,
  type KeyProgress,
  progressShardOf,
  readProgress,
} from './review-progress.ts';
export {
  type ChunkShards,
  chunkKeys,
  chunkLayout,
  DEFAULT_CHUNK_SIZE,
  keysToPoll,
  MAX_CHUNK_BYTES,
  parseReviewKeyChunk,
  type ReviewKeyChunk,
  type ReviewKeyQueue,
} from './review-queue.ts';
export { pollReviewKeys, pollSupplierReviews } from './run.ts';
export type {
  KeyOutcome,
  KeyStatus,
  KeyToPoll,
  ReviewPollDeps,
  ReviewPollOptions,
  ReviewPollReport,
  ScheduledReviewPollOptions,
  ScheduledReviewPollReport,
} from './types.ts';
