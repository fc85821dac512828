/**
 * Events: the CloudEvents envelope, the event types, the port they are published through and its
 * errors. Nothing here loads the AWS SDK; the SQS adapter is `./sqs/index.ts`, the EventBridge one
 * `./eventbridge/index.ts`. Each event type's `data` is `./data/index.ts`; the claim-check pointer
 * format `./claim-check.ts`; the data schemas' URIs `./dataschema.ts`; where each family goes and
 * which queue each type takes are configuration (packages/bridge/src/config/event-destinations.ts,
 * event-routing.ts).
 * The documented examples (`./examples.ts`) are left out: they parse GDSN XML when built, and every
 * function that sends an event would carry the XML parser for them. So are the build-time contract
 * generators (`./json-schema.ts`, `./compatibility.ts`, `./asyncapi.ts`, `./contracts.ts`).
 */

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
export {
  type DestinationFailures,
  FailureRecordingSink,
  PUBLISH_FAILURES_PREFIX,
  recentPublishFailures,
} from './publish-failures.ts';
export type { EventSink } from './sink.ts';
export { EVENT_DATA_SCHEMAS, EVENT_TYPES, type EventDataMap, type EventType, isEventType } from './types.ts';
