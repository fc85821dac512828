/**
 * What a scheduled run needs from the Lambda around it: how long it may work (so it stops starting
 * pages or keys in time to write its checkpoint) and how long its lease must last (longer than the
 * invocation can live, so no other run can take it over while this one still works).
 */

import { PollIncompleteError } from './errors.ts';
import type { MessagingAssetPollReport } from './messaging-assets.ts';
import type { ReviewPollReport } from './supplier-reviews.ts';

/** Part of the Lambda context the pollers read. */
export interface RemainingTime {
  getRemainingTimeInMillis(): number;
}

export interface RunWindow {
  /** Epoch ms after which no new page or key is started. */
  deadline: number;
  /** Lease TTL: the remaining time plus a minute. */
  leaseTtlMs: number;
}

/** Time kept back at the end of an invocation for the last publish and checkpoint write. */
export const STOP_MARGIN_MS = 20_000;

/**
 * The window of one invocation.
 *
 * @example
 * const { deadline, leaseTtlMs } = runWindow(context); // 300 s timeout → stop starting work after ~280 s
 */
export function runWindow(context: RemainingTime, now = Date.now()): RunWindow {
  const remaining = Math.max(0, context.getRemainingTimeInMillis());
  // Short invocations (tests, manual runs) keep a fifth of their time back instead of 20 s.
  const margin = Math.min(STOP_MARGIN_MS, Math.floor(remaining / 5));
  return { deadline: now + remaining - margin, leaseTtlMs: remaining + 60_000 };
}

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
