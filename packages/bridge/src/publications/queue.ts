/**
 * The internal queue between the API and the publish worker. A message carries only the publication
 * id; the worker reads everything else from the publication record, so a message sent twice (a retried
 * request re-queues) does no harm.
 *
 * This file is the port and the message format, free of the AWS SDK so the worker can read a message
 * without loading it; the SQS adapter is ./sqs/queue.ts.
 */
import { parseJsonOr } from '../core/index.ts';

/** The body of a publication message. */
export interface PublicationMessage {
  publicationId: string;
}

/** The port the API queues through; `SqsPublicationQueue` (./sqs/queue.ts) is the AWS adapter. */
export interface PublicationQueue {
  /** Resolves once the queue accepted the message; rejects otherwise. */
  send(message: PublicationMessage): Promise<void>;
}

/** Reads a message body; throws a {@link TypeError} naming the problem when it is not one of ours. */
export function parsePublicationMessage(body: string): PublicationMessage {
  const parsed = parseJsonOr(
    body,
    () => new TypeError('The publication message is not JSON; only the api function sends to this queue'),
  );
  const id = (parsed as { publicationId?: unknown } | null)?.publicationId;
  if (typeof id !== 'string' || id.length === 0) {
    throw new TypeError(
      'The publication message has no publicationId; only the api function sends to this queue',
    );
  }
  return { publicationId: id };
}
