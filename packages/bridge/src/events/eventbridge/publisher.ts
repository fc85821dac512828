/**
 * Publishes events to an EventBridge bus: `PutEvents` with at most 10 entries and at most the entry
 * limit per request, a bounded retry of exactly the entries EventBridge reports as failed (the
 * response answers success for the request and lists per-entry `ErrorCode`s; the SDK retries whole
 * requests, never single entries), the claim-check for an event over the entry limit, and one
 * {@link EventPublishError} naming every event that still was not accepted.
 *
 * The mapping (docs/events.md, "EventBridge"): `Source` = the CloudEvent's `source`, `DetailType` =
 * its `type`, `Detail` = the whole CloudEvent, `Time` = its `time`. An event whose entry exceeds the
 * limit is stored in the state bucket like on the SQS path (same key, same body) and its `Detail`
 * becomes the bare pointer `{"s3BucketName","s3Key"}`, which the consumer kit follows.
 *
 * A PutEvents call to a bus that does not exist is not refused for every account and region, so the
 * publisher checks the bus with `DescribeEventBus` before its first send and refuses to publish
 * (a {@link ConfigError} naming EVENT_BUS_NAME) when it is missing.
 */

import {
  DescribeEventBusCommand,
  type EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  type PutEventsResultEntry,
} from '@aws-sdk/client-eventbridge';
import { ConfigError, mapAll } from '../../core/index.ts';
import { EntryPublisher, type EntryVerdict, integerOption, packEntries } from '../entry-retry.ts';
import { type CloudEvent, serializeEvent } from '../envelope.ts';
import { claimCheckKey, storePayload } from '../sqs/claim-check.ts';
import type { ClaimCheckOptions } from '../sqs/publisher.ts';

/** The IAM actions on the bus: PutEvents to send, DescribeEventBus for the check before the first send. */
export const EVENTBRIDGE_PUBLISHER_ACTIONS = Object.freeze([
  'events:PutEvents',
  'events:DescribeEventBus',
] as const);

/** EventBridge limits of one PutEvents request. */
export const MAX_PUT_EVENTS_ENTRIES = 10;
/** The classic entry (and request) limit, 256 KiB: the default. */
export const DEFAULT_ENTRY_LIMIT_BYTES = 262_144;
/** The raised limit (January 2026), 1 MiB: the largest `entryLimitBytes` accepted. */
export const MAX_ENTRY_LIMIT_BYTES = 1_048_576;
/** `Time` counts 14 bytes in the entry size when set (AWS, "Calculating PutEvents event entry size"). */
const TIME_BYTES = 14;

/**
 * Per-entry error codes that blame the entry itself: sending it again unchanged cannot help. Every
 * other code (`InternalFailure`, `ThrottlingException`, …) is retried.
 */
const SENDER_FAULT_CODES = new Set([
  'MalformedDetail',
  'InvalidArgument',
  'ValidationException',
  'AccessDeniedException',
  'NotAuthorizedForSourceException',
  'NotAuthorizedForDetailTypeException',
]);

export interface EventBridgeEventPublisherOptions {
  eventBridge: EventBridgeClient;
  /** The bus name or ARN (`EVENT_BUS_NAME`). */
  busName: string;
  /** Where entries above the entry limit go; without it such events fail with a clear reason. */
  claimCheck?: ClaimCheckOptions;
  /**
   * Largest entry sent inline, and largest request, in bytes as EventBridge counts them (Source,
   * DetailType, Detail, 14 for Time); default 256 KiB, at most 1 MiB (where the raised limit applies).
   */
  entryLimitBytes?: number;
  /** Sends per entry, the first included; default 4. */
  maxAttempts?: number;
  /** Wait before the first retry, doubled for each further one; default 100 ms. */
  baseDelayMs?: number;
  /** Longest wait between retries; default 5000 ms. */
  maxDelayMs?: number;
  /** Requests in flight at once; default 10 (a page of 100 events in one round). */
  concurrency?: number;
  /** Check the bus with DescribeEventBus before the first send; default true. */
  checkBus?: boolean;
  /** Injected for tests; default a real timer. */
  sleep?: (ms: number) => Promise<void>;
}

