/** What a GDSN message summary holds (packages/bridge/src/xml/gdsn.ts builds it). */
import type { GdsnTruncation } from './caps.ts';

export type { GdsnTruncation } from './caps.ts';

export type GdsnMessageType =
  | 'catalogueItemConfirmation'
  | 'gs1Response'
  | 'catalogueItemRegistrationResponse'
  | 'requestForCatalogueItemNotification'
  | 'catalogueItemHierarchicalWithdrawal'
  | 'catalogueItemNotification';

/** An item a message names: a GTIN at an information provider, in a target market. */
export interface GdsnItem {
  gtin: string;
  /** GLN of the information provider (`dataSource`, `informationProviderOfTradeItem`). */
  informationProvider?: string;
  /** ISO 3166 numeric code. */
  targetMarketCountryCode?: string;
  /** GLN of the recipient the message is about (`dataRecipient`, `recipientGLN`); the first of several. */
  recipientGln?: string;
  /** A withdrawal: every recipient it is sent to (`dataRecipient`, repeated), at most `GDSN_SUMMARY_CAPS.recipients`. */
  recipientGlns?: string[];
  /** A withdrawal or a notification: GLN of the data pool the item comes from (`sourceDataPool`). */
  sourceDataPool?: string;
  /** A registration response's status for this item (ACCEPTED, REJECTED, …), as written. */
  status?: string;
  /** A registration response: when the Global Registry registered the item and last changed it. */
  registrationDateTime?: string;
  lastChangedDateTime?: string;
  /** A withdrawal's reason code, e.g. PUBLICATION_WITHDRAWAL. */
  reasonCode?: string;
  /** A withdrawal's reason in words (`hierarchyDeletionAdditionalReasonDescription`). */
  reasonDescription?: string;
  /** A withdrawal or a notification: the item's state (CANCELED, DISCONTINUED, IN_PROGRESS, REGISTERED). */
  stateCode?: string;
  /** A withdrawal or a notification: when the item was or will be cancelled or discontinued. */
  cancelDateTime?: string;
  discontinueDateTime?: string;
  /** A notification's document command: ADD, CHANGE_BY_REFRESH, CORRECT, DELETE. */
  documentCommand?: string;
  /** A notification or request: whether it is a reload (all items again) rather than one resend. */
  isReload?: boolean;
  /** A notification: GTINs of the next lower level of the item's hierarchy. */
  childGtins?: string[];
  /** A notification: the next lower level with the quantity of each child (`catalogueItemChildItemLink/quantity`). */
  childItems?: Array<{ gtin: string; quantity?: string }>;
}

/** One error of a data pool's or the Global Registry's response. */
export interface GdsnError {
  /** e.g. GDSN.1091 (3.1) or 1091 (2.8); `''` when the sender left it out. */
  code: string;
  description?: string;
  languageCode?: string;
  /** When the error was raised (`errorDateTime`), as written. */
  errorDateTime?: string;
  /** Where it was raised: `message`, `transaction`, `command`, `document` or `attribute`. */
  level: 'message' | 'transaction' | 'command' | 'document' | 'attribute';
  /** The exception's message type (`exceptionMessageTypeCode`, e.g. GDSN), when given. */
  exceptionMessageType?: string;
  /** The message the response holding this error answers (`originatingMessageIdentifier`). */
  originalMessageIdentifier?: string;
  /** The identifier of the transaction, command or document the error refers to. */
  transactionIdentifier?: string;
  commandIdentifier?: string;
  documentIdentifier?: string;
  /** An attribute exception: the attribute refused, its value and where it is (`xPath`). */
  attributeName?: string;
  attributeValue?: string;
  xPath?: string;
  /** GTINs the error itself names (its text, the value of a GTIN attribute), at most `GDSN_SUMMARY_CAPS.gtinsPerError`. */
  gtins?: string[];
}

/** A GS1 Response's status for one transaction of the message it answers (`transactionResponse`). */
export interface GdsnTransactionResponse {
  transactionIdentifier?: string;
  /** ACCEPTED, RECEIVED, REJECTED, …, as written. */
  status: string;
  /** The message the response holding this transaction answers. */
  originalMessageIdentifier?: string;
}

export interface GdsnMessageSummary {
  messageType: GdsnMessageType;
  gdsnVersion: '3.1' | '2.8';
  /** The header's InstanceIdentifier. */
  documentIdentifier?: string;
  /** The message's own creation time, as written (the business document's, else the header's). */
  creationDateTime?: string;
  /** GLN of the sender: the Standard Business Document Header's `Sender/Identifier`, nothing else. */
  senderGln?: string;
  receiverGln?: string;
  /**
   * GLN of the party that wrote the message's content: a confirmation's `messageCreatorGLN` (3.1), else
   * the content owner of the business document's own identification (2.8: of the message's).
   */
  messageCreatorGln?: string;
  /** A confirmation's `messageCreatorName` (3.1, optional). */
  messageCreatorName?: string;
  /**
   * Responses: REJECTED when a transaction was refused, else the transactions' status (ACCEPTED,
   * RECEIVED, …), else the status the response itself writes (2.8), as written.
   */
  status?: string;
  /** Responses: the identifier of the message answered (the first response's). */
  originalMessageIdentifier?: string;
  /** Responses: each transaction answered with its own status, in document order. */
  transactions?: GdsnTransactionResponse[];
  /** Responses: every error, in document order, each exception's parents before its children. */
  errors?: GdsnError[];
  /** Resend requests: true for a reload (everything again), false for a resend of what it names. */
  isReload?: boolean;
  /** Resend requests: why a reload is asked (`isReloadReasonCode`). */
  isReloadReasonCode?: string;
  /** Resend requests: the recipient asking. */
  recipientGln?: string;
  /** Resend requests: the recipient's data pool. */
  recipientDataPool?: string;
  /** Resend requests: the information provider asked about. */
  informationProvider?: string;
  /** Resend requests: the GPC category asked about (a request for a category names no GTIN). */
  gpcCategoryCode?: string;
  /** Resend requests: the target market asked about. */
  targetMarketCountryCode?: string;
  /**
   * True when this message says a publication was refused before it reached the recipient: a
   * response with errors or a refused transaction, a registration response REJECTED.
   */
  refusal?: boolean;
  items: GdsnItem[];
  /** What the caps left out (docs/events.md); absent when the summary is whole. */
  truncated?: GdsnTruncation;
}
