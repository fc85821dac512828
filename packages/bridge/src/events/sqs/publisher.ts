/**
 * Publishes events to SQS: `SendMessageBatch` with at most 10 entries and 1 MiB per request, a
 * bounded retry of the entries SQS reports as failed without blaming the sender (the SDK retries
 * whole requests, never single entries), the claim-check for large bodies, and one
 * {@link EventPublishError} naming every event that still was not accepted.
 */

import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { ConfigError, mapAll } from '../../core/index.ts';
import {
  DEFAULT_INLINE_LIMIT_BYTES,
  EXTENDED_PAYLOAD_SIZE_ATTRIBUTE,
  formatPayloadPointer,
  MAX_INLINE_LIMIT_BYTES,
} from '../claim-check.ts';
import { EntryPublisher, type EntryVerdict, integerOption } from '../entry-retry.ts';
import { type CloudEvent, serializeEvent } from '../envelope.ts';
import type { EventType } from '../types.ts';
import { packBatches, sqsEntryFate } from './batch-send.ts';
import { claimCheckKey, storePayload } from './claim-check.ts';

/** The queue URL for an event type (packages/bridge/src/config/event-routing.ts `eventQueueUrlFor` applies the per-family overrides). */
export type QueueUrlResolver = (type: EventType) => string;

/** The IAM actions on each event queue (SendMessageBatch is authorised as SendMessage). */
export const EVENT_PUBLISHER_ACTIONS = Object.freeze(['sqs:SendMessage'] as const);

export interface ClaimCheckOptions {
  s3: S3Client;
  /** The state bucket (`STATE_BUCKET`). */
  bucket: string;
}

export interface SqsEventPublisherOptions {
  sqs: SQSClient;
  queueUrl: QueueUrlResolver;
  /** Where bodies above the inline limit go; without it such events fail with a clear reason. */
  claimCheck?: ClaimCheckOptions;
  /** Largest message (body + attributes, UTF-8 bytes) sent inline; default 256 KiB, at most 1 MiB. */
  inlineLimitBytes?: number;
  /** Sends per entry, the first included; default 4. */
  maxAttempts?: number;
  /** Wait before the first retry, doubled for each further one; default 100 ms. */
  baseDelayMs?: number;
  /** Longest wait between retries; default 5000 ms. */
  maxDelayMs?: number;
  /**
   * Batches in flight at once for a standard queue (FIFO queues get one, to keep order); default 10,
   * so a poller's page of 100 events goes out in one round of requests rather than three.
   */
  concurrency?: number;
  /** Injected for tests; default a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

interface Prepared {
  event: CloudEvent;
  /** The queue of its type. */
  queueUrl: string;
  entry: Omit<SendMessageBatchRequestEntry, 'Id'>;
  bytes: number;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Message size as SQS counts it: body plus each attribute's name, data type and value. */
function messageBytes(entry: Omit<SendMessageBatchRequestEntry, 'Id'>): number {
  let bytes = utf8Bytes(entry.MessageBody ?? '');
  for (const [name, value] of Object.entries(entry.MessageAttributes ?? {})) {
    bytes += utf8Bytes(name) + utf8Bytes(value.DataType ?? '') + utf8Bytes(value.StringValue ?? '');
  }
  return bytes;
}

/** FIFO group ids allow 128 printable ASCII characters; anything else is hashed to a stable id. */
function messageGroupId(event: CloudEvent): string {
  const group = event.subject || event.type;
  return /^[\x21-\x7e]{1,128}$/.test(group) ? group : createHash('sha256').update(group).digest('hex');
}

/**
 * Publishes CloudEvents to SQS queues.
 *
 * @example
 * const sink = new SqsEventPublisher({
 *   sqs: new SQSClient({}),
 *   queueUrl: (type) => eventQueueUrlFor(config, type),
 *   claimCheck: { s3: new S3Client({}), bucket: process.env.STATE_BUCKET ?? '' },
 * });
 * await sink.publish([event]); // throws EventPublishError naming what was not accepted
 */
export class SqsEventPublisher extends EntryPublisher<Prepared> {
  readonly #sqs: SQSClient;
  readonly #queueUrl: QueueUrlResolver;
  readonly #claimCheck: ClaimCheckOptions | undefined;
  readonly #inlineLimitBytes: number;

