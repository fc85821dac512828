/**
 * Reads one SQS message as a bridge event: unwraps an EventBridge event (a rule with an SQS target
 * delivers `{"version","id","detail-type","source",…,"detail"}`, the CloudEvent being `detail`),
 * follows a claim-check pointer (the AWS SQS extended client format, current and legacy forms, and
 * the bare pointer object EventBridge's `detail` carries), then parses and verifies the envelope and
 * its data.
 *
 * Fetching the offloaded payload is a port ({@link PayloadFetcher}) so that this file loads no AWS
 * SDK; the S3 adapter is `./s3/payload-fetcher.ts`.
 */
import { OptionError } from '../../bridge/src/core/index.ts';
import {
  EXTENDED_PAYLOAD_SIZE_ATTRIBUTE,
  LEGACY_PAYLOAD_SIZE_ATTRIBUTE,
  type MessageAttributeLike,
  type PayloadS3Pointer,
  parsePayloadPointer,
} from '../../bridge/src/events/claim-check.ts';
import { type BridgeEvent, parseEventBody, type UnknownEvent, type UnknownTypePolicy } from './envelope.ts';
import { ConsumerError } from './errors.ts';

/**
 * One received message: the SDK's `ReceiveMessage` `Message` (`Body`, `MessageAttributes`,
 * `MessageId`) or a Lambda `SQSRecord` (`body`, `messageAttributes`, `messageId`).
 */
export type SqsMessageLike =
  | {
      Body?: string | undefined;
      MessageAttributes?: Record<string, MessageAttributeLike> | undefined;
      MessageId?: string | undefined;
    }
  | {
      body: string;
      messageAttributes?: Record<string, MessageAttributeLike> | undefined;
      messageId?: string | undefined;
    };

/**
 * Reads the payload a claim-check pointer names, at most `limits.maxBytes` bytes. Throws
 * {@link ConsumerError} with `claim-check-missing` when the object does not exist,
 * `claim-check-invalid` when it is larger than `maxBytes`, `claim-check-unreadable` otherwise.
 */
export type PayloadFetcher = (
  pointer: PayloadS3Pointer,
  messageId: string | undefined,
  limits: { maxBytes: number },
) => Promise<string>;

/** Where the bridge writes claim-checked bodies (the key prefix of its state bucket). */
export const DEFAULT_CLAIM_CHECK_PREFIX = 'claim-check/';
/** Largest claim-checked body the reader reads: far above any event (SQS's limit is 256 KiB inline). */
export const DEFAULT_CLAIM_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** Where claim-check pointers may lead, and how much the reader reads there. */
export interface ClaimCheckOptions {
  /**
   * The buckets the bridge writes claim-checked bodies to: its state bucket (`STATE_BUCKET`, the
   * stack output `StateBucketName`). Required with `payloads`: a pointer to any other bucket is
   * refused unread (`claim-check-invalid`), so a forged message cannot make the reader fetch, and
   * hand over as an event, an object stored elsewhere.
   */
  buckets: readonly string[];
  /** Key prefix of the claim-checked bodies; default {@link DEFAULT_CLAIM_CHECK_PREFIX}. */
  prefix?: string;
  /** Most bytes read from one claim-checked body; default {@link DEFAULT_CLAIM_CHECK_MAX_BYTES} (64 MiB). */
  maxBytes?: number;
}

export interface EventReaderOptions<U extends UnknownTypePolicy = 'reject'> {
  /**
   * Reads claim-checked payloads, e.g. `s3PayloadFetcher(new S3Client({}))`. Without it a
   * claim-checked message fails with `claim-check-unreadable`. No default: the kit never creates an
   * AWS client on its own.
   */
  payloads?: PayloadFetcher;
  /** Required with `payloads`: where pointers may lead and how much is read ({@link ClaimCheckOptions}). */
  claimCheck?: ClaimCheckOptions;
  /**
   * Event types, or data-schema versions (`dataschema`), this version does not know: `'reject'`
   * (default) throws `unknown-type` or `unknown-version`; `'return'` hands them over as
   * {@link UnknownEvent}, data unchecked.
   */
  unknownTypes?: U;
}

export interface EventReader<E> {
  /** The verified event in `message`, following a claim-check pointer; throws {@link ConsumerError}. */
  read(message: SqsMessageLike): Promise<E>;
  /** The verified event in a body already read (no claim-check); throws {@link ConsumerError}. */
  parse(body: string): E;
}