interface Prepared {
  event: CloudEvent;
  entry: PutEventsRequestEntry;
  bytes: number;
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * An entry's size as EventBridge counts it: 14 bytes for `Time`, plus the UTF-8 bytes of `Source`,
 * `DetailType`, `Detail` and each of `Resources`.
 *
 * @example
 * putEventsEntrySize({ Source: 'a', DetailType: 'b', Detail: '{}' }); // 4
 */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  let bytes = entry.Time ? TIME_BYTES : 0;
  bytes += utf8Bytes(entry.Source ?? '') + utf8Bytes(entry.DetailType ?? '') + utf8Bytes(entry.Detail ?? '');
  for (const resource of entry.Resources ?? []) bytes += utf8Bytes(resource);
  return bytes;
}

/** A valid `Time` from the event's RFC 3339 time, or none (EventBridge then stamps the receipt time). */
function entryTime(event: CloudEvent): Date | undefined {
  const time = new Date(event.time);
  return Number.isNaN(time.getTime()) ? undefined : time;
}

/**
 * Publishes CloudEvents to an EventBridge bus.
 *
 * @example
 * const sink = new EventBridgeEventPublisher({
 *   eventBridge: new EventBridgeClient({}),
 *   busName: 'pds-bridge-prod',
 *   claimCheck: { s3: new S3Client({}), bucket: process.env.STATE_BUCKET ?? '' },
 * });
 * await sink.publish([event]); // throws EventPublishError naming what was not accepted
 */
export class EventBridgeEventPublisher extends EntryPublisher<Prepared> {
  readonly #eventBridge: EventBridgeClient;
  readonly #busName: string;
  readonly #claimCheck: ClaimCheckOptions | undefined;
  readonly #entryLimitBytes: number;
  #busChecked: Promise<void> | undefined;

