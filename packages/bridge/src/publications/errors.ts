/**
 * The publications' errors (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes").
 * The HTTP API (packages/bridge/src/api) answers with ApiProblem, which maps these to problem documents.
 */
import { BridgeError } from '../core/index.ts';
import type { PdsError } from '../pds/index.ts';

/** The publication record named by a message does not exist: the message goes back and ends in the DLQ. */
export class PublicationNotFoundError extends BridgeError {
  readonly publicationId: string;

  constructor(publicationId: string) {
    super(
      'PUBLICATION_NOT_FOUND',
      `No publication record for ${publicationId} in the state bucket; check STATE_BUCKET of the api and worker functions (the message goes to the DLQ)`,
    );
    this.name = 'PublicationNotFoundError';
    this.publicationId = publicationId;
  }
}

/** A transient PDS failure: the message is delivered again later. */
export class PublicationRetryError extends BridgeError {
  readonly publicationId: string;
  readonly attempt: number;

  constructor(publicationId: string, attempt: number, cause: PdsError) {
    super(
      'PUBLICATION_RETRY',
      `Publication ${publicationId}, attempt ${attempt}: ${cause.message}; SQS delivers the message again`,
      { cause, retryable: true },
    );
    this.name = 'PublicationRetryError';
    this.publicationId = publicationId;
    this.attempt = attempt;
  }
}

/** The queue refused the message or could not be reached. */
export class PublicationQueueError extends BridgeError {
  readonly publicationId: string;

  constructor(publicationId: string, detail: string, options?: ErrorOptions) {
    super(
      'PUBLICATION_QUEUE_FAILED',
      `Could not queue publication ${publicationId}: ${detail}; the request is recorded, send it again with the same Idempotency-Key`,
      { ...options, retryable: true },
    );
    this.name = 'PublicationQueueError';
    this.publicationId = publicationId;
  }
}

/** The Idempotency-Key was used before with a different body. */
export class IdempotencyConflictError extends BridgeError {
  readonly publicationId: string;

  constructor(publicationId: string) {
    super(
      'IDEMPOTENCY_KEY_REUSED',
      `This Idempotency-Key was already used for a different request (publication ${publicationId}); use a new key for a new publication`,
    );
    this.name = 'IdempotencyConflictError';
    this.publicationId = publicationId;
  }
}

/** Another request with the same key is still being accepted. */
export class RequestInProgressError extends BridgeError {
  readonly publicationId: string;
  readonly retryAfterSeconds: number;

  constructor(publicationId: string, retryAfterSeconds: number) {
    super(
      'REQUEST_IN_PROGRESS',
      `A request with this Idempotency-Key is still being accepted (publication ${publicationId}); retry in ${retryAfterSeconds} s with the same key and body`,
      { retryable: true },
    );
    this.name = 'RequestInProgressError';
    this.publicationId = publicationId;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The state store kept changing under us; the caller may retry. */
export class IdempotencyContentionError extends BridgeError {
  constructor() {
    super(
      'IDEMPOTENCY_CONTENTION',
      'The idempotency record kept changing while this request tried to take it over; retry the request',
      { retryable: true },
    );
    this.name = 'IdempotencyContentionError';
  }
}
