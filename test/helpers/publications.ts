/**
 * Fakes for the publication API and worker tests: a queue that records what it was given, and SQS
 * events of publication messages. The PDS and event sink fakes are the shared ones (fake-pds.ts,
 * event-sink.ts).
 *
 * @example
 * ```ts
 * const queue = new RecordingQueue();
 * ```
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { PublicationMessage, PublicationQueue } from '../../packages/bridge/src/publications/queue.ts';

/** A queue that keeps what it accepted; `failNext` makes the next sends reject. */
export class RecordingQueue implements PublicationQueue {
  readonly sent: PublicationMessage[] = [];
  attempts = 0;
  #failures = 0;
  #gate: Promise<void> | undefined;

  /** The next `count` sends reject. */
  failNext(count: number): void {
    this.#failures = count;
  }

  /** Sends wait until `gate` resolves (to hold a request in flight). */
  hold(gate: Promise<void>): void {
    this.#gate = gate;
  }

  async send(message: PublicationMessage): Promise<void> {
    this.attempts += 1;
    if (this.#gate) await this.#gate;
    if (this.#failures > 0) {
      this.#failures -= 1;
      throw new Error('SQS is unavailable (simulated)');
    }
    this.sent.push(message);
  }
}

/** An SQS record carrying a publication message, as Lambda's event source mapping delivers it. */
export function publicationSqsRecord(
  body: PublicationMessage | string,
  options: { receiveCount?: number; messageId?: string } = {},
): SQSRecord {
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `receipt-${randomUUID()}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: String(Date.now()),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-central-1:123456789012:pds-bridge-publications',
    awsRegion: 'eu-central-1',
  };
}

/** An SQS event of the given records. */
export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}
