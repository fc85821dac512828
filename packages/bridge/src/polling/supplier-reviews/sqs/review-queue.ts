/**
 * The SQS adapter of the review fan-out port (../review-queue.ts): the scheduled supplier-review run
 * sends its chunks through it.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import { currentTraceparent, type RetryPolicy, TRACEPARENT_ATTRIBUTE } from '../../../core/index.ts';
import { toSendableJson } from '../../../events/index.ts';
import { packBatches, sendMessageBatch } from '../../../events/sqs/index.ts';
import { ReviewFanOutError } from '../../errors.ts';
import type { ReviewKeyChunk, ReviewKeyQueue } from '../review-queue.ts';

/**
 * Entries SQS failed on its side are sent again after 100 ms, then 200 ms (doubling, no jitter, as
 * sendMessageBatch does; with the default 3 attempts the same waits as the linear steps it had before).
 */
const RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 100 };

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
      const { refused, left } = await sendMessageBatch(batch, {
        sqs: this.#sqs,
        queueUrl: this.#queueUrl,
        entry: (item) => ({
          MessageBody: item.body,
          // The worker continues this trace: its events name the run that found the keys.
          MessageAttributes: { [TRACEPARENT_ATTRIBUTE]: { DataType: 'String', StringValue: traceparent } },
        }),
        policy,
      });
      failed += refused.length + left.length;
      // The reason named is the last SQS gave: the first entry still failing, else the last refused.
      const last = left[0] ?? refused.at(-1);
      if (last !== undefined) {
        reason = last.failure
          ? `${last.failure.Code}: ${last.failure.Message}`
          : 'SQS reported neither success nor failure';
      }
    }
    if (failed > 0) throw new ReviewFanOutError(failed, chunks.length, reason);
  }
}
