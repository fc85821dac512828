/**
 * The message family, `pds.messaging-asset.received` and `pds.supplier-review.received`: their data
 * types (the schemas: ../types.ts, with the parts of ./message-parts.ts).
 */
import type { SupplierReview } from '../../pds/index.ts';
import type { CicSummary, GdsnMessageSummary, ParsedDocument, XmlErrorInfo } from '../../xml/index.ts';

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
