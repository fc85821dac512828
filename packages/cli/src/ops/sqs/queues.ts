/**
 * The SQS adapter of {@link OperatorQueues}: GetQueueUrl / GetQueueAttributes for depths,
 * ReceiveMessage plus ChangeMessageVisibility 0 to look at messages, and StartMessageMoveTask
 * (MaxNumberOfMessagesPerSecond) to redrive. Where the service has no move task (the local emulator,
 * fauxqs), messages are received, sent to the destination with their attributes and deleted, at most
 * `perSecond` a second.
 */

import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { sleep } from '@pds-bridge/bridge/core';
import { QueueNotFoundError } from '../errors.ts';
import type { MoveOptions, MoveResult, OperatorQueues, PeekedMessage, QueueDepth } from '../ports.ts';

/** Errors that mean "no such queue". */
const MISSING_QUEUE = /NonExistentQueue|QueueDoesNotExist/;
/** Errors that mean "this service has no message move task". */
const NO_MOVE_TASK =
  /UnsupportedOperation|InvalidAction|UnknownOperation|NotImplemented|not (yet )?supported|Unknown action/i;
/** How long a message looked at stays hidden before it is released again. */
const PEEK_VISIBILITY_SECONDS = 30;
/** How long a message being copied stays hidden: long enough to send and delete it. */
const COPY_VISIBILITY_SECONDS = 60;

export interface SqsOperatorQueuesOptions {
  sqs: SQSClient;
  /** Tries StartMessageMoveTask first (default); false always copies. */
  useMoveTask?: boolean;
}

export class SqsOperatorQueues implements OperatorQueues {
  readonly #sqs: SQSClient;
  readonly #useMoveTask: boolean;
  readonly #urls = new Map<string, string | undefined>();

  constructor(options: SqsOperatorQueuesOptions) {
    this.#sqs = options.sqs;
    this.#useMoveTask = options.useMoveTask ?? true;
  }

