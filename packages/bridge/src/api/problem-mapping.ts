/**
 * Which problem answers each failure a route may throw: the API's own (ApiProblem, a bad path), the
 * publications flow's (idempotency, the queue), the PDS's, the state store's and the webhook queue's. Anything else is
 * unexpected and answered 500 by the API (./api.ts).
 */
import { PdsError, PdsRateLimitedError } from '../pds/index.ts';
import {
  IdempotencyConflictError,
  IdempotencyContentionError,
  PublicationQueueError,
  RequestInProgressError,
} from '../publications/errors.ts';
import { StateConflictError, StateStoreError, WatchListError } from '../state/index.ts';
import { WebhookError } from '../webhooks/index.ts';
import { InvalidPathError } from './errors.ts';
import { ApiProblem } from './problem.ts';

/** Seconds a client should wait before retrying after a 503 without a better hint. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** The problem to answer with for any error a route may throw. */
export function problemOf(error: unknown): ApiProblem | undefined {
  if (error instanceof ApiProblem) return error;
  if (error instanceof InvalidPathError) return new ApiProblem('invalid-path', error.message);
  if (error instanceof WatchListError) return new ApiProblem('invalid-path', error.message);
  if (error instanceof IdempotencyConflictError) {
    return new ApiProblem('idempotency-key-reused', error.message, {
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof RequestInProgressError) {
    return new ApiProblem('request-in-progress', error.message, {
      headers: { 'retry-after': String(error.retryAfterSeconds) },
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof IdempotencyContentionError) {
    return new ApiProblem('service-unavailable', error.message, { headers: { 'retry-after': '1' } });
  }
  if (error instanceof PublicationQueueError) {
    return new ApiProblem('service-unavailable', error.message, {
      headers: { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) },
      extensions: { publicationId: error.publicationId },
    });
  }
  if (error instanceof PdsError) {
    if (error.retryable) {
      const hinted = error instanceof PdsRateLimitedError ? error.retryAfterMs : undefined;
      const seconds =
        hinted === undefined ? DEFAULT_RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(hinted / 1000));
      return new ApiProblem('pds-unavailable', `The PDS is unavailable; try again later (${error.message})`, {
        headers: { 'retry-after': String(seconds) },
      });
    }
    return new ApiProblem('pds-error', error.message, { extensions: { pdsCode: error.code } });
  }
  if (error instanceof StateConflictError) {
    return new ApiProblem(
      'service-unavailable',
      'The record kept changing under concurrent requests; retry',
      {
        headers: { 'retry-after': '1' },
      },
    );
  }
  if (
    error instanceof WebhookError &&
    (error.code === 'WEBHOOK_QUEUE_FAILED' || error.code === 'WEBHOOK_SECRET_UNAVAILABLE')
  ) {
    return new ApiProblem('service-unavailable', error.message, {
      headers: { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) },
    });
  }
  if (error instanceof StateStoreError && error.retryable) {
    return new ApiProblem('service-unavailable', 'The state store is unavailable; try again later', {
      headers: { 'retry-after': String(DEFAULT_RETRY_AFTER_SECONDS) },
    });
  }
  return undefined;
}
