/**
 * The SQS adapter of the publication queue port (../queue.ts): the api function sends through it.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { currentTraceparent, TRACEPARENT_ATTRIBUTE } from '../../core/index.ts';
import { PublicationQueueError } from '../errors.ts';
import type { PublicationMessage, PublicationQueue } from '../queue.ts';

/** The IAM actions on the publication queue. */
export const PUBLICATION_QUEUE_ACTIONS = Object.freeze(['sqs:SendMessage'] as const);

/**
 * Sends publication messages to an SQS queue (PUBLICATION_QUEUE_URL).
 *
 * @example
 * ```ts
 * const queue = new SqsPublicationQueue({ sqs: sqsClient(), queueUrl: process.env.PUBLICATION_QUEUE_URL! });
 * await queue.send({ publicationId });
 * ```
 */
export class SqsPublicationQueue implements PublicationQueue {
  readonly #sqs: SQSClient;
  readonly #queueUrl: string;

  constructor(options: { sqs: SQSClient; queueUrl: string }) {
    this.#sqs = options.sqs;
    this.#queueUrl = options.queueUrl;
  }

  async send(message: PublicationMessage): Promise<void> {
    try {
      await this.#sqs.send(
        new SendMessageCommand({
          QueueUrl: this.#queueUrl,
          MessageBody: JSON.stringify(message),
          MessageAttributes: {
            publicationId: { DataType: 'String', StringValue: message.publicationId },
            // The worker continues this trace: its events name the request that asked for them.
            [TRACEPARENT_ATTRIBUTE]: { DataType: 'String', StringValue: currentTraceparent() },
          },
        }),
      );
    } catch (error) {
      throw new PublicationQueueError(message.publicationId, (error as Error).message ?? String(error), {
        cause: error,
      });
    }
  }
}
