/** The pollers' errors (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError } from '../core/index.ts';
import { PROGRESS_BASE_LEVEL, PROGRESS_LAYOUT_KEY } from './keys.ts';

/**
 * A run stopped before its end for a reason an operator must see (the PDS was unavailable, SQS did
 * not accept events, keys failed). Thrown by handlers after metrics were recorded, so the invocation
 * counts as failed; nothing is lost: the next run picks up where this one stopped.
 */
export class PollIncompleteError extends BridgeError {
  constructor(message: string) {
    super('POLL_INCOMPLETE', message, { retryable: true });
    this.name = 'PollIncompleteError';
  }
}

/** A fan-out message body is not a chunk this bridge wrote. */
export class ReviewChunkFormatError extends BridgeError {
  constructor(detail: string) {
    super(
      'REVIEW_CHUNK_INVALID',
      `Fan-out message is not a review-poll chunk (${detail}); only the poll-supplier-reviews function should send to REVIEW_POLL_QUEUE_URL. The message goes to the queue's DLQ; delete it there.`,
    );
    this.name = 'ReviewChunkFormatError';
  }
}

/** Some chunks were not accepted by SQS; their keys are polled by the next scheduled run. */
export class ReviewFanOutError extends BridgeError {
  readonly failedChunks: number;

  constructor(failedChunks: number, totalChunks: number, reason: string) {
    super(
      'REVIEW_FAN_OUT_FAILED',
      `${failedChunks} of ${totalChunks} review-poll chunks were not accepted by the fan-out queue: ${reason}. Their keys are polled again by the next scheduled run; check REVIEW_POLL_QUEUE_URL and the function's sqs:SendMessage permission if this repeats.`,
      { retryable: true },
    );
    this.name = 'ReviewFanOutError';
    this.failedChunks = failedChunks;
  }
}

/** The stored checkpoint is not one this poller wrote. */
export class CheckpointFormatError extends BridgeError {
  readonly key: string;

  constructor(key: string, issues: string) {
    super(
      'CHECKPOINT_INVALID',
      `The checkpoint "${key}" in the state bucket is not a messaging-asset checkpoint (${issues}); fix it, or delete it to start again as POLL_FIRST_RUN says`,
    );
    this.name = 'CheckpointFormatError';
    this.key = key;
  }
}

/** A shard was sealed by a level the caller's layout does not know yet: read the layout again. */
export class ProgressLayoutChangedError extends BridgeError {
  constructor(level: number, sealedBy: number) {
    super(
      'PROGRESS_LAYOUT_CHANGED',
      `A review-progress shard of level ${level} was split into level ${sealedBy} by a newer run; read ${PROGRESS_LAYOUT_KEY} again`,
      { retryable: true },
    );
    this.name = 'ProgressLayoutChangedError';
  }
}

/** The stored layout is not one this bridge wrote. */
export class ProgressLayoutError extends BridgeError {
  constructor(detail: string) {
    super(
      'PROGRESS_LAYOUT_INVALID',
      `${PROGRESS_LAYOUT_KEY} is not a review-progress layout (${detail}); restore it from the state bucket's object versions (deleting it would lose the progress kept above level ${PROGRESS_BASE_LEVEL})`,
    );
    this.name = 'ProgressLayoutError';
  }
}

/**
 * A run died (out of memory, a timeout, a killed process) while it was fetching or parsing this
 * messaging asset: it counts as one failed run of the asset (checkpoint.ts, `inFlight`). Once the
 * asset reached `POLL_FAILURE_LIMIT` such runs it is passed with `messageError` without being
 * fetched again, so no asset can stop the poller for good.
 */
export class PollInterruptedError extends BridgeError {
  readonly messagingAssetId: number;

  constructor(messagingAssetId: number, failedRuns: number) {
    super(
      'POLL_INTERRUPTED',
      `The poller stopped (out of memory, a timeout or a crash) while handling messaging asset ${messagingAssetId}, on ${failedRuns} consecutive runs; it is passed without being fetched again. Fetch it from the PDS by its id to see why.`,
    );
    this.name = 'PollInterruptedError';
    this.messagingAssetId = messagingAssetId;
  }
}
