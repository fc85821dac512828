/**
 * The SQS adapter of the event port: the publisher, the S3 half of the claim-check and the
 * SendMessageBatch with per-entry retry that the bridge's other SQS adapters send through. A separate
 * entry from `../index.ts` because it loads the AWS SDK; only edge code (handlers, packages/bridge/src/lambda/adapters.ts,
 * the local stack, benches) imports it.
 */
export {
  type BatchEntryFate,
  type BatchSendOptions,
  type BatchSendResult,
  MAX_BATCH_BYTES,
  MAX_BATCH_ENTRIES,
  packBatches,
  sendMessageBatch,
  type UnsentEntry,
} from './batch-send.ts';
export {
  CLAIM_CHECK_ACTIONS,
  CLAIM_CHECK_PREFIX,
  claimCheckKey,
  resolveEventBody,
  storePayload,
} from './claim-check.ts';
export {
  type ClaimCheckOptions,
  EVENT_PUBLISHER_ACTIONS,
  type QueueUrlResolver,
  SqsEventPublisher,
  type SqsEventPublisherOptions,
} from './publisher.ts';
