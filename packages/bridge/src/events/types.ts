/**
 * The event types the bridge emits and the data each carries, as TypeScript types and as zod
 * schemas (`createEvent` checks data against them, so a malformed event never leaves the bridge).
 * docs/events.md describes each type with an example produced by this code.
 */
import { lazily, once } from '../core/lazy.ts';
import * as z from '../core/zod.ts';
import { described, withMeta } from '../core/zod.ts';
import type { Destination, SupplierReview } from '../pds/index.ts';
import { DESTINATION_TYPES } from '../pds/index.ts';
import type { CicSummary, GdsnMessageSummary, ParsedDocument, XmlErrorInfo } from '../xml/index.ts';

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

/**
 * The codes of a PDS call that failed for good, shared by the ingest and publication failures
 * (`pdsFailureCode`, packages/bridge/src/events/failure-codes.ts, picks one); docs/events.md says what each means per flow.
 */
const PDS_FAILURE_CODES = [
  /** The PDS refused the request (an ingest's file or import, a publication's selection or publication) with a 4xx other than 401/403/429. */
  'rejected',
  /** The PDS refused the bridge's credentials (401/403). */
  'unauthorized',
  /** The PDS answered something the bridge cannot use (an unreadable answer; for an ingest, entries in several gatherings). */
  'invalid-answer',
  /** The bridge refused to send the request it built (a bug: report it). */
  'internal',
] as const;

/** The codes both flows give a permanent PDS failure. */
export type PdsFailureCode = (typeof PDS_FAILURE_CODES)[number];

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
  ...PDS_FAILURE_CODES,
  /** The S3 notification names the write with text that is not well-formed Unicode (a lone surrogate). */
  'invalid-notification',
] as const;
export type IngestFailureCode = (typeof INGEST_FAILURE_CODES)[number];

/**
 * Why a publication failed (`pds.publication.failed` `data.code`); the set only grows.
 */
