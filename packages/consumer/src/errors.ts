/**
 * Every way reading a bridge event can fail, as one error class with a stable `code` (branch on it,
 * never on the message, whose wording may change). Messages name the problem and the fix.
 */
import { BridgeError } from '../../bridge/src/core/index.ts';

/**
 * - `not-json`: the body (or the claim-checked payload) is not JSON text.
 * - `not-cloudevent`: JSON, but not a CloudEvents 1.0 envelope (not an object, `specversion` is not
 *   `"1.0"`, a required attribute is missing or of the wrong type, `time` is not an RFC 3339 time).
 * - `unsupported-content-type`: `datacontenttype` is not JSON, or the data is binary (`data_base64`).
 * - `unknown-type`: a well-formed event of a type this version of the kit does not know (only when
 *   `unknownTypes` is `'reject'`, the default).
 * - `unknown-version`: a known type whose `dataschema` names a version of its data this kit does not
 *   know (only when `unknownTypes` is `'reject'`, the default).
 * - `invalid-data`: `data` does not match the schema of its event type.
 * - `claim-check-invalid`: the message is flagged as offloaded (`ExtendedPayloadSize`) but its body is
 *   not a pointer, or the stored payload is empty.
 * - `claim-check-missing`: the pointer names an S3 object that does not exist (expired or deleted).
 * - `claim-check-unreadable`: reading the object failed otherwise (permissions, network, throttling),
 *   or the reader was created without a payload fetcher.
 * - `duplicate-in-progress`: another consumer is processing the same event id right now.
 */
export const CONSUMER_ERROR_CODES = [
  'not-json',
  'not-cloudevent',
  'unsupported-content-type',
  'unknown-type',
  'unknown-version',
  'invalid-data',
  'claim-check-invalid',
  'claim-check-missing',
  'claim-check-unreadable',
  'duplicate-in-progress',
] as const;

export type ConsumerErrorCode = (typeof CONSUMER_ERROR_CODES)[number];

export interface ConsumerErrorContext extends ErrorOptions {
  /** The SQS message id, when the error is about one message. */
  messageId?: string | undefined;
  /** The event id, once the envelope was readable. */
  eventId?: string | undefined;
  /** The event type, once the envelope was readable. */
  eventType?: string | undefined;
  /** Trying again later can succeed; default false. */
  retryable?: boolean;
}

/**
 * A message that could not be read as a bridge event, or an event already being processed elsewhere.
 *
 * `retryable` is true only where trying the same message again later can succeed (S3 unreachable
 * for `claim-check-unreadable`, and `duplicate-in-progress`); let those go back to the queue. Anything
 * else will fail again on every delivery until something changes: send it to a dead-letter queue.
 *
 * @example
 * ```ts
 * try {
 *   await reader.read(message);
 * } catch (error) {
 *   if (error instanceof ConsumerError && error.code === 'invalid-data') logger.error(error.message, { id: error.eventId });
 *   throw error;
 * }
 * ```
 */
export class ConsumerError extends BridgeError {
  declare readonly code: ConsumerErrorCode;
  readonly messageId: string | undefined;
  readonly eventId: string | undefined;
  readonly eventType: string | undefined;

  constructor(code: ConsumerErrorCode, message: string, context: ConsumerErrorContext = {}) {
    const where = context.messageId === undefined ? '' : `SQS message ${context.messageId}: `;
    super(code, `${where}${message}`, context);
    this.name = 'ConsumerError';
    this.messageId = context.messageId;
    this.eventId = context.eventId;
    this.eventType = context.eventType;
  }
}
