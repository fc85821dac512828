/**
 * SendMessageBatch, written once for the bridge's SQS adapters (the event publisher, the review
 * fan-out, the webhook delivery queue): its limits, and one request with its per-entry retry. SQS
 * answers which entries it took and which it failed; the ones failed for now are sent again, alone,
 * under the core retry policy (packages/bridge/src/core/retry.ts), and what is left is handed back
 * with SQS's own failure entry so each adapter words its error as before.
 */
import {
  type BatchResultErrorEntry,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { type RetryPolicy, type RetryRun, retryEach } from '../../core/index.ts';
import { packEntries } from '../entry-retry.ts';

/** SQS limits of one SendMessageBatch request. */
export const MAX_BATCH_ENTRIES = 10;
export const MAX_BATCH_BYTES = 1_048_576;

/** Splits one queue's messages into requests of at most 10 entries and 1 MiB, keeping their order. */
export function packBatches<T extends { bytes: number }>(items: readonly T[]): T[][] {
  return packEntries(items, MAX_BATCH_ENTRIES, MAX_BATCH_BYTES);
}

/** What becomes of one entry after an answer: taken, refused for good, or sent again. */
export type BatchEntryFate = 'sent' | 'refused' | 'retry';

/**
 * The rule of the bridge's SQS senders: an entry is taken when SQS lists it as successful and not as
 * failed, refused when SQS blames the sender (sending it unchanged cannot help), sent again otherwise
 * (failed on SQS's side, or named in neither list).
 *
 * @example
 * sqsEntryFate({ Id: 'm0', Code: 'InternalError', SenderFault: false }, false); // 'retry'
 */
export function sqsEntryFate(failure: BatchResultErrorEntry | undefined, succeeded: boolean): BatchEntryFate {
  if (failure === undefined && succeeded) return 'sent';
  return failure?.SenderFault === true ? 'refused' : 'retry';
}

/** An entry not taken, with what SQS said of it last (none when it named the entry in neither list). */
export interface UnsentEntry<T> {
  item: T;
  failure: BatchResultErrorEntry | undefined;
}

/** The entries of one batch SQS did not take. */
export interface BatchSendResult<T> {
  /** Refused by `fate`, in the order SQS refused them. */
  refused: UnsentEntry<T>[];
  /** Still failing when the policy gave up, in the batch's order. */
  left: UnsentEntry<T>[];
  /** Requests made. */
  attempts: number;
}

export interface BatchSendOptions<T> {
  sqs: SQSClient;
  queueUrl: string;
  /** The message of an item, without its `Id` (the item's `id`). */
  entry: (item: T) => Omit<SendMessageBatchRequestEntry, 'Id'>;
  /**
   * Attempts per entry and the first wait; doubling, no jitter and no ceiling unless it says otherwise.
   */
  policy: RetryPolicy;
  /** Which entries are refused or sent again; default {@link sqsEntryFate}. */
  fate?: (failure: BatchResultErrorEntry | undefined, succeeded: boolean) => BatchEntryFate;
  run?: RetryRun;
}

/**
 * Sends `items` (at most 10, ids unique within the batch) with SendMessageBatch, sending again alone
 * the entries `fate` says to, until none is left or the policy gives up. A request that throws ends
 * the send as it came (the SDK has retried it as a whole already).
 *
 * @example
 * ```ts
 * const { refused, left } = await sendMessageBatch(batch, {
 *   sqs, queueUrl, entry: (item) => ({ MessageBody: item.body }), policy: { maxAttempts: 3, baseDelayMs: 100 },
 * });
 * ```
 */
export async function sendMessageBatch<T extends { readonly id: string }>(
  items: readonly T[],
  options: BatchSendOptions<T>,
): Promise<BatchSendResult<T>> {
  const fate = options.fate ?? sqsEntryFate;
  const refused: UnsentEntry<T>[] = [];
  const lastFailure = new Map<string, BatchResultErrorEntry | undefined>();
  const { left, attempts } = await retryEach(
    items,
    async (pending) => {
      const answer = await options.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: pending.map((item) => ({ Id: item.id, ...options.entry(item) })),
        }),
      );
      const failures = new Map(answer.Failed?.map((entry) => [entry.Id, entry]));
      const taken = new Set(answer.Successful?.map((entry) => entry.Id));
      const retry: T[] = [];
      for (const item of pending) {
        const failure = failures.get(item.id);
        const verdict = fate(failure, taken.has(item.id));
        if (verdict === 'refused') refused.push({ item, failure });
        else if (verdict === 'retry') {
          retry.push(item);
          lastFailure.set(item.id, failure);
        }
      }
      return retry;
    },
    { maxDelayMs: Number.POSITIVE_INFINITY, jitter: 'none', ...options.policy },
    options.run,
  );
  return { refused, left: left.map((item) => ({ item, failure: lastFailure.get(item.id) })), attempts };
}
