/**
 * The consumer kit, published as `pds-bridge/consumer`: read the bridge's events from SQS (the SDK's
 * ReceiveMessage or a Lambda SQS record), follow claim-check pointers, verify the CloudEvents envelope
 * and the data, and drop duplicates by event id. docs/consumers.md is the guide.
 *
 * The S3 adapters are part of this entry because nearly every consumer needs them; they load
 * `@aws-sdk/client-s3`, a dependency of this package.
 */

export {
  EXTENDED_PAYLOAD_SIZE_ATTRIBUTE,
  PAYLOAD_POINTER_CLASS,
  type PayloadS3Pointer,
  parsePayloadPointer,
} from '../../bridge/src/events/claim-check.ts';
export {
  INGEST_COMPLETED_OUTCOMES,
  INGEST_FAILURE_CODES,
  type IngestCompletedData,
  type IngestCompletedOutcome,
  type IngestFailedData,
  type MessagingAssetReceivedData,
  PUBLICATION_FAILURE_CODES,
  type PublicationCompletedData,
  type PublicationFailedData,
  type SupplierReviewReceivedData,
} from '../../bridge/src/events/data/index.ts';
export { EVENT_TYPES, type EventDataMap, type EventType } from '../../bridge/src/events/index.ts';
export { type VerifyWebhookOptions, verifyWebhook, WebhookError } from '../../bridge/src/webhooks/verify.ts';
export {
  DEFAULT_DEDUP_PREFIX,
  Deduplicator,
  type DeduplicatorOptions,
  type DedupRecord,
  type DedupStore,
  type OnceResult,
} from './dedup.ts';
export {
  type BridgeEvent,
  isBridgeEvent,
  type UnknownEvent,
  type UnknownTypePolicy,
} from './envelope.ts';
export { CONSUMER_ERROR_CODES, ConsumerError, type ConsumerErrorCode } from './errors.ts';
export { MemoryDedupStore, type MemoryDedupStoreOptions } from './memory-dedup-store.ts';
export {
  createEventReader,
  type EventReader,
  type EventReaderOptions,
  type PayloadFetcher,
  type SqsMessageLike,
} from './reader.ts';
export { type S3DedupStoreOptions, s3DedupStore, s3PayloadFetcher } from './s3/index.ts';
