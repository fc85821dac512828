/**
 * How a scheduled run or a fan-out chunk ends when it did not finish its work: with a
 * PollIncompleteError that says what stopped it and what happens next, so Lambda (or SQS) records a
 * failure and the next run or delivery picks up from the checkpoint.
 */
import { PollIncompleteError } from './errors.ts';
import type { MessagingAssetPollReport } from './messaging-assets/index.ts';
import type { ReviewPollReport } from './supplier-reviews/index.ts';

/**
 * The error a messaging-asset run must end with, or `undefined` when it ended as it should.
 *
 * @example
 * const failure = messagingAssetRunFailure(report); if (failure) throw failure;
 */
export function messagingAssetRunFailure(report: MessagingAssetPollReport): PollIncompleteError | undefined {
  if (report.stopped === 'pds-unavailable') {
    return new PollIncompleteError(
      `Messaging-asset poll stopped: every fetch of a page failed (${report.failed} failed). The PDS looks unavailable or refuses the credentials; check PDS_BASE_URL and the credentials. The next run starts from the same place.`,
    );
  }
  if (report.stopped === 'publish-failed') {
    return new PollIncompleteError(
      `Messaging-asset poll stopped: SQS did not accept ${report.unpublished} events. Check the event queue and the function's sqs:SendMessage permission; the next run sends them again.`,
    );
  }
  return undefined;
}

/**
 * The error a fan-out chunk must end with (so SQS delivers it again and, in the end, to its DLQ), or
 * `undefined` when every key was handled.
 */
export function reviewChunkFailure(report: ReviewPollReport): PollIncompleteError | undefined {
  if (report.keysFailed === 0 && report.keysDeferred === 0) return undefined;
  return new PollIncompleteError(
    `Review poll of ${report.keys} keys incomplete: ${report.keysFailed} failed${report.failedKeys.length > 0 ? ` (${report.failedKeys.join(', ')})` : ''}, ${report.keysDeferred} not reached before the deadline. The chunk is delivered again; keys already handled are not emitted twice.`,
  );
}
