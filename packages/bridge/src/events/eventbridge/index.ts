/**
 * The EventBridge adapter of the event port. A separate entry from `../index.ts` because it loads
 * the AWS SDK; only edge code (packages/bridge/src/lambda/adapters.ts, tests, benches) imports it.
 */
export {
  DEFAULT_ENTRY_LIMIT_BYTES,
  EVENTBRIDGE_PUBLISHER_ACTIONS,
  EventBridgeEventPublisher,
  type EventBridgeEventPublisherOptions,
  MAX_ENTRY_LIMIT_BYTES,
  MAX_PUT_EVENTS_ENTRIES,
  packPutEventsBatches,
  putEventsEntrySize,
} from './publisher.ts';
