/**
 * The fan-out of the supplier-review poll: when the watch list is larger than one invocation should
 * handle, the scheduled run splits the keys into chunks and sends each chunk as one message to an
 * internal queue (`REVIEW_POLL_QUEUE_URL`); the worker function polls the keys of one message.
 *
 * A message body is JSON: `{"version":1,"runId":"…","enqueuedAt":"<ISO>","keys":["…", …]}`.
 */

import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { checkInteger, sleep } from '../core/index.ts';
import { toSendableJson } from '../events/index.ts';
import { packBatches } from '../events/sqs/index.ts';

/** One message of the fan-out queue. */
export interface ReviewKeyChunk {
  version: 1;
  /** The scheduled run that sent it (the Lambda request id), for correlation in logs. */
  runId: string;
  enqueuedAt: string;
  keys: string[];
}

/** Where chunks go; {@link SqsReviewKeyQueue} is the SQS adapter. */
export interface ReviewKeyQueue {
  /** Resolves once every chunk was accepted; otherwise rejects with {@link ReviewFanOutError}. */
  send(chunks: readonly ReviewKeyChunk[]): Promise<void>;
}

/** Default keys per chunk. */
export const DEFAULT_CHUNK_SIZE = 100;
/** Largest chunk body: well below SQS's 256 KiB, so five fit in one batch request. */
export const MAX_CHUNK_BYTES = 200 * 1024;

/**
 * Splits keys into chunks of at most `chunkSize` keys and {@link MAX_CHUNK_BYTES} bytes, in order.
 *
 * @example
 * chunkKeys(['a', 'b', 'c'], { chunkSize: 2, runId: 'r1', now: new Date() }).map((chunk) => chunk.keys); // [['a','b'],['c']]
 */
export function chunkKeys(
  keys: readonly string[],
  options: { chunkSize?: number; runId: string; now: Date },
): ReviewKeyChunk[] {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  checkInteger('chunkSize', chunkSize, { min: 1 });
  const base = { version: 1 as const, runId: options.runId, enqueuedAt: options.now.toISOString() };
  const overhead = Buffer.byteLength(toSendableJson({ ...base, keys: [] }), 'utf8');
  const chunks: ReviewKeyChunk[] = [];
  let current: string[] = [];
  let bytes = overhead;
  for (const key of keys) {
    const keyBytes = Buffer.byteLength(toSendableJson(key), 'utf8') + 1;
    if (current.length > 0 && (current.length === chunkSize || bytes + keyBytes > MAX_CHUNK_BYTES)) {
      chunks.push({ ...base, keys: current });
      current = [];
      bytes = overhead;
    }
    current.push(key);
    bytes += keyBytes;
  }
  if (current.length > 0) chunks.push({ ...base, keys: current });
  return chunks;
}

/** A fan-out message body is not a chunk this bridge wrote. */
export class ReviewChunkFormatError extends Error {
  constructor(detail: string) {
    super(
      `Fan-out message is not a review-poll chunk (${detail}); only the poll-supplier-reviews function should send to REVIEW_POLL_QUEUE_URL. The message goes to the queue's DLQ; delete it there.`,
    );
    this.name = 'ReviewChunkFormatError';
  }
}

/**
 * Reads a fan-out message body; throws {@link ReviewChunkFormatError} for anything else.
 *
 * @example
 * parseReviewKeyChunk(record.body).keys; // ['04012345678901', …]
 */
export function parseReviewKeyChunk(body: string): ReviewKeyChunk {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ReviewChunkFormatError('the body is not JSON');
  }
  const chunk = value as Partial<ReviewKeyChunk> | null;
  if (chunk === null || typeof chunk !== 'object' || chunk.version !== 1) {
    throw new ReviewChunkFormatError('no "version": 1');
  }
  if (!Array.isArray(chunk.keys) || !chunk.keys.every((key) => typeof key === 'string' && key.length > 0)) {
    throw new ReviewChunkFormatError('"keys" must be an array of non-empty strings');
  }
  return {
    version: 1,
    runId: typeof chunk.runId === 'string' ? chunk.runId : '',
    enqueuedAt: typeof chunk.enqueuedAt === 'string' ? chunk.enqueuedAt : '',
    keys: chunk.keys,
  };
}

/** Some chunks were not accepted by SQS; their keys are polled by the next scheduled run. */
export class ReviewFanOutError extends Error {
  readonly failedChunks: number;

  constructor(failedChunks: number, totalChunks: number, reason: string) {
    super(
      `${failedChunks} of ${totalChunks} review-poll chunks were not accepted by the fan-out queue: ${reason}. Their keys are polled again by the next scheduled run; check REVIEW_POLL_QUEUE_URL and the function's sqs:SendMessage permission if this repeats.`,
    );
    this.name = 'ReviewFanOutError';
    this.failedChunks = failedChunks;
  }
}

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
    const items = chunks.map((chunk, index) => {
      // Keys are the PDS's data: characters SQS refuses are escaped, so no key can block a chunk.
      const body = toSendableJson(chunk);
      return { id: `c${index}`, body, bytes: Buffer.byteLength(body, 'utf8') };
    });
    let failed = 0;
    let reason = '';
    for (const batch of packBatches(items)) {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt++) {
        const answer = await this.#sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: this.#queueUrl,
            Entries: pending.map((item) => ({ Id: item.id, MessageBody: item.body })),
          }),
        );
        const failures = new Map((answer.Failed ?? []).map((entry) => [entry.Id, entry]));
        const succeeded = new Set((answer.Successful ?? []).map((entry) => entry.Id));
        const retry = pending.filter(
          (item) => !succeeded.has(item.id) && failures.get(item.id)?.SenderFault !== true,
        );
        const refused = pending.filter((item) => failures.get(item.id)?.SenderFault === true);
        for (const item of refused)
          reason = `${failures.get(item.id)?.Code}: ${failures.get(item.id)?.Message}`;
        failed += refused.length;
        if (retry.length > 0 && attempt >= this.#maxAttempts) {
          failed += retry.length;
          const entry = failures.get(retry[0]?.id);
          reason = entry ? `${entry.Code}: ${entry.Message}` : 'SQS reported neither success nor failure';
          break;
        }
        // Linear (100 ms, 200 ms, …) and without jitter: its own policy, kept; only the sleep is shared.
        if (retry.length > 0) await sleep(100 * attempt);
        pending = retry;
      }
    }
    if (failed > 0) throw new ReviewFanOutError(failed, chunks.length, reason);
  }
}
