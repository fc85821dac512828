/**
 * Events: the CloudEvents envelope, the event types, the port they are published through and the
 * claim-check pointer format. Nothing here loads the AWS SDK; the SQS adapter is `./sqs/index.ts`, the EventBridge one
 * `./eventbridge/index.ts`.
 * The documented examples (`./examples.ts`) are left out: they parse GDSN XML when built, and every
 * function that sends an event would carry the XML parser for them. So are the build-time contract
 * generators (`./json-schema.ts`, `./compatibility.ts`, `./asyncapi.ts`, `./contracts.ts`).
 */

export {
  DEFAULT_EVENT_DESTINATIONS,
  EVENT_DESTINATIONS,
  EVENT_FAMILIES,
  type EventDestination,
  type EventDestinations,
  type EventFamily,
  eventDestinationFor,
  goesToBus,
  goesToQueue,
  parseEventDestinations,
} from '../config/event-destinations.ts';
export {
  EVENT_QUEUE_OVERRIDES,
  type EventQueueSettings,
  eventQueueOverrideFor,
  eventQueueUrlFor,
  unroutedEventTypeProblems,
} from '../config/event-routing.ts';
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
} from './claim-check.ts';
export type {
  ConfirmationChangedData,
  ConfirmationCorrectiveAction,
  ConfirmationEntryKey,
  ConfirmationReason,
} from './data/confirmation.ts';
export type { PdsFailureCode } from './data/fields.ts';
export {
  INGEST_COMPLETED_OUTCOMES,
  INGEST_FAILURE_CODES,
  type IngestCompletedData,
  type IngestCompletedOutcome,
  type IngestFailedData,
  type IngestFailureCode,
} from './data/ingest.ts';
export type {
  MessageFetchError,
  MessagingAssetReceivedData,
  RawXmlPointer,
  SupplierReviewReceivedData,
} from './data/messages.ts';
export {
  PUBLICATION_FAILURE_CODES,
  type PublicationCompletedData,
  type PublicationFailedData,
  type PublicationFailureCode,
} from './data/publication.ts';
export { DATA_SCHEMA_URN_PREFIX, dataSchemaPath, dataSchemaUri, EVENT_DATA_VERSIONS } from './dataschema.ts';
export {
  type CloudEvent,
  type CreateEventInput,
  createEvent,
  DEFAULT_EVENT_SOURCE,
  ENVELOPE_ATTRIBUTES,
  eventId,
  serializeEvent,
  toSendableJson,
} from './envelope.ts';
export {
  ClaimCheckError,
  EventDataError,
  EventPublishError,
  type EventPublishFailure,
} from './errors.ts';
export { httpRefusalCode, pdsFailureCode } from './failure-codes.ts';
export { FanOutSink } from './fan-out-sink.ts';
export { FilteredSink } from './filtered-sink.ts';
export type { EventSink } from './sink.ts';
export { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventDataMap, type EventType, isEventType } from './types.ts';
