/**
 * Reads the bridge's events from the local stack's event queues as they arrive.
 *
 * As a consumer (the default) it receives from every event queue, hands each message to `onEvent`
 * and deletes it afterwards, as a real consumer would; a message whose handling throws is left for
 * SQS to deliver again. It receives no more than `wanted()` messages at a time, and a message it
 * received but did not hand on (`onEvent` said no, or reading stopped) is made visible again at once,
 * so a reader told to stop after n events leaves nothing hidden for the visibility timeout. With `peek` it leaves the queues alone and reads them through the emulator's
 * inspection endpoint (`GET /_fauxqs/queues/<name>`), which neither hides messages nor counts receives,
 * so peeking never moves anything to a dead-letter queue.
 *
 * Claim-checked events (bodies stored in the state bucket) are resolved to their stored body.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { MessageAttributeLike } from '@pds-bridge/bridge/events/claim-check.ts';
import { resolveEventBody } from '@pds-bridge/bridge/events/sqs';
import { parseEventBody, type ReceivedEvent } from './event-format.ts';

/** One queue to read. */
export interface EventQueueRef {
  name: string;
  url: string;
}

export interface EventReaderOptions {
  sqs: SQSClient;
  /** Reads claim-checked bodies from the state bucket. */
  s3: S3Client;
  queues: readonly EventQueueRef[];
  /** Returning `false` leaves the message on its queue (a consumer that did not take it). */
  onEvent: (received: ReceivedEvent) => unknown;
  /** Reading stops when it is aborted. */
  signal: AbortSignal;
  /** Read through the emulator's inspection endpoint instead of consuming. */
  peek?: { endpoint: string; intervalMs?: number };
  /** How many more events the caller takes (1 to 10 are received at a time); default: any number. */
  wanted?: () => number;
  /** Long-poll wait per receive; default 2 s (short, so a stop is quick). */
  waitTimeSeconds?: number;
  /** Told about failed receives (the reader retries after a second). */
  onError?: (error: unknown, queue: EventQueueRef) => void;
}

/**
 * Reads until `signal` is aborted; resolves then.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * await readEvents({ sqs, s3, queues, signal: stop.signal, onEvent: (received) => show(formatEventLine(received)) });
 * ```
 */
export async function readEvents(options: EventReaderOptions): Promise<void> {
  if (options.peek) {
    await peekLoop(options, options.peek);
    return;
  }
  await Promise.all(options.queues.map((queue) => consumeLoop(options, queue)));
}

async function consumeLoop(options: EventReaderOptions, queue: EventQueueRef): Promise<void> {
  const { signal } = options;
  while (!signal.aborted) {
    try {
      const received = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queue.url,
          MaxNumberOfMessages: Math.max(1, Math.min(10, options.wanted?.() ?? 10)),
          WaitTimeSeconds: options.waitTimeSeconds ?? 2,
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: signal },
      );
      for (const message of received.Messages ?? []) {
        if (await handOn(options, queue, message)) {
          await options.sqs.send(
            new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: message.ReceiptHandle }),
          );
        } else {
          await options.sqs.send(
            new ChangeMessageVisibilityCommand({
              QueueUrl: queue.url,
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: 0,
            }),
          );
        }
      }
    } catch (error) {
      if (signal.aborted) break;
      options.onError?.(error, queue);
      await pause(1000, signal);
    }
  }
}

/** Whether `onEvent` took the message (never once reading has stopped). */
async function handOn(options: EventReaderOptions, queue: EventQueueRef, message: Message): Promise<boolean> {
  if (options.signal.aborted) return false;
  const event = await toReceived(options, queue, message.MessageId, message.Body, message.MessageAttributes);
  return !options.signal.aborted && (await options.onEvent(event)) !== false;
}

/** A message as the emulator's inspection endpoint lists it. */
interface InspectedMessage {
  messageId: string;
  body: string;
  messageAttributes?: Record<string, MessageAttributeLike>;
  sentTimestamp?: number;
}

interface InspectedQueue {
  messages?: {
    ready?: InspectedMessage[];
    delayed?: InspectedMessage[];
    inflight?: Array<{ message: InspectedMessage }>;
  };
}

async function peekLoop(options: EventReaderOptions, peek: { endpoint: string; intervalMs?: number }) {
  const { signal } = options;
  const seen = new Set<string>();
  while (!signal.aborted) {
    for (const queue of options.queues) {
      if (signal.aborted) break;
      try {
        const response = await fetch(`${peek.endpoint}/_fauxqs/queues/${encodeURIComponent(queue.name)}`, {
          signal,
        });
        if (!response.ok)
          throw new Error(`the emulator answered ${response.status} when inspecting ${queue.name}`);
        const state = (await response.json()) as InspectedQueue;
        const messages = [
          ...(state.messages?.ready ?? []),
          ...(state.messages?.inflight ?? []).map((entry) => entry.message),
          ...(state.messages?.delayed ?? []),
        ].sort((a, b) => (a.sentTimestamp ?? 0) - (b.sentTimestamp ?? 0));
        for (const message of messages) {
          if (seen.has(message.messageId) || signal.aborted) continue;
          seen.add(message.messageId);
          await options.onEvent(
            await toReceived(options, queue, message.messageId, message.body, message.messageAttributes),
          );
        }
      } catch (error) {
        if (signal.aborted) break;
        options.onError?.(error, queue);
      }
    }
    await pause(peek.intervalMs ?? 1000, signal);
  }
}

async function toReceived(
  options: EventReaderOptions,
  queue: EventQueueRef,
  messageId: string | undefined,
  rawBody: string | undefined,
  attributes: Record<string, MessageAttributeLike> | undefined,
): Promise<ReceivedEvent> {
  const body = await resolveEventBody(rawBody ?? '', attributes, options.s3);
  const event = parseEventBody(body);
  return { queue: queue.name, messageId: messageId ?? '', body, ...(event ? { event } : {}) };
}

async function pause(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
