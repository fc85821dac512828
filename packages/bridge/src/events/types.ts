/**
 * The event types the bridge emits and the zod schema of the data each carries (`createEvent` checks
 * data against them, so a malformed event never leaves the bridge). Each family's data types and codes
 * are in data/ (ingest, messages, publication, confirmation, webhook), the fields they share in
 * data/fields.ts and the parts of a message in data/message-parts.ts. docs/events.md describes each
 * type with an example produced by this code.
 */
import { lazily } from '../core/lazy.ts';
import * as z from '../core/zod.ts';
import { described, withMeta } from '../core/zod.ts';
import { DESTINATION_TYPES } from '../pds/index.ts';
import type { ConfirmationChangedData } from './data/confirmation.ts';
import {
  count,
  failureCodeField,
  integer,
  nonEmpty,
  optionalText,
  pdsStatus,
  reason,
  s3ObjectRef,
} from './data/fields.ts';
import {
  INGEST_COMPLETED_OUTCOMES,
  INGEST_FAILURE_CODES,
  type IngestCompletedData,
  type IngestFailedData,
} from './data/ingest.ts';
import {
  cicList,
  gdsnSummary,
  messageError,
  notBoth,
  parsedDocument,
  rawXml,
  xmlErrorInfo,
} from './data/message-parts.ts';
import type { MessagingAssetReceivedData, SupplierReviewReceivedData } from './data/messages.ts';
import {
  PUBLICATION_FAILURE_CODES,
  type PublicationCompletedData,
  type PublicationFailedData,
} from './data/publication.ts';
import type { WebhookEndpointDisabledData } from './data/webhook.ts';

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

