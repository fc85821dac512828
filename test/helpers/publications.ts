/**
 * Fakes for the publication API and worker tests: a PDS client whose operations the test scripts, a
 * queue and an event sink that record what they were given, and SQS events of publication messages.
 *
 * @example
 * ```ts
 * const pds = fakePds({ createSelection: async (keys) => ({ selectionId: 's1', numberOfItems: keys.length }) });
 * const queue = new RecordingQueue();
 * ```
 */
import { randomUUID } from 'node:crypto';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import type { CloudEvent, EventSink } from '../../lib/events/index.ts';
import type { PdsClient } from '../../lib/pds/index.ts';
import type { PublicationMessage, PublicationQueue } from '../../lib/publications/queue.ts';

/** A PDS client whose every operation throws unless the test gives it. */
export function fakePds(operations: Partial<PdsClient> = {}): PdsClient {
  const missing = (name: string) => () => {
    throw new Error(`fakePds: ${name} was not expected in this test`);
  };
  return {
    uploadGathering: missing('uploadGathering'),
    startImport: missing('startImport'),
    validate: missing('validate'),
    createSelection: missing('createSelection'),
    publish: missing('publish'),
    listCommunicationChannels: missing('listCommunicationChannels'),
    listSupplierReviews: missing('listSupplierReviews'),
    getMessagingAsset: missing('getMessagingAsset'),
    streamMessagingAsset: missing('streamMessagingAsset'),
    listMessagingAssets: missing('listMessagingAssets'),
    ...operations,
  };
}

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

/** An event sink that keeps every event; `failNext` makes the next publishes reject. */
export class RecordingSink implements EventSink {
  readonly events: CloudEvent[] = [];
  #failures = 0;

  failNext(count: number): void {
    this.#failures = count;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    if (this.#failures > 0) {
      this.#failures -= 1;
      throw new Error('SQS refused the events (simulated)');
    }
    this.events.push(...events);
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