  constructor(options: SqsEventPublisherOptions) {
    // The per-entry retry, requests at once and the sleep: events/entry-retry.ts.
    super(options);
    this.#sqs = options.sqs;
    this.#queueUrl = options.queueUrl;
    this.#inlineLimitBytes = integerOption(
      'inlineLimitBytes',
      options.inlineLimitBytes,
      DEFAULT_INLINE_LIMIT_BYTES,
      1024,
      MAX_INLINE_LIMIT_BYTES,
    );
    this.#claimCheck = options.claimCheck;
  }

  /** Each queue's messages in requests, standard queues several at once, FIFO queues one by one. */
  protected async sendPrepared(prepared: Prepared[]) {
    const byQueue = Map.groupBy(prepared, (item) => item.queueUrl);
    const outcomes = await Promise.all(
      [...byQueue].map(([queueUrl, items]) => {
        const concurrency = queueUrl.endsWith('.fifo') ? 1 : this.sending.concurrency;
        return mapAll(packBatches(items), concurrency, (batch) => this.#sendBatch(queueUrl, batch));
      }),
    );
    return outcomes.flat();
  }

  protected async prepare(event: CloudEvent): Promise<Prepared> {
    const queueUrl = this.#queueUrl(event.type);
    const fifo = queueUrl.endsWith('.fifo');
    // Escaped where SQS would refuse a character: an event must never be unsendable for its data.
    const body = serializeEvent(event);
    const entry: Omit<SendMessageBatchRequestEntry, 'Id'> = {
      MessageBody: body,
      MessageAttributes: {
        type: { DataType: 'String', StringValue: event.type },
        id: { DataType: 'String', StringValue: event.id },
      },
      ...(fifo ? { MessageGroupId: messageGroupId(event), MessageDeduplicationId: event.id } : {}),
    };
    const inlineBytes = messageBytes(entry);
    if (inlineBytes > this.#inlineLimitBytes) {
      if (this.#claimCheck === undefined) {
        throw new ConfigError(
          `Event body of ${inlineBytes} bytes exceeds the inline limit of ${this.#inlineLimitBytes} bytes and no claim-check bucket is configured; set STATE_BUCKET.`,
          { variables: ['STATE_BUCKET'] },
        );
      }
      const { s3, bucket } = this.#claimCheck;
      // Deterministic (the event id): a retry overwrites instead of piling up.
      const pointer = await storePayload(s3, bucket, claimCheckKey(event.id), body);
      entry.MessageBody = formatPayloadPointer(pointer);
      entry.MessageAttributes = {
        ...entry.MessageAttributes,
        [EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]: { DataType: 'Number', StringValue: String(utf8Bytes(body)) },
      };
    }
    return { event, queueUrl, entry, bytes: messageBytes(entry) };
  }

  /** Entry by entry: SQS answers which ids it took; only the ones it failed for now are sent again. */
  #sendBatch(queueUrl: string, batch: Prepared[]) {
    const items = batch.map((item, index) => ({ ...item, id: `m${index}` }));
    return this.sendEach(items, async (pending) => {
      const response = await this.#sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: pending.map(({ id, entry }) => ({ Id: id, ...entry })),
        }),
      );
      return pending.map(({ id }) => sqsVerdict(response, id));
    });
  }
}

/** What SQS answered for the entry `id`, by the rule of ./batch-send.ts. */
function sqsVerdict(response: SendMessageBatchCommandOutput, id: string): EntryVerdict {
  const failure = response.Failed?.find((entry) => entry.Id === id);
  const fate = sqsEntryFate(failure, response.Successful?.some((entry) => entry.Id === id) === true);
  if (fate === 'sent') return { outcome: 'published' };
  if (fate === 'refused') {
    return {
      outcome: 'refused',
      code: failure?.Code ?? 'SenderFault',
      reason: failure?.Message ?? 'SQS refused the entry as invalid',
    };
  }
  return {
    outcome: 'retry',
    code: failure?.Code ?? 'MissingResult',
    reason:
      failure?.Message ?? (failure ? 'SQS failed the entry' : 'SQS reported neither success nor failure'),
  };
}
