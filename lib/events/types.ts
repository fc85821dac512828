/**
 * The event types the bridge emits and the data each carries, as TypeScript types and as zod
 * schemas (`createEvent` checks data against them, so a malformed event never leaves the bridge).
 * docs/events.md describes each type with an example produced by this code.
 */
import * as z from 'zod';
import { lazily, once } from '../lazy.ts';
import type { Destination, SupplierReview } from '../pds/index.ts';
import { DESTINATION_TYPES } from '../pds/index.ts';
import type { CicSummary, ParsedDocument, XmlErrorInfo } from '../xml/index.ts';

export const EVENT_TYPES = [
  'pds.ingest.completed',
  'pds.ingest.failed',
  'pds.messaging-asset.received',
  'pds.supplier-review.received',
  'pds.publication.completed',
  'pds.publication.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * Why an ingest failed, as a stable machine-readable code (`pds.ingest.failed` `data.code`); the set
 * only grows. docs/events.md says what a consumer does with each.
 */
export const INGEST_FAILURE_CODES = [
  /** The object was replaced by a newer upload after its notification; the newer one is ingested on its own. */
  'superseded',
  /** The object (or its version) was deleted before it could be ingested. */
  'gone',
  /** The object is in an archive storage class and must be restored first. */
  'archived',
  /** The PDS accepted the upload but listed no entries (an empty archive, no importable file). */
  'no-entries',
  /** The PDS refused the file or an import with a 4xx other than 401/403/429. */
  'rejected',
  /** The PDS refused the bridge's credentials (401/403). */
  'unauthorized',
  /** The PDS answered something the bridge cannot use (unreadable answer, entries in several gatherings). */
  'invalid-answer',
  /** The bridge refused to send the request it built (a bug: report it). */
  'internal',
] as const;
export type IngestFailureCode = (typeof INGEST_FAILURE_CODES)[number];

/**
 * Why a publication failed (`pds.publication.failed` `data.code`); the set only grows.
 */
export const PUBLICATION_FAILURE_CODES = [
  /** The PDS refused the selection or the publication with a 4xx other than 401/403/429. */
  'rejected',
  /** The PDS refused the bridge's credentials (401/403). */
  'unauthorized',
  /** The PDS answered something the bridge cannot use. */
  'invalid-answer',
  /** The bridge refused to send the request it built (a bug: report it). */
  'internal',
  /** The PDS failed transiently on every one of `PUBLICATION_MAX_ATTEMPTS` deliveries. */
  'attempts-exhausted',
] as const;
export type PublicationFailureCode = (typeof PUBLICATION_FAILURE_CODES)[number];

/** An S3 object that was (or could not be) ingested. */
interface S3ObjectRef {
  bucket: string;
  key: string;
  versionId?: string;
}

/** `pds.ingest.completed`: an S3 object was uploaded to the PDS and every entry imported. */
export interface IngestCompletedData extends S3ObjectRef {
  /** Bytes of the S3 object. */
  size: number;
  gatheringKey: string;
  entriesImported: Array<{ path: string; assetKey: string }>;
}

/** `pds.ingest.failed`: an S3 object could not be ingested. */
export interface IngestFailedData extends S3ObjectRef {
  /** Why, as one of {@link INGEST_FAILURE_CODES}. */
  code: IngestFailureCode;
  reason: string;
  /** HTTP status the PDS answered, when the PDS refused. */
  pdsStatus?: number;
  /** True when the same object may succeed later (the message goes back to the queue). */
  retryable: boolean;
}

/** Where a raw XML text too large to carry was stored. */
export interface RawXmlPointer {
  bucket: string;
  key: string;
}

/**
 * `pds.messaging-asset.received`: a new messaging asset, parsed (`document`), not parseable
 * (`parseError`), or passed without its XML (`messageError`) after failing on consecutive runs.
 */
export interface MessagingAssetReceivedData {
  messagingAssetId: number;
  /** Epoch milliseconds, as the PDS lists it. */
  createdAt?: number;
  primaryKey?: string;
  document?: ParsedDocument;
  parseError?: XmlErrorInfo;
  /** The XML as received, typically when it could not be parsed. */
  rawXml?: string;
  rawXmlPointer?: RawXmlPointer;
  /** One summary per GDSN CatalogueItemConfirmation in the document. */
  cic?: CicSummary[];
  /**
   * Set instead of `document` when the asset failed on `POLL_FAILURE_LIMIT` consecutive runs (its XML
   * could not be fetched, or SQS refused its event) and the poller passed it.
   */
  messageError?: MessageFetchError;
}

/**
 * Why an event carries no message: the PDS refused it for good (e.g. 404), or it failed on
 * `failedRuns` consecutive runs and the poller passed it instead of holding everything behind it.
 */
export interface MessageFetchError {
  name: string;
  message: string;
  /** HTTP status the PDS answered, e.g. 404 when the messaging asset no longer exists. */
  status?: number;
  /** Consecutive runs that failed on this item before the poller passed it (`POLL_FAILURE_LIMIT`). */
  failedRuns?: number;
}

/** `pds.supplier-review.received`: a new supplier review on a watched item, with its message. */
export interface SupplierReviewReceivedData {
  review: SupplierReview;
  messagingAssetId: number;
  document?: ParsedDocument;
  parseError?: XmlErrorInfo;
  /** The XML as received, when it could not be parsed. */
  rawXml?: string;
  /**
   * Set instead of `document` when the PDS refused the message for good (e.g. 404), or when the review
   * failed on `POLL_FAILURE_LIMIT` consecutive runs (with `failedRuns`) and the poller passed it.
   */
  messageError?: MessageFetchError;
  cic?: CicSummary[];
}

/** `pds.publication.completed`: a selection was created and published. */
export interface PublicationCompletedData {
  publicationId: string;
  selectionId: string;
  numberOfItems: number;
  destinations: Destination[];
  primaryKeys: string[];
}

/** `pds.publication.failed`: a publication request could not be carried out. */
export interface PublicationFailedData {
  publicationId: string;
  /** Set when the failure happened after the selection was created. */
  selectionId?: string;
  /** Why, as one of {@link PUBLICATION_FAILURE_CODES}. */
  code: PublicationFailureCode;
  reason: string;
  pdsStatus?: number;
  retryable: boolean;
}

/** The data type of each event type. */
export interface EventDataMap {
  'pds.ingest.completed': IngestCompletedData;
  'pds.ingest.failed': IngestFailedData;
  'pds.messaging-asset.received': MessagingAssetReceivedData;
  'pds.supplier-review.received': SupplierReviewReceivedData;
  'pds.publication.completed': PublicationCompletedData;
  'pds.publication.failed': PublicationFailedData;
}

const nonEmpty = once(() => z.string().min(1));
const count = once(() => z.number().int().nonnegative());
const httpStatus = once(() => z.number().int().min(100).max(599));

const s3ObjectRef = once(() => ({ bucket: nonEmpty(), key: nonEmpty(), versionId: nonEmpty().optional() }));

const xmlErrorInfo = once(() =>
  z.object({
    name: nonEmpty(),
    code: z.string().optional(),
    message: nonEmpty(),
    line: z.number().int().positive().optional(),
    column: z.number().int().positive().optional(),
  }),
);

const parsedDocument = once(() =>
  z.object({
    rootName: nonEmpty(),
    rootNamespace: z.string().optional(),
    namespaces: z.record(z.string(), z.string()),
    root: z.record(z.string(), z.unknown()),
  }),
);

const cicSummary = once(() =>
  z.object({
    gdsnVersion: z.enum(['3.1', '2.8']),
    state: nonEmpty(),
    gtin: nonEmpty(),
    recipientGln: z.string().optional(),
    recipientDataPool: z.string().optional(),
    dataSource: z.string().optional(),
    targetMarketCountryCode: z.string().optional(),
    documentIdentifier: z.string().optional(),
    confirmationIdentifier: z.string().optional(),
    creationDateTime: z.string().optional(),
    statuses: z.array(
      z.object({
        code: z.string(),
        gtin: z.string().optional(),
        descriptions: z.array(z.object({ languageCode: z.string().optional(), text: z.string() })),
        correctiveActions: z.array(
          z.object({ code: z.string(), expectedCorrectiveInformation: z.string().optional() }),
        ),
      }),
    ),
  }),
);

const notBoth = (data: { document?: unknown; parseError?: unknown }) =>
  data.document === undefined || data.parseError === undefined;

const messageError = once(() =>
  z.object({
    name: nonEmpty(),
    message: nonEmpty(),
    status: httpStatus().optional(),
    failedRuns: z.number().int().positive().optional(),
  }),
);

/** zod schema of each event type's data. */
export const EVENT_DATA_SCHEMAS = lazily({
  'pds.ingest.completed': () =>
    z.object({
      ...s3ObjectRef(),
      size: count(),
      gatheringKey: nonEmpty(),
      entriesImported: z.array(z.object({ path: nonEmpty(), assetKey: nonEmpty() })),
    }),
  'pds.ingest.failed': () =>
    z.object({
      ...s3ObjectRef(),
      code: z.enum(INGEST_FAILURE_CODES),
      reason: nonEmpty(),
      pdsStatus: httpStatus().optional(),
      retryable: z.boolean(),
    }),
  'pds.messaging-asset.received': () =>
    z
      .object({
        messagingAssetId: z.number().int(),
        createdAt: z.number().int().optional(),
        primaryKey: z.string().optional(),
        document: parsedDocument().optional(),
        parseError: xmlErrorInfo().optional(),
        rawXml: z.string().optional(),
        rawXmlPointer: z.object({ bucket: nonEmpty(), key: nonEmpty() }).optional(),
        cic: z.array(cicSummary()).optional(),
        messageError: messageError().optional(),
      })
      .refine(
        (data) =>
          [data.document, data.parseError, data.messageError].filter((value) => value !== undefined)
            .length === 1,
        {
          message: 'exactly one of document and parseError (or messageError, for a passed asset) must be set',
        },
      ),
  'pds.supplier-review.received': () =>
    z
      .object({
        // The review passes through as the PDS sent it; only what routing needs is checked.
        review: z.looseObject({ primaryKey: nonEmpty(), messagingAssetId: z.number().int() }),
        messagingAssetId: z.number().int(),
        document: parsedDocument().optional(),
        parseError: xmlErrorInfo().optional(),
        rawXml: z.string().optional(),
        messageError: messageError().optional(),
        cic: z.array(cicSummary()).optional(),
      })
      .refine(notBoth, { message: 'document and parseError must not both be set' }),
  'pds.publication.completed': () =>
    z.object({
      publicationId: nonEmpty(),
      selectionId: nonEmpty(),
      numberOfItems: count(),
      destinations: z.array(
        z.object({ destinationType: z.enum(DESTINATION_TYPES), destinationId: nonEmpty() }),
      ),
      primaryKeys: z.array(nonEmpty()),
    }),
  'pds.publication.failed': () =>
    z.object({
      publicationId: nonEmpty(),
      selectionId: nonEmpty().optional(),
      code: z.enum(PUBLICATION_FAILURE_CODES),
      reason: nonEmpty(),
      pdsStatus: httpStatus().optional(),
      retryable: z.boolean(),
    }),
} satisfies { [T in EventType]: () => z.ZodType });

/** Whether `value` names one of {@link EVENT_TYPES}. */
export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}