export const PUBLICATION_FAILURE_CODES = [
  ...PDS_FAILURE_CODES,
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

/**
 * What a completed ingest knows: the PDS accepted the import of every entry. The PDS answers an
 * import without a body, so whether items were created is not reported; a later value may say more.
 */
export const INGEST_COMPLETED_OUTCOMES = ['import-accepted'] as const;
export type IngestCompletedOutcome = (typeof INGEST_COMPLETED_OUTCOMES)[number];

/** `pds.ingest.completed`: an S3 object was uploaded to the PDS and the import of every entry accepted. */
export interface IngestCompletedData extends S3ObjectRef {
  /** Bytes of the S3 object. */
  size: number;
  gatheringKey: string;
  /** Each entry the PDS accepted an import request for (the name predates `outcome`). */
  entriesImported: Array<{ path: string; assetKey: string }>;
  /** Always `import-accepted` from this bridge; absent in events of older bridges, which meant the same. */
  outcome?: IngestCompletedOutcome;
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
  /** The GDSN message's type and what it says (packages/bridge/src/xml/gdsn.ts), when it is one. */
  gdsn?: GdsnMessageSummary;
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
  gdsn?: GdsnMessageSummary;
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

/** Where a confirmation entry stands (docs/confirmations.md); the set is open (review statuses pass through). */
export type ConfirmationState = string;

/** A corrective action a recipient asked for, read from a CIC's status details. */
export interface ConfirmationCorrectiveAction {
  /** The status the action belongs to, e.g. CIC999. */
  statusCode: string;
  /** e.g. ACTION_NEEDED. */
  code: string;
  /** The status description, first in the recipient's order. */
  description?: string;
  expectedCorrectiveInformation?: string;
  /** GTIN of the item of the hierarchy the status is about. */
  gtin?: string;
  /** The status's long description (`additionalConfirmationStatusLongDescription`), first in order. */
  longDescription?: string;
}

/**
 * Why an entry is in its state, in one line: the data pool's or registry's error for a refusal, the
 * recipient's long description (else its description) for a confirmation.
 */
export interface ConfirmationReason {
  /** Who said it: the data pool or registry (a refusal), or the recipient (a confirmation). */
  source: 'data-pool' | 'recipient';
  /** The error code (e.g. GDSN.1091) or the status code (e.g. CIC999). */
  code?: string;
  text: string;
  /** GLN of the message's sender. */
  senderGln?: string;
}

/** The identity of a confirmation entry: one item at one recipient (and target market). */
export interface ConfirmationEntryKey {
  primaryKey: string;
  channelId: string;
  gtin?: string;
  recipientGln?: string;
  targetMarket?: string;
}

/** `pds.confirmation.changed`: an entry of the confirmation ledger changed state. */
export interface ConfirmationChangedData {
  entry: ConfirmationEntryKey;
  /** Absent for the first state of an entry. */
  previousState?: ConfirmationState;
  state: ConfirmationState;
  /** When the fact behind the new state happened (message creation, publication, deadline). */
  since: string;
  cause: 'publication' | 'confirmation' | 'review' | 'deadline' | 'refusal';
  publications: Array<{ publicationId: string; publishedAt: string }>;
  correctiveActions: ConfirmationCorrectiveAction[];
  /** Why the entry is in its state, when the answer behind it says (a refusal always does). */
  reason?: ConfirmationReason;
  messagingAssetId?: number;
  reviewId?: string;
}

/** `pds.webhook.endpoint-disabled`: a webhook endpoint was disabled by the bridge. */
export interface WebhookEndpointDisabledData {
  endpointId: string;
  url: string;
  /** `gone`: it answered 410; `failing`: it failed without a success for WEBHOOK_DISABLE_AFTER_HOURS. */
  reason: 'gone' | 'failing';
  detail: string;
  disabledAt: string;
  failingSince?: string;
}

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
const nonEmpty = once(() => z.string().check(z.minLength(1)));
const integer = () => z.number().check(z.int());
const count = once(() => z.number().check(z.int(), z.gte(0)));
const httpStatus = once(() => z.number().check(z.int(), z.gte(100), z.lte(599)));
/** An optional string, described. */
const optionalText = (description: string) => described(z.optional(z.string()), description);

const s3ObjectRef = once(() => ({
  bucket: described(nonEmpty(), 'The S3 bucket the file was dropped into.'),
  key: described(nonEmpty(), 'The object key of the dropped file, decoded (as S3 lists it).'),
  versionId: described(
    z.optional(nonEmpty()),
    'The version of the object, when the bucket is versioned; absent otherwise.',
  ),
}));

const xmlErrorInfo = once(() =>
  described(
    z.object({
      name: described(nonEmpty(), 'The error class, e.g. XmlParseError.'),
      code: optionalText('A stable code for the kind of error, e.g. MALFORMED.'),
      message: described(nonEmpty(), 'What is wrong with the XML, for people.'),
      line: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Line of the error in the XML, from 1.',
      ),
      column: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Column of the error in the XML, from 1.',
      ),
    }),
    'Why the XML could not be parsed; the text itself is in rawXml or rawXmlPointer.',
  ),
);

const parsedDocument = once(() =>
  described(
    z.object({
      rootName: described(nonEmpty(), 'Local name of the root element, namespace prefix removed.'),
      rootNamespace: optionalText('Namespace URI of the root element, when it has one.'),
      namespaces: described(
        z.record(z.string(), z.string()),
        'The namespace declarations of the root element: prefix to URI.',
      ),
      root: described(
        z.record(z.string(), z.unknown()),
        'The root element: every child element an array of objects, attributes under "@_<name>", text under "#text", every value a string, namespace prefixes removed.',
      ),
    }),
    "The messaging asset's XML, parsed (lib/xml/parse.ts).",
  ),
);

