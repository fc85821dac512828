/**
 * Webhooks per Standard Webhooks 1.0: signing (`v1` HMAC-SHA256, `v1a` ed25519), verification, the
 * endpoint registry, the URL policy, the retry schedule, the delivery log and the delivery flow with
 * replay, the secret material (./secrets.ts on the SecretStore port). Nothing here loads the AWS SDK;
 * the adapters are ./sqs/queue.ts (the delivery queue), ./secretsmanager/store.ts and ./files/store.ts
 * (the secret store). docs/webhooks.md.
 */

export {
  checkCustomHeaders,
  MAX_CUSTOM_HEADER_BYTES,
  MAX_CUSTOM_HEADERS,
  RESERVED_HEADER_NAMES,
} from './custom-headers.ts';
export {
  type DeliveryAttempt,
  type DeliveryRecord,
  type DeliveryStatus,
  getDelivery,
  keepEvent,
  keptEvent,
  listDeliveries,
  RESPONSE_SNIPPET_BYTES,
} from './deliveries.ts';
export {
  type BatchBounds,
  type EndpointDisabled,
  type TaskOutcome,
  WebhookDelivery,
  type WebhookDeliveryOptions,
} from './delivery.ts';
export {
  deleteEndpoint,
  type EndpointInput,
  type EndpointRecord,
  EndpointRegistry,
  type EndpointView,
  endpointMatches,
  endpointView,
  liveSecrets,
} from './endpoints.ts';
export { WEBHOOK_ERROR_CODES, WebhookError, type WebhookErrorCode } from './errors.ts';
export { ENDPOINTS_PREFIX, WEBHOOKS_PREFIX } from './keys.ts';
export type { DeliveryLane } from './lanes.ts';
export { MemoryDeliveryQueue } from './memory-queue.ts';
export { type PostResult, postWebhook } from './post.ts';
export { type DeliveryQueue, type DeliveryTask, MAX_QUEUE_DELAY_SECONDS } from './queue.ts';
export { REPLAY_PAGE_EVENTS, type ReplayRequest, type ReplayResult } from './replay.ts';
export {
  BREAKER_THRESHOLD,
  breakerOpenMs,
  MAX_ATTEMPTS,
  parseRetryAfter,
  RETRY_SCHEDULE_SECONDS,
  retryDelayMs,
} from './schedule.ts';
export { MemorySecretStore, type SecretStore } from './secret-store.ts';
export {
  endpointSecretName,
  type SecretRef,
  SIGNING_KEY_SECRET,
  WebhookSecrets,
} from './secrets.ts';
export {
  generateSecret,
  generateSigningKey,
  publicKeyOf,
  signV1,
  signV1a,
  webhookHeaders,
} from './signing.ts';
export {
  checkEndpointUrl,
  isNonPublicAddress,
  REFUSED_IPV4_RANGES,
  REFUSED_IPV6_RANGES,
  resolveEndpoint,
  URL_POLICIES,
  type UrlPolicy,
} from './url-policy.ts';
export { type VerifyWebhookOptions, verifyWebhook } from './verify.ts';
