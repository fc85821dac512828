/**
 * Test doubles and factories for the pollers: an in-memory PDS for unit tests, a sink that records
 * (and can refuse) events, a Lambda context, the Lambda SQS event built from received messages, and
 * a queue drain for integration tests against fauxqs.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import {
  type CloudEvent,
  type EventDataMap,
  EventPublishError,
  type EventPublishFailure,
  type EventSink,
  type EventType,
} from '../../lib/events/index.ts';
import { PdsNotFoundError, PdsServerError } from '../../lib/pds/errors.ts';
import type { PdsClient } from '../../lib/pds/index.ts';
import type { MessagingAssetSummary, SupplierReview } from '../../lib/pds/types.ts';

type PollingPds = Pick<PdsClient, 'listMessagingAssets' | 'getMessagingAsset' | 'listSupplierReviews'>;

/**
 * An in-memory PDS for the pollers' unit tests: assets and reviews in maps, failures per id or key,
 * and a count of calls in flight (to check the concurrency bound).
 *
 * @example
 * const pds = new FakePds();
 * pds.addAsset('<a/>');
 * pds.failAsset.set(1, 'server');
 */
export class FakePds implements PollingPds {
  readonly assets = new Map<number, MessagingAssetSummary & { xml: string }>();
  readonly reviews = new Map<string, SupplierReview[]>();
  /** Asset ids whose fetch fails: `server` (503, retryable) or `missing` (404). */
  readonly failAsset = new Map<number, 'server' | 'missing'>();
  /** Keys whose review listing fails the same way. */
  readonly failKey = new Map<string, 'server' | 'missing'>();
  /** Every call, in order, e.g. `asset:3`, `reviews:0401…`, `list`. */
  readonly calls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;
  #nextId = 1;

  addAsset(xml: string, extra: Partial<MessagingAssetSummary> = {}): number {
    const id = extra.id ?? this.#nextId;
    this.#nextId = Math.max(this.#nextId, id + 1);
    this.assets.set(id, {
      id,
      createdAt: 1_767_600_000_000 + id,
      contentType: 'application/xml',
      ...extra,
      xml,
    });
    return id;
  }

  addReview(primaryKey: string, xml: string, extra: Partial<SupplierReview> = {}): SupplierReview {
    const messagingAssetId = this.addAsset(xml, { primaryKey, messagingCreatorType: 'REVIEW' });
    const review: SupplierReview = {
      primaryKey,
      supplierId: '4012345000009',
      channelId: 'gdsn-de',
      messagingAssetId,
      supplier: 'Demo Supplier',
      reviewer: 'Demo Retail',
      reviewStatus: 'APPROVED',
      date: 1_767_600_000_000 + messagingAssetId,
      comment: '',
      messagingCreatorType: 'REVIEW',
      ...extra,
    };
    const list = this.reviews.get(primaryKey) ?? [];
    list.push(review);
    this.reviews.set(primaryKey, list);
    return review;
  }

  async #call<T>(name: string, fn: () => T): Promise<T> {
    this.calls.push(name);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      return fn();
    } finally {
      this.inFlight--;
    }
  }

  listMessagingAssets(): Promise<MessagingAssetSummary[]> {
    return this.#call('list', () => [...this.assets.values()].map(({ xml: _xml, ...summary }) => summary));
  }

  getMessagingAsset(id: number): Promise<string> {
    return this.#call(`asset:${id}`, () => {
      const path = `/api/v1/messaging/messagingassets/${id}`;
      const failure = this.failAsset.get(id);
      if (failure === 'server') throw new PdsServerError(503, { method: 'GET', path }, 'unavailable');
      const asset = this.assets.get(id);
      if (failure === 'missing' || !asset)
        throw new PdsNotFoundError(404, { method: 'GET', path }, 'not found');
      return asset.xml;
    });
  }

  listSupplierReviews(primaryKey: string): Promise<SupplierReview[]> {
    return this.#call(`reviews:${primaryKey}`, () => {
      const path = `/api/v1/supplierreviews/${primaryKey}`;
      const failure = this.failKey.get(primaryKey);
      if (failure === 'server') throw new PdsServerError(503, { method: 'GET', path }, 'unavailable');
      const reviews = this.reviews.get(primaryKey);
      if (failure === 'missing' || !reviews)
        throw new PdsNotFoundError(404, { method: 'GET', path }, 'not found');
      return reviews.map((review) => ({ ...review }));
    });
  }
}