const cicSummary = once(() =>
  described(
    z.object({
      gdsnVersion: described(z.enum(['3.1', '2.8']), 'The GDSN version the confirmation is written in.'),
      state: described(
        nonEmpty(),
        'The confirmation state: RECEIVED, REVIEW, REJECTED, SYNCHRONISED (3.1) or ACCEPTED, … (2.8); the set is open.',
      ),
      gtin: described(nonEmpty(), 'The GTIN of the confirmed item.'),
      recipientGln: optionalText('GLN of the recipient that confirms.'),
      recipientDataPool: optionalText("GLN of the recipient's data pool."),
      dataSource: optionalText("GLN of the item's information provider."),
      targetMarketCountryCode: optionalText(
        'ISO 3166 numeric code of the target market, e.g. 276 (Germany).',
      ),
      documentIdentifier: optionalText(
        "The Standard Business Document Header's InstanceIdentifier (one per message).",
      ),
      confirmationIdentifier: optionalText(
        "The confirmation's own identification (entityIdentification in 3.1, uniqueCreatorIdentification in 2.8).",
      ),
      creationDateTime: optionalText(
        'When the confirmation (else the message) was created, as written in the XML: the creationDateTime element (3.1) or attribute (2.8).',
      ),
      creatorGln: optionalText(
        "GLN of the confirmation's creator: its identification's content owner, else the message's sender.",
      ),
      statuses: described(
        z.array(
          z.object({
            code: described(z.string(), 'The confirmation status code, e.g. CIC999.'),
            gtin: optionalText('The GTIN the status is about, when it names one.'),
            descriptions: z.array(z.object({ languageCode: z.optional(z.string()), text: z.string() })),
            longDescriptions: described(
              z.optional(z.array(z.object({ languageCode: z.optional(z.string()), text: z.string() }))),
              'The additionalConfirmationStatusLongDescription texts: where recipients put the full reason.',
            ),
            correctiveActions: z.array(
              z.object({ code: z.string(), expectedCorrectiveInformation: z.optional(z.string()) }),
            ),
          }),
        ),
        'The statuses the recipient gave, with their descriptions and corrective actions.',
      ),
    }),
    'Summary of one GDSN CatalogueItemConfirmation in the message.',
  ),
);

const gdsnItem = once(() =>
  z.object({
    gtin: described(nonEmpty(), 'GTIN of the item the message names.'),
    informationProvider: optionalText("GLN of the item's information provider."),
    targetMarketCountryCode: optionalText('ISO 3166 numeric code of the target market.'),
    recipientGln: optionalText('GLN of the recipient the message is about.'),
    status: optionalText('A confirmation state or a registration status for this item, as written.'),
    reasonCode: optionalText("A withdrawal's reason code, e.g. PUBLICATION_WITHDRAWAL."),
    documentCommand: optionalText(
      "A notification's document command: ADD, CHANGE_BY_REFRESH, CORRECT, DELETE.",
    ),
    isReload: described(z.optional(z.boolean()), 'A notification or request: whether it is a reload.'),
    childGtins: described(
      z.optional(z.array(z.string())),
      "A notification: GTINs of the next lower level of the item's hierarchy.",
    ),
  }),
);

