/**
 * The SQS adapter of the delivery queue port (../queue.ts): SendMessageBatch, ten tasks a request,
 * each task's endpoint id as its message group. On a standard queue that is SQS's fair-queue
 * grouping: a group with a large backlog (a failing or slow endpoint) does not hold up the messages of
 * the other groups. Entries SQS reports as failed are sent again, then reported.
 */
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sleep } from '../../core/index.ts';
import type { DeliveryQueue, DeliveryTask } from '../queue.ts';

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
    for (let start = 0; start < tasks.length; start += 10) {
      let batch = tasks.slice(start, start + 10).map((task, index) => ({ id: String(index), task }));
      for (let attempt = 1; batch.length > 0; attempt++) {
        const answer = await this.#sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.#queueUrl,
            Entries: batch.map(({ id, task }) => ({
              Id: id,
              MessageBody: JSON.stringify(task),
              MessageGroupId: task.endpointId,
              ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
            })),
          }),
        );
        const failed = new Set((answer.Failed ?? []).map((each) => each.Id));
        batch = batch.filter(({ id }) => failed.has(id));
        if (batch.length > 0 && attempt >= 4) {
          const reasons = (answer.Failed ?? []).map((each) => `${each.Code}: ${each.Message}`).join('; ');
          throw new Error(
            `SQS did not accept ${batch.length} webhook task(s) after ${attempt} attempts: ${reasons}`,
          );
        }
        if (batch.length > 0) await sleep(100 * 2 ** attempt);
      }
    }
  }
}
