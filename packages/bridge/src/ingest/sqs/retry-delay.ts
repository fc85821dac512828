/**
 * The SQS half of the redelivery back-off (the policy is ../retry-delay.ts): shortens the visibility of
 * the records a batch handler reported as failed.
 */
import { ChangeMessageVisibilityBatchCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type RetryDelayPolicy, retryDelaySeconds } from '../retry-delay.ts';

/** The IAM actions on the queue the records came from (ChangeMessageVisibilityBatch is authorised as ChangeMessageVisibility). */
export const RETRY_DELAY_ACTIONS = Object.freeze(['sqs:GetQueueUrl', 'sqs:ChangeMessageVisibility'] as const);

/** Finds queue URLs from the ARNs Lambda puts in `eventSourceARN`; cached for the container's life. */
export class QueueUrlLookup {
  readonly #sqs: SQSClient;
  readonly #urls = new Map<string, Promise<string>>();

  constructor(sqs: SQSClient) {
    this.#sqs = sqs;
  }

  /** `arn:aws:sqs:<region>:<account>:<name>` → the queue URL, as the configured endpoint names it. */
  urlOf(queueArn: string): Promise<string> {
    let url = this.#urls.get(queueArn);
    if (!url) {
      const [, , , , account, name] = queueArn.split(':');
      if (!name) throw new TypeError(`Not an SQS queue ARN: ${queueArn}`);
      url = this.#sqs
        .send(
          new GetQueueUrlCommand({
            QueueName: name,
            ...(account ? { QueueOwnerAWSAccountId: account } : {}),
          }),
        )
        .then((answer) => answer.QueueUrl ?? Promise.reject(new Error(`No URL for queue ${queueArn}`)));
      url.catch(() => this.#urls.delete(queueArn));
      this.#urls.set(queueArn, url);
    }
    return url;
  }
}

export interface DelayFailedOptions {
  sqs: SQSClient;
  queues: QueueUrlLookup;
  policy?: RetryDelayPolicy;
  /**
   * Epoch ms before which a record must not come back (for example when the lease of a claim it waits
   * for ends), or undefined for the back-off. Such a record is delayed until then plus
   * {@link NOT_BEFORE_MARGIN_SECONDS}, at most SQS's 43 200 s, whatever its receive count: waiting
   * for someone else's work is not a failure that should move it towards the DLQ. Default: none.
   */
  notBefore?: (record: SQSRecord) => number | undefined;
  /** Epoch ms; defaults to Date.now. */
  now?: () => number;
}

/** Slack after a `notBefore` time, so the lease has surely ended when the record comes back. */
export const NOT_BEFORE_MARGIN_SECONDS = 5;

/** SQS's largest visibility timeout. */
const MAX_VISIBILITY_SECONDS = 43_200;

/**
 * Sets the visibility of every record the response lists as failed to its back-off delay. Best effort:
 * if SQS refuses, the message simply comes back after the queue's own timeout, so nothing is lost;
 * the returned count says how many were delayed.
 *
 * @example
 * ```ts
 * const response = await processPartialResponse(event, recordHandler, processor);
 * await delayFailedRecords(event, response, { sqs, queues });
 * return response;
 * ```
 */
export async function delayFailedRecords(
  event: SQSEvent,
  response: SQSBatchResponse,
  options: DelayFailedOptions,
): Promise<number> {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const byQueue = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    if (!failed.has(record.messageId)) continue;
    byQueue.set(record.eventSourceARN, [...(byQueue.get(record.eventSourceARN) ?? []), record]);
  }
  let delayed = 0;
  for (const [queueArn, records] of byQueue) {
    const queueUrl = await options.queues.urlOf(queueArn);
    // SQS takes at most 10 entries per batch call.
    for (let start = 0; start < records.length; start += 10) {
      const batch = records.slice(start, start + 10);
      const answer = await options.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((record, index) => ({
            Id: String(index),
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: delayOf(record, options),
          })),
        }),
      );
      delayed += answer.Successful?.length ?? 0;
    }
  }
  return delayed;
}

function delayOf(record: SQSRecord, options: DelayFailedOptions): number {
  const notBefore = options.notBefore?.(record);
  if (notBefore !== undefined) {
    const seconds = Math.ceil((notBefore - (options.now ?? Date.now)()) / 1000) + NOT_BEFORE_MARGIN_SECONDS;
    return Math.min(MAX_VISIBILITY_SECONDS, Math.max(NOT_BEFORE_MARGIN_SECONDS, seconds));
  }
  return retryDelaySeconds(Number(record.attributes.ApproximateReceiveCount) || 1, options.policy);
}
