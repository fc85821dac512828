/**
 * The SQS adapter of the review fan-out port (../review-queue.ts): the scheduled supplier-review run
 * sends its chunks through it.
 */
import { type BatchResultErrorEntry, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import {
  currentTraceparent,
  type RetryPolicy,
  retryEach,
  TRACEPARENT_ATTRIBUTE,
} from '../../../core/index.ts';
import { toSendableJson } from '../../../events/index.ts';
import { packBatches } from '../../../events/sqs/index.ts';
import { ReviewFanOutError } from '../../errors.ts';
import type { ReviewKeyChunk, ReviewKeyQueue } from '../review-queue.ts';

/**
 * Entries SQS failed on its side are sent again after 100 ms, then 200 ms (doubling, no jitter; with
 * the default 3 attempts the same waits as the linear steps it had before).
 */
const RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 100,
  maxDelayMs: Number.POSITIVE_INFINITY,
  jitter: 'none',
};

/** The IAM actions on the review-poll queue (SendMessageBatch is authorised as SendMessage). */
export const REVIEW_KEY_QUEUE_ACTIONS = Object.freeze(['sqs:SendMessage'] as const);

export interface SqsReviewKeyQueueOptions {
  sqs: SQSClient;
  queueUrl: string;
  /** Sends per entry, the first included, for entries SQS failed without blaming the sender; default 3. */
  maxAttempts?: number;
}

/**
 * Sends chunks with SendMessageBatch (10 entries and 1 MiB per request), retrying entries SQS failed
 * on its side.
 *
 * @example
 * await new SqsReviewKeyQueue({ sqs: sqsClient(), queueUrl }).send(chunkKeys(keys, { runId, now: new Date() }));
 */
export class SqsReviewKeyQueue implements ReviewKeyQueue {
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;
  readonly #maxAttempts: number;

  constructor(options: SqsReviewKeyQueueOptions) {
    this.#sqs = options.sqs;
    this.#queueUrl = options.queueUrl;
    this.#maxAttempts = options.maxAttempts ?? 3;
  }

  async send(chunks: readonly ReviewKeyChunk[]): Promise<void> {
    const traceparent = currentTraceparent();
    // SQS counts an attribute's name, data type and value in the message's size.
    const attributeBytes = TRACEPARENT_ATTRIBUTE.length + 'String'.length + traceparent.length;
    const items = chunks.map((chunk, index) => {
      // Keys are the PDS's data: characters SQS refuses are escaped, so no key can block a chunk.
      const body = toSendableJson(chunk);
      return { id: `c${index}`, body, bytes: Buffer.byteLength(body, 'utf8') + attributeBytes };
    });
    let failed = 0;
    let reason = '';
    const policy = { ...RETRY, maxAttempts: this.#maxAttempts };
    for (const batch of packBatches(items)) {
      let failures = new Map<string | undefined, BatchResultErrorEntry>();
      const { left } = await retryEach(
        batch,
        async (pending) => {
          const answer = await this.#sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: this.#queueUrl,
              Entries: pending.map((item) => ({
                Id: item.id,
                MessageBody: item.body,
                // The worker continues this trace: its events name the run that found the keys.
                MessageAttributes: {
                  [TRACEPARENT_ATTRIBUTE]: { DataType: 'String', StringValue: traceparent },
                },
              })),
            }),
          );
          failures = new Map((answer.Failed ?? []).map((entry) => [entry.Id, entry]));
          const succeeded = new Set((answer.Successful ?? []).map((entry) => entry.Id));
          const refused = pending.filter((item) => failures.get(item.id)?.SenderFault === true);
          for (const item of refused)
            reason = `${failures.get(item.id)?.Code}: ${failures.get(item.id)?.Message}`;
          failed += refused.length;
          return pending.filter(
            (item) => !succeeded.has(item.id) && failures.get(item.id)?.SenderFault !== true,
          );
        },
        policy,
      );
      if (left.length > 0) {
        failed += left.length;
        const entry = failures.get(left[0]?.id);
        reason = entry ? `${entry.Code}: ${entry.Message}` : 'SQS reported neither success nor failure';
      }
    }
    if (failed > 0) throw new ReviewFanOutError(failed, chunks.length, reason);
  }
}