  constructor(options: EventBridgeEventPublisherOptions) {
    // The per-entry retry, requests at once and the sleep: events/entry-retry.ts.
    super(options, 'EventBridge');
    this.#eventBridge = options.eventBridge;
    if (typeof options.busName !== 'string' || options.busName.trim() === '') {
      throw new ConfigError(
        'The event bus name is empty: set EVENT_BUS_NAME to the EventBridge bus name or ARN.',
        {
          variables: ['EVENT_BUS_NAME'],
        },
      );
    }
    this.#busName = options.busName.trim();
    this.#entryLimitBytes = integerOption(
      'entryLimitBytes',
      options.entryLimitBytes,
      DEFAULT_ENTRY_LIMIT_BYTES,
      1024,
      MAX_ENTRY_LIMIT_BYTES,
    );
    this.#claimCheck = options.claimCheck;
    if (options.checkBus === false) this.#busChecked = Promise.resolve();
  }

  /**
   * Resolves when the bus exists; rejects with a {@link ConfigError} naming EVENT_BUS_NAME when it
   * does not (or cannot be described). Run once before the first send; a failed check is run again
   * at the next publish.
   */
  checkBus(): Promise<void> {
    if (this.#busChecked === undefined) {
      const check = this.#describeBus();
      this.#busChecked = check;
      check.catch(() => {
        if (this.#busChecked === check) this.#busChecked = undefined;
      });
    }
    return this.#busChecked;
  }

  async #describeBus(): Promise<void> {
    try {
      await this.#eventBridge.send(new DescribeEventBusCommand({ Name: this.#busName }));
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      const detail = error instanceof Error ? error.message : String(error);
      const problem =
        name === 'ResourceNotFoundException'
          ? `The EventBridge bus ${this.#busName} does not exist`
          : `The EventBridge bus ${this.#busName} could not be described (${name}: ${detail})`;
      throw new ConfigError(
        `${problem}: events sent to it would be lost. Create it (deploy with --param eventBus=create) or set EVENT_BUS_NAME to an existing bus, and grant events:DescribeEventBus and events:PutEvents on it.`,
        { variables: ['EVENT_BUS_NAME'], cause: error },
      );
    }
  }

  /** Checks the bus before the first send (none for no events), then publishes. */
  override async publish(events: readonly CloudEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.checkBus();
    await super.publish(events);
  }

  protected sendPrepared(prepared: Prepared[]) {
    const batches = packPutEventsBatches(prepared, this.#entryLimitBytes);
    return mapAll(batches, this.sending.concurrency, (batch) => this.#sendBatch(batch));
  }

  protected async prepare(event: CloudEvent): Promise<Prepared> {
    const detail = serializeEvent(event);
    const time = entryTime(event);
    const entry: PutEventsRequestEntry = {
      EventBusName: this.#busName,
      Source: event.source,
      DetailType: event.type,
      Detail: detail,
      ...(time ? { Time: time } : {}),
    };
    const inlineBytes = putEventsEntrySize(entry);
    if (inlineBytes > this.#entryLimitBytes) {
      if (this.#claimCheck === undefined) {
        throw new ConfigError(
          `Event entry of ${inlineBytes} bytes exceeds the EventBridge entry limit of ${this.#entryLimitBytes} bytes and no claim-check bucket is configured; set STATE_BUCKET.`,
          { variables: ['STATE_BUCKET'] },
        );
      }
      const { s3, bucket } = this.#claimCheck;
      // The same key and body as the SQS path: a family sent to both stores the body once.
      const pointer = await storePayload(s3, bucket, claimCheckKey(event.id), detail);
      // Detail must be a JSON object, so the bare-object form of the pointer (the kit reads it).
      entry.Detail = JSON.stringify({ s3BucketName: pointer.s3BucketName, s3Key: pointer.s3Key });
    }
    return { event, entry, bytes: putEventsEntrySize(entry) };
  }

  /** Entry by entry: results come in request order; only the entries failed for now are sent again. */
  #sendBatch(batch: Prepared[]) {
    return this.sendEach(batch, async (pending) => {
      const response = await this.#eventBridge.send(
        new PutEventsCommand({ Entries: pending.map(({ entry }) => entry) }),
      );
      return pending.map((_, index) => putEventsVerdict(response.Entries?.[index]));
    });
  }
}

/** What EventBridge answered for one entry: an EventId is a success, an ErrorCode a failure. */
function putEventsVerdict(result: PutEventsResultEntry | undefined): EntryVerdict {
  if (result?.EventId && !result.ErrorCode) return { outcome: 'published' };
  if (result?.ErrorCode && SENDER_FAULT_CODES.has(result.ErrorCode)) {
    return {
      outcome: 'refused',
      code: result.ErrorCode,
      reason: result.ErrorMessage ?? 'EventBridge refused the entry as invalid',
    };
  }
  return {
    outcome: 'retry',
    code: result?.ErrorCode ?? 'MissingResult',
    reason:
      result?.ErrorMessage ??
      (result ? 'EventBridge failed the entry' : 'EventBridge reported neither success nor failure'),
  };
}

/**
 * Splits entries into PutEvents requests of at most 10 entries and `maxRequestBytes` (entry sizes as
 * {@link putEventsEntrySize} counts them), keeping their order.
 *
 * @example
 * packPutEventsBatches(items, 262_144).map((batch) => batch.length); // [10, 10, 3]
 */
export function packPutEventsBatches<T extends { bytes: number }>(
  items: readonly T[],
  maxRequestBytes: number,
): T[][] {
  return packEntries(items, MAX_PUT_EVENTS_ENTRIES, maxRequestBytes);
}