/**
 * Records published events; `refuse` makes it reject the events whose id it returns true for
 * (with an `EventPublishError`, the others count as accepted), as SQS's own failure, with
 * `refuseAsInvalid` as the event's fault (what SQS answers InvalidMessageContents with), or with
 * `refuseWholeRequest` as a refused request (AccessDenied).
 */
export class RecordingSink implements EventSink {
  readonly events: CloudEvent[] = [];
  readonly requests: number[] = [];
  refuse: (event: CloudEvent) => boolean = () => false;
  refuseAsInvalid = false;
  /** Refuse as a whole request failing (AccessDenied), not as the event's fault. */
  refuseWholeRequest = false;

  async publish(events: readonly CloudEvent[]): Promise<void> {
    this.requests.push(events.length);
    const failures: EventPublishFailure[] = [];
    const published: string[] = [];
    for (const event of events) {
      if (this.refuse(event)) {
        failures.push({
          eventId: event.id,
          type: event.type,
          code: this.refuseWholeRequest
            ? 'AccessDenied'
            : this.refuseAsInvalid
              ? 'InvalidMessageContents'
              : 'InternalError',
          reason: 'refused by the test',
          senderFault: this.refuseAsInvalid || this.refuseWholeRequest,
          ...(this.refuseWholeRequest ? { requestFailed: true as const } : {}),
          attempts: this.refuseAsInvalid ? 1 : 4,
        });
      } else {
        this.events.push(event);
        published.push(event.id);
      }
    }
    if (failures.length > 0) throw new EventPublishError(failures, published);
  }

  /** The data of every recorded event of one type. */
  dataOf<T extends EventType>(type: T): Array<EventDataMap[T]> {
    return this.events.filter((event) => event.type === type).map((event) => event.data as EventDataMap[T]);
  }
}

/** A Lambda context with a fixed remaining time. */
export function lambdaContext(remainingMs = 60_000, requestId = 'req-1'): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'pds-bridge-test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pds-bridge-test',
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/pds-bridge-test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => remainingMs,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The SQS event Lambda would deliver for messages received from a queue. */
export function sqsEventFrom(messages: readonly Message[], queueArn: string): SQSEvent {
  return {
    Records: messages.map((message) => ({
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? '1',
        SentTimestamp: message.Attributes?.SentTimestamp ?? String(Date.now()),
        SenderId: 'AIDATEST',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: 'us-east-1',
    })),
  };
}

/**
 * Receives (and deletes) messages until `expected` arrived or the queue stayed empty `emptyRounds`
 * times in a row; bounded to 200 receives.
 */
export async function drainQueue(
  sqs: SQSClient,
  queueUrl: string,
  options: { expected?: number; emptyRounds?: number; keep?: boolean } = {},
): Promise<Message[]> {
  const expected = options.expected ?? Number.POSITIVE_INFINITY;
  const emptyRounds = options.emptyRounds ?? 2;
  const received: Message[] = [];
  for (
    let empty = 0, rounds = 0;
    received.length < expected && empty < emptyRounds && rounds < 200;
    rounds++
  ) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
        MessageSystemAttributeNames: ['ApproximateReceiveCount', 'SentTimestamp'],
        WaitTimeSeconds: empty === 0 && received.length === 0 ? 1 : 0,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) {
      empty++;
      continue;
    }
    empty = 0;
    received.push(...messages);
    if (!options.keep) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((message, index) => ({
            Id: `d${index}`,
            ReceiptHandle: message.ReceiptHandle,
          })),
        }),
      );
    }
  }
  return received;
}