  /** The URL of a queue by name, or `undefined` when it does not exist. */
  async url(name: string): Promise<string | undefined> {
    if (this.#urls.has(name)) return this.#urls.get(name);
    let url: string | undefined;
    try {
      url = (await this.#sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl;
    } catch (error) {
      if (!MISSING_QUEUE.test(errorText(error))) throw error;
    }
    this.#urls.set(name, url);
    return url;
  }

  async depth(name: string): Promise<QueueDepth | undefined> {
    const url = await this.url(name);
    if (url === undefined) return undefined;
    const { Attributes: attributes = {} } = await this.#sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    return {
      name,
      url,
      visible: Number(attributes.ApproximateNumberOfMessages ?? 0),
      inFlight: Number(attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
      delayed: Number(attributes.ApproximateNumberOfMessagesDelayed ?? 0),
    };
  }

  async peek(name: string, max: number): Promise<PeekedMessage[]> {
    const url = await this.#required(name);
    const seen = new Map<string, PeekedMessage>();
    const handles: string[] = [];
    try {
      // Hidden while looking, so one look never returns the same message twice.
      while (seen.size < max) {
        const { Messages: messages = [] } = await this.#sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: Math.min(10, max - seen.size),
            VisibilityTimeout: PEEK_VISIBILITY_SECONDS,
            WaitTimeSeconds: 0,
            MessageSystemAttributeNames: ['SentTimestamp', 'ApproximateReceiveCount'],
            MessageAttributeNames: ['All'],
          }),
        );
        if (messages.length === 0) break;
        for (const message of messages) {
          if (message.ReceiptHandle) handles.push(message.ReceiptHandle);
          if (message.MessageId && !seen.has(message.MessageId)) seen.set(message.MessageId, peeked(message));
        }
      }
    } finally {
      await this.#release(url, handles);
    }
    return [...seen.values()];
  }

  async move(from: string, to: string, options: MoveOptions): Promise<MoveResult> {
    const fromUrl = await this.#required(from);
    const toUrl = await this.#required(to);
    if (this.#useMoveTask) {
      try {
        const [sourceArn, destinationArn] = await Promise.all([this.#arn(fromUrl), this.#arn(toUrl)]);
        const started = await this.#sqs.send(
          new StartMessageMoveTaskCommand({
            SourceArn: sourceArn,
            DestinationArn: destinationArn,
            MaxNumberOfMessagesPerSecond: options.perSecond,
          }),
        );
        return { method: 'move-task', taskHandle: started.TaskHandle ?? '' };
      } catch (error) {
        if (!NO_MOVE_TASK.test(errorText(error))) throw error;
      }
    }
    return { method: 'copy', moved: await this.#copy(fromUrl, toUrl, options) };
  }

  async #copy(fromUrl: string, toUrl: string, options: MoveOptions): Promise<number> {
    // What was there when the move began: messages that arrive meanwhile are left for the next redrive.
    const { Attributes: attributes = {} } = await this.#sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: fromUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const limit = Math.min(
      options.max ?? Number.POSITIVE_INFINITY,
      Number(attributes.ApproximateNumberOfMessages ?? 0),
    );
    let moved = 0;
    while (moved < limit) {
      const started = Date.now();
      const batch = Math.min(10, options.perSecond, limit - moved);
      const { Messages: messages = [] } = await this.#sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: fromUrl,
          MaxNumberOfMessages: batch,
          VisibilityTimeout: COPY_VISIBILITY_SECONDS,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ['All'],
        }),
      );
      if (messages.length === 0) break;
      for (const message of messages) {
        await this.#sqs.send(
          new SendMessageCommand({
            QueueUrl: toUrl,
            MessageBody: message.Body ?? '',
            ...(message.MessageAttributes && Object.keys(message.MessageAttributes).length > 0
              ? { MessageAttributes: sendable(message.MessageAttributes) }
              : {}),
          }),
        );
        await this.#sqs.send(
          new DeleteMessageCommand({ QueueUrl: fromUrl, ReceiptHandle: message.ReceiptHandle }),
        );
        moved += 1;
      }
      // The rate cap: `batch` messages per (batch / perSecond) seconds.
      const due = (messages.length * 1000) / options.perSecond - (Date.now() - started);
      if (due > 0 && moved < limit) await sleep(due);
    }
    return moved;
  }

  async #arn(url: string): Promise<string> {
    const { Attributes: attributes = {} } = await this.#sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    if (!attributes.QueueArn) throw new Error(`SQS did not return the ARN of ${url}`);
    return attributes.QueueArn;
  }

  async #required(name: string): Promise<string> {
    const url = await this.url(name);
    if (url === undefined) throw new QueueNotFoundError(name);
    return url;
  }

  async #release(url: string, handles: string[]): Promise<void> {
    for (let index = 0; index < handles.length; index += 10) {
      const entries = handles.slice(index, index + 10).map((handle, offset) => ({
        Id: String(index + offset),
        ReceiptHandle: handle,
        VisibilityTimeout: 0,
      }));
      await this.#sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: url, Entries: entries }));
    }
  }
}

function peeked(message: Message): PeekedMessage {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.MessageAttributes ?? {})) {
    if (value.StringValue !== undefined) attributes[name] = value.StringValue;
  }
  const sentAt = Number(message.Attributes?.SentTimestamp);
  const receiveCount = Number(message.Attributes?.ApproximateReceiveCount);
  return {
    messageId: message.MessageId ?? '',
    body: message.Body ?? '',
    attributes,
    ...(Number.isFinite(sentAt) ? { sentAt } : {}),
    ...(Number.isFinite(receiveCount) ? { receiveCount } : {}),
  };
}

/** Received attributes as SendMessage takes them (without the list types SQS reserves). */
function sendable(attributes: Record<string, MessageAttributeValue>): Record<string, MessageAttributeValue> {
  const result: Record<string, MessageAttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    result[name] = {
      DataType: value.DataType,
      ...(value.StringValue !== undefined ? { StringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { BinaryValue: value.BinaryValue } : {}),
    };
  }
  return result;
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { Code?: string; code?: string }).Code ?? (error as { code?: string }).code ?? '';
  return `${error.name} ${code} ${error.message}`;
}