function partsOf(message: SqsMessageLike) {
  if ('body' in message) {
    return { body: message.body, attributes: message.messageAttributes, messageId: message.messageId };
  }
  return { body: message.Body, attributes: message.MessageAttributes, messageId: message.MessageId };
}

function attributeValue(attribute: MessageAttributeLike | undefined): string | undefined {
  return attribute?.StringValue ?? attribute?.stringValue;
}

/**
 * The `detail` of an EventBridge event delivered to SQS, as JSON text, or undefined when `body` is not
 * one (a CloudEvent sent straight to the queue has no `detail-type`).
 */
function eventBridgeDetail(body: string): string | undefined {
  if (!body.includes('"detail-type"')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const envelope = value as Record<string, unknown>;
  const isEventBridge =
    typeof envelope['detail-type'] === 'string' &&
    typeof envelope.source === 'string' &&
    typeof envelope.detail === 'object' &&
    envelope.detail !== null &&
    envelope.specversion === undefined;
  return isEventBridge ? JSON.stringify(envelope.detail) : undefined;
}

/**
 * A reader of bridge events. Options are checked here, once.
 *
 * @example
 * ```ts
 * import { S3Client } from '@aws-sdk/client-s3';
 * import { createEventReader, s3PayloadFetcher } from 'pds-bridge/consumer';
 *
 * const reader = createEventReader({
 *   payloads: s3PayloadFetcher(new S3Client({})),
 *   claimCheck: { buckets: ['pds-bridge-state-123456789012-eu-west-1-prod'] },
 * });
 * const event = await reader.read(message); // Message from ReceiveMessage, or a Lambda SQSRecord
 * switch (event.type) {
 *   case 'pds.ingest.completed': console.log(event.data.gatheringKey); break;
 *   case 'pds.ingest.failed': console.log(event.data.code, event.data.reason); break;
 * }
 * ```
 */
export function createEventReader(options?: EventReaderOptions<'reject'>): EventReader<BridgeEvent>;
export function createEventReader(
  options: EventReaderOptions<'return'>,
): EventReader<BridgeEvent | UnknownEvent>;
export function createEventReader(
  options: EventReaderOptions<UnknownTypePolicy> = {},
): EventReader<BridgeEvent | UnknownEvent> {
  const unknownTypes = options.unknownTypes ?? 'reject';
  if (unknownTypes !== 'reject' && unknownTypes !== 'return') {
    throw new OptionError(
      'unknownTypes',
      `unknownTypes must be 'reject' or 'return', got ${JSON.stringify(unknownTypes)}`,
    );
  }
  if (options.payloads !== undefined && typeof options.payloads !== 'function') {
    throw new OptionError(
      'payloads',
      'payloads must be a function that reads a claim-checked payload, e.g. s3PayloadFetcher(s3)',
    );
  }
  const fetchPayload = options.payloads;
  const trusted = checkedClaimCheck(options.claimCheck, fetchPayload !== undefined);

  async function resolveBody(
    message: SqsMessageLike,
  ): Promise<{ body: string; messageId: string | undefined }> {
    const parts = partsOf(message);
    const { attributes, messageId } = parts;
    if (typeof parts.body !== 'string' || parts.body === '') {
      throw new ConsumerError('not-json', 'the message has no body. It was not sent by pds-bridge.', {
        messageId,
      });
    }
    // Through an EventBridge rule: the CloudEvent (or its claim-check pointer) is the `detail`.
    const detail = eventBridgeDetail(parts.body);
    const body = detail ?? parts.body;
    const flagged =
      attributeValue(attributes?.[EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]) ??
      attributeValue(attributes?.[LEGACY_PAYLOAD_SIZE_ATTRIBUTE]);
    const pointer = parsePayloadPointer(body);
    if (pointer === undefined) {
      if (flagged === undefined) return { body, messageId };
      throw new ConsumerError(
        'claim-check-invalid',
        `the message carries ${EXTENDED_PAYLOAD_SIZE_ATTRIBUTE}=${flagged} but its body is not an S3 pointer in the SQS extended client format; it was not written by an extended client. Inspect the message in the queue or its dead-letter queue.`,
        { messageId },
      );
    }
    const location = `s3://${pointer.s3BucketName}/${pointer.s3Key}`;
    // EventBridge delivers no message attributes: its envelope marks the pointer in `detail` as the
    // bridge's (the bucket and prefix rule below still applies), where a bare SQS body needs the flag.
    if (flagged === undefined && detail === undefined) {
      throw new ConsumerError(
        'claim-check-invalid',
        `the body is an S3 pointer (${location}) but the message has no ${EXTENDED_PAYLOAD_SIZE_ATTRIBUTE} attribute, which every extended client (and pds-bridge) sets; not followed. Check which producer writes to this queue.`,
        { messageId },
      );
    }
    if (
      trusted !== undefined &&
      (!trusted.buckets.has(pointer.s3BucketName) || !pointer.s3Key.startsWith(trusted.prefix))
    ) {
      throw new ConsumerError(
        'claim-check-invalid',
        `the pointer leads to ${location}, outside where pds-bridge writes claim-checked events (claimCheck.buckets ${[...trusted.buckets].map((name) => JSON.stringify(name)).join(', ')}, prefix ${JSON.stringify(trusted.prefix)}); not followed. If the bridge's state bucket changed, add it to claimCheck.buckets; otherwise check which producer writes to this queue.`,
        { messageId },
      );
    }
    if (fetchPayload === undefined || trusted === undefined) {
      throw new ConsumerError(
        'claim-check-unreadable',
        `the event was too large to send inline and is stored at s3://${pointer.s3BucketName}/${pointer.s3Key}, but this reader has no payload fetcher: create it with { payloads: s3PayloadFetcher(new S3Client({})) }.`,
        { messageId },
      );
    }
    const stored = await fetchPayload(pointer, messageId, { maxBytes: trusted.maxBytes });
    if (stored.length > trusted.maxBytes || Buffer.byteLength(stored, 'utf8') > trusted.maxBytes) {
      throw tooLarge(location, trusted.maxBytes, messageId);
    }
    if (stored === '') {
      throw new ConsumerError(
        'claim-check-invalid',
        `the claim-checked payload s3://${pointer.s3BucketName}/${pointer.s3Key} is empty. Report it to the bridge's operators.`,
        { messageId },
      );
    }
    return { body: stored, messageId };
  }

  return {
    async read(message) {
      const { body, messageId } = await resolveBody(message);
      return parseEventBody(body, { messageId, unknownTypes });
    },
    parse(body) {
      return parseEventBody(body, { unknownTypes });
    },
  };
}

/**
 * The `claim-check-invalid` error of a claim-checked body larger than `maxBytes`.
 *
 * @example
 * throw tooLarge('s3://state/claim-check/e1.json', 64 * 1024 * 1024, messageId);
 */
export function tooLarge(location: string, maxBytes: number, messageId: string | undefined): ConsumerError {
  return new ConsumerError(
    'claim-check-invalid',
    `the claim-checked body ${location} is larger than claimCheck.maxBytes (${maxBytes} bytes); not read. pds-bridge's events are far smaller: check which producer writes to this queue, or raise claimCheck.maxBytes.`,
    { messageId },
  );
}

interface TrustedClaimCheck {
  buckets: ReadonlySet<string>;
  prefix: string;
  maxBytes: number;
}

function checkedClaimCheck(
  options: ClaimCheckOptions | undefined,
  withPayloads: boolean,
): TrustedClaimCheck | undefined {
  if (options === undefined) {
    if (!withPayloads) return undefined;
    throw new OptionError(
      'claimCheck',
      "payloads needs claimCheck.buckets: the bucket(s) pds-bridge writes claim-checked events to (its state bucket, stack output StateBucketName), e.g. { claimCheck: { buckets: ['pds-bridge-state-…'] } }",
    );
  }
  const buckets = options.buckets;
  if (
    !Array.isArray(buckets) ||
    buckets.length === 0 ||
    buckets.some((name) => typeof name !== 'string' || name.trim() === '')
  ) {
    throw new OptionError(
      'claimCheck.buckets',
      `claimCheck.buckets must list the bucket names pds-bridge writes claim-checked events to (its state bucket), got ${JSON.stringify(buckets)}`,
    );
  }
  const prefix = options.prefix ?? DEFAULT_CLAIM_CHECK_PREFIX;
  if (typeof prefix !== 'string') {
    throw new OptionError(
      'claimCheck.prefix',
      `claimCheck.prefix must be a key prefix such as 'claim-check/', got ${JSON.stringify(prefix)}`,
    );
  }
  const maxBytes = options.maxBytes ?? DEFAULT_CLAIM_CHECK_MAX_BYTES;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new OptionError(
      'claimCheck.maxBytes',
      `claimCheck.maxBytes must be a positive integer (bytes), such as ${DEFAULT_CLAIM_CHECK_MAX_BYTES}; got ${JSON.stringify(maxBytes)}`,
    );
  }
  return { buckets: new Set(buckets), prefix, maxBytes };
}
