/**
 * The event types the bridge emits and the data each carries, as TypeScript types and as zod
 * schemas (`createEvent` checks data against them, so a malformed event never leaves the bridge).
 * Each family's data lives in data/ (ingest, messages, publication, confirmation, webhook); this file
 * gathers them. docs/events.md describes each type with an example produced by this code.
 */
import { lazily } from '../core/lazy.ts';
import type * as z from '../core/zod.ts';
import { type ConfirmationChangedData, confirmationChangedSchema } from './data/confirmation.ts';
import {
  type IngestCompletedData,
  type IngestFailedData,
  ingestCompletedSchema,
  ingestFailedSchema,
} from './data/ingest.ts';
import {
  type MessagingAssetReceivedData,
  messagingAssetReceivedSchema,
  type SupplierReviewReceivedData,
  supplierReviewReceivedSchema,
} from './data/messages.ts';
import {
  type PublicationCompletedData,
  type PublicationFailedData,
  publicationCompletedSchema,
  publicationFailedSchema,
} from './data/publication.ts';
import { type WebhookEndpointDisabledData, webhookEndpointDisabledSchema } from './data/webhook.ts';

export const EVENT_TYPES = [
  'pds.ingest.completed',
  'pds.ingest.failed',
  'pds.messaging-asset.received',
  'pds.supplier-review.received',
  'pds.publication.completed',
  'pds.publication.failed',
  'pds.confirmation.changed',
  'pds.webhook.endpoint-disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The data type of each event type. */
export interface EventDataMap {
  'pds.ingest.completed': IngestCompletedData;
  'pds.ingest.failed': IngestFailedData;
  'pds.messaging-asset.received': MessagingAssetReceivedData;
  'pds.supplier-review.received': SupplierReviewReceivedData;
  'pds.publication.completed': PublicationCompletedData;
  'pds.publication.failed': PublicationFailedData;
  'pds.confirmation.changed': ConfirmationChangedData;
  'pds.webhook.endpoint-disabled': WebhookEndpointDisabledData;
}

/** zod schema of each event type's data. */
export const EVENT_DATA_SCHEMAS = lazily({
  'pds.ingest.completed': ingestCompletedSchema,
  'pds.ingest.failed': ingestFailedSchema,
  'pds.messaging-asset.received': messagingAssetReceivedSchema,
  'pds.supplier-review.received': supplierReviewReceivedSchema,
  'pds.publication.completed': publicationCompletedSchema,
  'pds.publication.failed': publicationFailedSchema,
  'pds.confirmation.changed': confirmationChangedSchema,
  'pds.webhook.endpoint-disabled': webhookEndpointDisabledSchema,
} satisfies { [T in EventType]: () => z.ZodMiniType });

/** Whether `value` names one of {@link EVENT_TYPES}. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