// The descriptions below reach consumers: they are the `description`s of the JSON Schemas in
// schemas/events (npm run schemas). Say what a field means to a reader of the event.
/** zod schema of each event type's data. */
export const EVENT_DATA_SCHEMAS = lazily({
  'pds.ingest.completed': () =>
    described(
      z.object({
        ...s3ObjectRef(),
        size: described(count(), 'Bytes of the S3 object.'),
        gatheringKey: described(nonEmpty(), 'The PDS gathering the file was uploaded as.'),
        entriesImported: described(
          z.array(
            z.object({
              path: described(
                nonEmpty(),
                "The entry's path in the gathering (for a ZIP: archive name/member path).",
              ),
              assetKey: described(nonEmpty(), 'The PDS asset key of the entry.'),
            }),
          ),
          'Each entry of the gathering (each member, for a ZIP) the PDS accepted an import request for.',
        ),
        outcome: described(
          z.optional(z.enum(INGEST_COMPLETED_OUTCOMES)),
          'What is known of the import: import-accepted, the PDS accepted the import of every entry; whether items were created is not reported (the PDS answers an import without a body). Absent in events of bridges older than this field, with the same meaning. The set may grow: treat an unknown value as import-accepted.',
        ),
      }),
      'A file dropped into the S3 drop bucket was uploaded to the PDS as a gathering and the PDS accepted an import request for every entry of it. The PDS answers an import request without a body and imports afterwards, so this says the requests were accepted, not that items were created: an empty or unreadable file, or a file of a kind the PDS does not import, also completes.',
    ),
  'pds.ingest.failed': () =>
    described(
      z.object({
        ...s3ObjectRef(),
        code: failureCodeField(INGEST_FAILURE_CODES),
        reason: reason(),
        pdsStatus: pdsStatus(),
        retryable: described(
          z.boolean(),
          'True when the same file may succeed later (the PDS was unavailable or rate limited).',
        ),
      }),
      'A file dropped into the S3 drop bucket could not be ingested.',
    ),
  'pds.messaging-asset.received': () =>
    withMeta(
      z
        .object({
          messagingAssetId: described(integer(), "The messaging asset's id in the PDS."),
          createdAt: described(z.optional(integer()), 'When the PDS created the asset, epoch milliseconds.'),
          primaryKey: optionalText('The item the asset is about, as the PDS lists it.'),
          document: z.optional(parsedDocument()),
          parseError: z.optional(xmlErrorInfo()),
          rawXml: rawXml(),
          rawXmlPointer: described(
            z.optional(z.object({ bucket: nonEmpty(), key: nonEmpty() })),
            'Where the raw XML was stored instead of rawXml, when it was too large to carry.',
          ),
          cic: cicList(),
          gdsn: gdsnSummary(),
          messageError: z.optional(messageError()),
        })
        .check(
          z.refine(
            (data) =>
              [data.document, data.parseError, data.messageError].filter((value) => value !== undefined)
                .length === 1,
            {
              message:
                'exactly one of document and parseError (or messageError, for a passed asset) must be set',
            },
          ),
        ),
      {
        description:
          'A messaging asset (an XML message, usually a GDSN CatalogueItemConfirmation) appeared in the PDS. Exactly one of document (parsed), parseError (not parseable; the text in rawXml or rawXmlPointer) and messageError (passed without its XML) is set.',
        oneOf: [{ required: ['document'] }, { required: ['parseError'] }, { required: ['messageError'] }],
      },
    ),
  'pds.supplier-review.received': () =>
    withMeta(
      z
        .object({
          // The review passes through as the PDS sent it; only what routing needs is checked.
          review: described(
            z.looseObject({ primaryKey: nonEmpty(), messagingAssetId: integer() }),
            'The supplier review as the PDS sent it; fields beyond primaryKey and messagingAssetId pass through unchecked.',
          ),
          messagingAssetId: described(integer(), 'The messaging asset the review points to.'),
          document: z.optional(parsedDocument()),
          parseError: z.optional(xmlErrorInfo()),
          rawXml: rawXml(),
          messageError: z.optional(messageError()),
          cic: cicList(),
          gdsn: gdsnSummary(),
        })
        .check(z.refine(notBoth, { message: 'document and parseError must not both be set' })),
      {
        description:
          'A new supplier review arrived on a watched item, with the messaging asset it points to: parsed (document), not parseable (parseError with rawXml), or absent (messageError).',
        not: { required: ['document', 'parseError'] },
      },
    ),
  'pds.publication.completed': () =>
    described(
      z.object({
        publicationId: described(nonEmpty(), 'The id the HTTP API gave the publication request.'),
        selectionId: described(nonEmpty(), 'The PDS selection created from the primary keys.'),
        numberOfItems: described(count(), 'Items in the selection, as the PDS counted them.'),
        destinations: described(
          z.array(
            z.object({
              destinationType: z.enum(DESTINATION_TYPES),
              destinationId: nonEmpty(),
            }),
          ),
          'Where the selection was published.',
        ),
        primaryKeys: described(z.array(nonEmpty()), 'The primary keys of the request.'),
      }),
      'A publication requested through the HTTP API was carried out: the PDS created a selection of the primary keys and accepted the request to publish it to the destinations.',
    ),
  'pds.publication.failed': () =>
    described(
      z.object({
        publicationId: described(nonEmpty(), 'The id the HTTP API gave the publication request.'),
        selectionId: described(
          z.optional(nonEmpty()),
          'Set when the failure happened after the selection was created.',
        ),
        code: failureCodeField(PUBLICATION_FAILURE_CODES),
        reason: reason(),
        pdsStatus: pdsStatus(),
        retryable: described(
          z.boolean(),
          'True when the PDS failed transiently on every attempt: the same request may succeed later.',
        ),
      }),
      'A publication requested through the HTTP API could not be carried out.',
    ),
  'pds.confirmation.changed': () =>
    described(
      z.object({
        entry: described(
          z.object({
            primaryKey: described(nonEmpty(), 'The published item, by its PDS primary key.'),
            channelId: described(nonEmpty(), 'The communication channel the item was published to.'),
            gtin: optionalText('GTIN-14 of the item, once a confirmation named it.'),
            recipientGln: optionalText('GLN of the recipient, once a confirmation named it.'),
            targetMarket: optionalText(
              'ISO 3166 numeric code of the target market, once a confirmation named it.',
            ),
          }),
          'Which entry of the ledger changed: one item at one recipient and target market.',
        ),
        previousState: optionalText('The state before the change; absent when the entry was created.'),
        state: described(
          nonEmpty(),
          'The new state: AWAITING, OVERDUE, RECEIVED, REVIEW, REVIEW_WARNING (a REVIEW whose every corrective action is WARNING: the item will synchronise), SYNCHRONISED, REJECTED, ACCEPTED (GDSN 2.8), REFUSED_BY_DATA_POOL (the data pool or the Global Registry refused the publication before it reached the recipient; reason says why), or a supplier review status (APPROVED, …) where no confirmation could be read; the set is open.',
        ),
        since: described(
          z.string(),
          'When the fact behind the new state happened, RFC 3339: the creation time of the message, the publication time, or the deadline.',
        ),
        cause: described(
          z.enum(['publication', 'confirmation', 'review', 'deadline', 'refusal']),
          'What changed the state: a (re)publication, a CatalogueItemConfirmation, a supplier review without a readable confirmation, the deadline passing (OVERDUE), or a refusal by the data pool or the Global Registry (a GS1 Response/GDSNResponse with errors, a registration response REJECTED). The set may grow.',
        ),
        publications: described(
          z.array(z.object({ publicationId: nonEmpty(), publishedAt: z.string() })),
          'The publications that sent this item to this recipient, oldest first.',
        ),
        correctiveActions: described(
          z.array(
            z.object({
              statusCode: described(z.string(), 'The confirmation status code, e.g. CIC999.'),
              code: described(z.string(), 'The corrective action code, e.g. ACTION_NEEDED.'),
              description: optionalText('The status description, as the recipient wrote it.'),
              expectedCorrectiveInformation: optionalText('What the recipient expects to be corrected.'),
              gtin: optionalText('The GTIN of the hierarchy level the status is about.'),
              longDescription: optionalText(
                "The status's long description (additionalConfirmationStatusLongDescription): where recipients put the full text.",
              ),
            }),
          ),
          'What the recipient asks to be fixed, from the latest confirmation (or, for a refusal, each error of the data pool with its code as statusCode); empty when nothing.',
        ),
        reason: described(
          z.optional(
            z.object({
              source: described(
                z.enum(['data-pool', 'recipient']),
                'Who said it: the data pool or Global Registry (a refusal), or the recipient (a confirmation).',
              ),
              code: optionalText('The error code (e.g. GDSN.1091) or the status code (e.g. CIC999).'),
              text: described(z.string(), 'The reason, as the sender wrote it.'),
              senderGln: optionalText("GLN of the message's sender."),
            }),
          ),
          'Why the entry is in its state, when the answer behind it says: the error of a refusal, the long description (else the description) of a confirmation.',
        ),
        messagingAssetId: described(
          z.optional(integer()),
          'The messaging asset whose confirmation caused the change.',
        ),
        reviewId: optionalText(
          'The id of the pds.supplier-review.received event whose review caused the change.',
        ),
      }),
      'An entry of the confirmation ledger (one published item at one trading-partner recipient) changed state: published and awaiting an answer, answered by a CatalogueItemConfirmation or review, or overdue. Emitted once per transition.',
    ),
  'pds.webhook.endpoint-disabled': () =>
    described(
      z.object({
        endpointId: described(nonEmpty(), 'The webhook endpoint, as GET /webhooks/endpoints lists it.'),
        url: described(
          nonEmpty(),
          "The origin of the URL deliveries went to (scheme, host and port, e.g. https://hooks.example.com): never its path or query, which may hold the endpoint owner's token.",
        ),
        reason: described(
          z.enum(['gone', 'failing']),
          'gone: the endpoint answered 410 Gone; failing: no attempt succeeded for WEBHOOK_DISABLE_AFTER_HOURS.',
        ),
        detail: described(z.string(), 'What the bridge saw, in words.'),
        disabledAt: described(z.string(), 'When it was disabled, RFC 3339.'),
        failingSince: optionalText('The first failed attempt since the last success, RFC 3339.'),
      }),
      'The bridge disabled a webhook endpoint: nothing is sent to it until it is enabled again (POST /webhooks/endpoints/{id}/enable), and the events it missed are recorded as undelivered and can be replayed.',
    ),
} satisfies { [T in EventType]: () => z.ZodMiniType });

/** Whether `value` names one of {@link EVENT_TYPES}. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
