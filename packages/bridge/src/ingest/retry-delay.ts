/**
 * Backs off SQS redeliveries of the records a batch handler reported as failed.
 *
 * A Lambda SQS event source retries a failed record when its visibility timeout runs out. For the
 * ingest queue that timeout must be 6 × a 15-minute function timeout (AWS's guidance), so a
 * transient PDS outage would otherwise be retried only 90 minutes later. Shortening the visibility
 * of just the failed messages, exponentially with their receive count, retries them after
 * 30 s, 1 min, 2 min, … while the queue keeps its long timeout for messages still being worked on.
 * The queue's redrive policy still moves a message to the DLQ after `maxReceiveCount` receives.
 *
 * This file is the policy, free of the AWS SDK so the settings can name its default; the SQS calls
 * are in ./sqs/retry-delay.ts.
 */
import { backoffDelayMs } from '../core/index.ts';

export interface RetryDelayPolicy {
  /** Delay before the first retry, in seconds. */
  baseSeconds: number;
  /** Largest delay, in seconds (SQS allows at most 43 200). */
  maxSeconds: number;
}

export const DEFAULT_RETRY_DELAY: RetryDelayPolicy = Object.freeze({ baseSeconds: 30, maxSeconds: 900 });

/**
 * The delay before the next delivery of a message received `receiveCount` times: base × 2^(n−1), capped.
 * Without jitter, on purpose: SQS delays whole messages by seconds, and operators read the schedule.
 */
export function retryDelaySeconds(
  receiveCount: number,
  policy: RetryDelayPolicy = DEFAULT_RETRY_DELAY,
): number {
  const attempt = Math.max(1, Math.min(receiveCount, 21));
  return backoffDelayMs(attempt, { baseMs: policy.baseSeconds, maxMs: policy.maxSeconds }, () => 1);
}
