/**
 * The errors of packages/bridge/src/webhooks, each with a stable `code` (packages/bridge/src/core/errors.ts).
 */
import { BridgeError, type BridgeErrorOptions } from '../core/index.ts';

/** Stable codes of {@link WebhookError}. */
export const WEBHOOK_ERROR_CODES = Object.freeze([
  'WEBHOOK_URL_REFUSED',
  'WEBHOOK_ENDPOINT_INVALID',
  'WEBHOOK_ENDPOINT_NOT_FOUND',
  'WEBHOOK_SIGNATURE_INVALID',
  'WEBHOOK_REPLAY_INVALID',
  'WEBHOOK_QUEUE_FAILED',
  'WEBHOOK_SECRET_UNAVAILABLE',
] as const);

export type WebhookErrorCode = (typeof WEBHOOK_ERROR_CODES)[number];

/**
 * A webhook endpoint, URL, signature or replay request that cannot be accepted, or delivery tasks the
 * webhook queue did not take; the message names what was wrong and what to do.
 *
 * @example
 * ```ts
 * throw new WebhookError('WEBHOOK_URL_REFUSED', 'http://10.0.0.1/ resolves to a private address; use a public https URL');
 * ```
 */
export class WebhookError extends BridgeError {
  declare readonly code: WebhookErrorCode;

  constructor(code: WebhookErrorCode, message: string, options: BridgeErrorOptions = {}) {
    super(code, message, options);
    this.name = 'WebhookError';
  }
}
