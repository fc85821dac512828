/**
 * The message family: `pds.messaging-asset.received` and `pds.supplier-review.received`, their data
 * types and schemas.
 */
import * as z from '../../core/zod.ts';
import { described, withMeta } from '../../core/zod.ts';
import type { SupplierReview } from '../../pds/index.ts';
import type { CicSummary, GdsnMessageSummary, ParsedDocument, XmlErrorInfo } from '../../xml/index.ts';
import { integer, nonEmpty, optionalText } from './fields.ts';
import {
  cicList,
  gdsnSummary,
  messageError,
  notBoth,
  parsedDocument,
  rawXml,
  xmlErrorInfo,
} from './message-parts.ts';

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

/** zod schema of `pds.messaging-asset.received` data. */
export const messagingAssetReceivedSchema = () =>
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
  );

/** zod schema of `pds.supplier-review.received` data. */
export const supplierReviewReceivedSchema = () =>
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
  );
