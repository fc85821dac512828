/** Events: the CloudEvents envelope, the event types, the SQS publisher and the claim-check. */
export {
  DEFAULT_INLINE_LIMIT_BYTES,
  EXTENDED_PAYLOAD_SIZE_ATTRIBUTE,
  formatPayloadPointer,
  LEGACY_PAYLOAD_POINTER_CLASS,
  LEGACY_PAYLOAD_SIZE_ATTRIBUTE,
  MAX_INLINE_LIMIT_BYTES,
  type MessageAttributeLike,
  PAYLOAD_POINTER_CLASS,
  type PayloadS3Pointer,
  parsePayloadPointer,
  resolveEventBody,
  storePayload,
} from './claim-check.ts';
export {
  type CloudEvent,
  type CreateEventInput,
  createEvent,
  DEFAULT_EVENT_SOURCE,
  eventId,
  serializeEvent,
  toSendableJson,
} from './envelope.ts';
export {
  ClaimCheckError,
  EventConfigError,
  EventDataError,
  EventPublishError,
  type EventPublishFailure,
} from './errors.ts';
export {
  type ClaimCheckOptions,
  type EventSink,
  MAX_BATCH_BYTES,
  MAX_BATCH_ENTRIES,
  packBatches,
  type QueueUrlResolver,
  SqsEventPublisher,
  type SqsEventPublisherOptions,
} from './publisher.ts';
export {
  EVENT_DATA_SCHEMAS,
  EVENT_TYPES,
  type EventDataMap,
  type EventType,
  type IngestCompletedData,
  type IngestFailedData,
  isEventType,
  type MessageFetchError,
  type MessagingAssetReceivedData,
  type PublicationCompletedData,
  type PublicationFailedData,
  type RawXmlPointer,
  type SupplierReviewReceivedData,
} from './types.ts';
