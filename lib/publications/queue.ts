/**
 * The internal queue between the API and the publish worker. A message carries only the publication
 * id; the worker reads everything else from the publication record, so a message sent twice (a retried
 * request re-queues) does no harm.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** The body of a publication message. */
export interface PublicationMessage {
  publicationId: string;
}

/** The port the API queues through; {@link SqsPublicationQueue} is the AWS adapter. */
export interface PublicationQueue {
  /** Resolves once the queue accepted the message; rejects otherwise. */
  send(message: PublicationMessage): Promise<void>;
}

/** The queue refused the message or could not be reached. */
export class PublicationQueueError extends Error {
  readonly publicationId: string;

  constructor(publicationId: string, detail: string, options?: ErrorOptions) {
    super(
      `Could not queue publication ${publicationId}: ${detail}; the request is recorded, send it again with the same Idempotency-Key`,
      options,
    );
    this.name = 'PublicationQueueError';
    this.publicationId = publicationId;
  }
}

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

/** Reads a message body; throws a {@link TypeError} naming the problem when it is not one of ours. */
export function parsePublicationMessage(body: string): PublicationMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new TypeError('The publication message is not JSON; only the api function sends to this queue');
  }
  const id = (parsed as { publicationId?: unknown } | null)?.publicationId;
  if (typeof id !== 'string' || id.length === 0) {
    throw new TypeError(
      'The publication message has no publicationId; only the api function sends to this queue',
    );
  }
  return { publicationId: id };
}
