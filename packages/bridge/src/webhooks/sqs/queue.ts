/**
 * The SQS adapter of the delivery queue port (../queue.ts): SendMessageBatch, ten tasks a request,
 * each task's endpoint id as its message group. On a standard queue that is SQS's fair-queue
 * grouping: a group with a large backlog (a failing or slow endpoint) does not hold up the messages of
 * the other groups. Entries SQS reports as failed are sent again, then reported.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { RetryPolicy } from '../../core/index.ts';
import { MAX_BATCH_ENTRIES, sendMessageBatch } from '../../events/sqs/index.ts';
import { WebhookError } from '../errors.ts';
import type { DeliveryQueue, DeliveryTask } from '../queue.ts';

/**
 * Entries SQS failed are sent again after 200, 400, 800 ms (no jitter), four sends in all. This is
 * the enqueue's in-process retry; the hours-long delivery schedule (../schedule.ts) is a schedule of
 * deliveries through the queue, not a retry loop, and stays there.
 */
const ENQUEUE_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 200 };

/** The IAM actions on the webhook queue (SendMessageBatch is authorised as SendMessage). */
export const DELIVERY_QUEUE_ACTIONS = Object.freeze(['sqs:SendMessage'] as const);

export class SqsDeliveryQueue implements DeliveryQueue {
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;

  constructor(options: { sqs: SQSClient; queueUrl: string }) {
    this.#sqs = options.sqs;
    this.#queueUrl = options.queueUrl;
  }

  async enqueue(tasks: readonly DeliveryTask[], delaySeconds = 0): Promise<void> {
    for (let start = 0; start < tasks.length; start += MAX_BATCH_ENTRIES) {
      const batch = tasks
        .slice(start, start + MAX_BATCH_ENTRIES)
        .map((task, index) => ({ id: String(index), task }));
      const { left, attempts } = await sendMessageBatch(batch, {
        sqs: this.#sqs,
        queueUrl: this.#queueUrl,
        entry: ({ task }) => ({
          MessageBody: JSON.stringify(task),
          MessageGroupId: task.endpointId,
          ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
        }),
        policy: ENQUEUE_RETRY,
        // Every entry SQS failed is sent again, whoever it blames; one it did not name was taken.
        fate: (failure) => (failure ? 'retry' : 'sent'),
      });
      if (left.length > 0) {
        const reasons = left.map(({ failure }) => `${failure?.Code}: ${failure?.Message}`).join('; ');
        throw new WebhookError(
          'WEBHOOK_QUEUE_FAILED',
          `SQS did not accept ${left.length} webhook task(s) after ${attempts} attempts: ${reasons}. What queued them fails and can be tried again; check WEBHOOK_QUEUE_URL, WEBHOOK_SLOW_QUEUE_URL and the function's sqs:SendMessage permission if this repeats.`,
          { retryable: true },
        );
      }
    }
  }
}