const gdsnSummary = once(() =>
  described(
    z.optional(
      z.object({
        messageType: described(
          z.enum([
            'catalogueItemConfirmation',
            'gs1Response',
            'catalogueItemRegistrationResponse',
            'requestForCatalogueItemNotification',
            'catalogueItemHierarchicalWithdrawal',
            'catalogueItemNotification',
          ]),
          'The GDSN message type (docs/events.md lists what each says). The set may grow: treat an unknown value as a generic document.',
        ),
        gdsnVersion: described(z.enum(['3.1', '2.8']), 'The GDSN version the message is written in.'),
        documentIdentifier: optionalText("The Standard Business Document Header's InstanceIdentifier."),
        creationDateTime: optionalText("The message's own creation time, as written."),
        senderGln: optionalText('GLN of the sender (a data pool, the Global Registry, a recipient).'),
        receiverGln: optionalText('GLN of the receiver.'),
        status: optionalText('Responses: ACCEPTED, RECEIVED, REJECTED, ERROR, …, as written.'),
        originalMessageIdentifier: optionalText('Responses: the identifier of the message answered.'),
        errors: described(
          z.optional(
            z.array(
              z.object({
                code: described(z.string(), 'The error code, e.g. GDSN.1091; empty when none was given.'),
                description: optionalText('The error text, as the sender wrote it.'),
                languageCode: optionalText('The language of the description.'),
                level: described(
                  z.enum(['message', 'transaction', 'command', 'document', 'attribute']),
                  'Where the error was raised.',
                ),
                transactionIdentifier: optionalText('The transaction the error refers to.'),
                commandIdentifier: optionalText('The command the error refers to.'),
                documentIdentifier: optionalText('The document the error refers to.'),
                gtins: described(z.optional(z.array(z.string())), 'GTINs the error names.'),
              }),
            ),
          ),
          "Responses: every error of the response's exceptions, message level first.",
        ),
        refusal: described(
          z.optional(z.boolean()),
          'True when the message says a publication was refused before it reached the recipient (a response with errors or REJECTED, a registration REJECTED).',
        ),
        isReload: described(
          z.optional(z.boolean()),
          'Resend requests: true for a reload of everything, false for a resend of the items named.',
        ),
        recipientGln: optionalText('Resend requests: the recipient asking.'),
        targetMarketCountryCode: optionalText('Resend requests: the target market asked about.'),
        items: described(z.array(gdsnItem()), 'The items the message names, in document order.'),
      }),
    ),
    'What the GDSN message is and says, for every GDSN type the bridge knows (lib/xml/gdsn.ts); absent for other documents.',
  ),
);

const cicList = once(() =>
  described(
    z.optional(z.array(cicSummary())),
    'One summary per GDSN CatalogueItemConfirmation in the document.',
  ),
);

const rawXml = once(() => optionalText('The XML as received, when it could not be parsed (parseError).'));

const notBoth = (data: { document?: unknown; parseError?: unknown }) =>
  data.document === undefined || data.parseError === undefined;

const messageError = once(() =>
  described(
    z.object({
      name: described(nonEmpty(), 'The error class, e.g. PdsNotFoundError.'),
      message: described(nonEmpty(), 'The last reason, for people.'),
      status: described(z.optional(httpStatus()), 'HTTP status the PDS answered, when it answered one.'),
      failedRuns: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Consecutive runs that failed before the poller passed the item (POLL_FAILURE_LIMIT).',
      ),
    }),
    'Why the event carries no message: the PDS refused it for good (e.g. 404), or fetching or sending it failed on POLL_FAILURE_LIMIT consecutive runs and the poller passed it.',
  ),
);

const pdsStatus = once(() =>
  described(z.optional(httpStatus()), 'HTTP status the PDS answered, when the PDS refused.'),
);
const reason = once(() =>
  described(
    nonEmpty(),
    'What went wrong and what to do, for people; its wording may change: branch on code.',
  ),
);
/** `code` of a failed event: one of the flow's `codes`, described the same way for every flow. */
function failureCodeField<const Codes extends readonly [string, ...string[]]>(codes: Codes) {
  return described(
    z.enum(codes),
    'Why, as a stable code (docs/events.md says what to do for each). The set only grows: treat a code you do not know as "rejected".',
  );
}

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
          'The new state: AWAITING, OVERDUE, RECEIVED, REVIEW, SYNCHRONISED, REJECTED, ACCEPTED (GDSN 2.8), REFUSED_BY_DATA_POOL (the data pool or the Global Registry refused the publication before it reached the recipient; reason says why), or a supplier review status (APPROVED, …) where no confirmation could be read; the set is open.',
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
        url: described(nonEmpty(), 'The URL deliveries went to.'),
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
