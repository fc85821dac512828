/**
 * Every way publishing an event can fail, as a class of its own (a wrong publisher configuration is
 * packages/bridge/src/core's `ConfigError`). Messages name the problem and what to do about it.
 */

import { BridgeError } from '../core/index.ts';

/** The data given to `createEvent` does not match its event type. */
export class EventDataError extends BridgeError {
  readonly type: string;
  readonly issues: string;

  constructor(type: string, issues: string) {
    super(
      'EVENT_DATA_INVALID',
      `Invalid data for event ${type}: ${issues}. Fix the caller that builds this event.`,
    );
    this.name = 'EventDataError';
    this.type = type;
    this.issues = issues;
  }
}

/**
 * An event that cannot be written as JSON text at all (a value JSON cannot hold, or a text longer
 * than the runtime's largest string): no destination can take it, however often it is sent, so it
 * is a refusal of this event (`senderFault`), never an outage that stops the caller.
 */
export class EventSerializationError extends BridgeError {
  readonly eventId: string;
  readonly type: string;

  constructor(event: { id: string; type: string }, cause: unknown) {
    super(
      'EVENT_NOT_SERIALISABLE',
      `Event ${event.id} (${event.type}) cannot be serialised: ${cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)}. Its data is too large or holds a value JSON cannot represent; the pollers pass such an item with messageError.`,
      { cause },
    );
    this.name = 'EventSerializationError';
    this.eventId = event.id;
    this.type = event.type;
  }
}

/** One event the destination (SQS, EventBridge) did not accept, and why. */
export interface EventPublishFailure {
  eventId: string;
  type: string;
  /** The SQS or EventBridge error code (e.g. `InternalError`) or the name of the error thrown. */
  code: string;
  reason: string;
  /** True when the destination blamed the request itself; sending it again unchanged cannot help. */
  senderFault: boolean;
  /**
   * Set when the whole request failed (permissions, a missing queue, the network) rather than this
   * event being refused: such a failure says nothing about the event's content.
   */
  requestFailed?: true;
  attempts: number;
}

/** How many failures the message lists; `failures` always holds all of them. */
const LISTED_FAILURES = 20;

/**
 * Some events were not accepted by SQS or EventBridge after the bounded retries. The caller must not move its
 * checkpoint past any of `failures`; `publishedIds` were accepted and will be delivered.
 *
 * @example
 * try { await sink.publish(events); await checkpoint.advance(); }
 * catch (error) { if (error instanceof EventPublishError) logger.error('not published', { ids: error.failures.map((f) => f.eventId) }); throw error; }
 */
export class EventPublishError extends BridgeError {
  readonly failures: EventPublishFailure[];
  readonly publishedIds: string[];

  /** `destination` names who refused them in the message: `SQS` (default) or `EventBridge`. */
  constructor(failures: EventPublishFailure[], publishedIds: string[], destination = 'SQS') {
    const listed = failures
      .slice(0, LISTED_FAILURES)
      .map((failure) => `${failure.eventId} (${failure.type}): ${failure.code}: ${failure.reason}`)
      .join('; ');
    const more = failures.length > LISTED_FAILURES ? `; and ${failures.length - LISTED_FAILURES} more` : '';
    super(
      'EVENT_PUBLISH_FAILED',
      `${failures.length} of ${failures.length + publishedIds.length} events were not accepted by ${destination}: ${listed}${more}. Do not move the checkpoint past them; the next run sends them again (their ids are deterministic, so consumers can drop duplicates).`,
      { retryable: true },
    );
    this.name = 'EventPublishError';
    this.failures = failures;
    this.publishedIds = publishedIds;
  }
}

/** A claim-check pointer could not be followed or was not in the extended-client format. */
export class ClaimCheckError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('CLAIM_CHECK_FAILED', message, options);
    this.name = 'ClaimCheckError';
  }
}
