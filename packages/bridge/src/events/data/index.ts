/**
 * The `data` of each event type: what consumers read, and what the flows build before they publish.
 * Its own entry (`@pds-bridge/bridge/events/data`) beside the events room's, so that entry stays the
 * envelope, the types and the publishing port.
 */
export type {
  ConfirmationChangedData,
  ConfirmationCorrectiveAction,
  ConfirmationEntryKey,
  ConfirmationReason,
} from './confirmation.ts';
export type { PdsFailureCode } from './fields.ts';
export {
  INGEST_COMPLETED_OUTCOMES,
  INGEST_FAILURE_CODES,
  type IngestCompletedData,
  type IngestCompletedOutcome,
  type IngestFailedData,
  type IngestFailureCode,
} from './ingest.ts';
export type {
  MessageFetchError,
  MessagingAssetReceivedData,
  RawXmlPointer,
  SupplierReviewReceivedData,
} from './messages.ts';
export {
  PUBLICATION_FAILURE_CODES,
  type PublicationCompletedData,
  type PublicationFailedData,
  type PublicationFailureCode,
} from './publication.ts';
