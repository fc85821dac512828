/** What a GDSN message summary holds (packages/bridge/src/xml/gdsn.ts builds it). */

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
  /** GLN of the recipient the message is about (`dataRecipient`, `recipientGLN`). */
  recipientGln?: string;
  /** A registration response's status for this item (ACCEPTED, REJECTED, …), as written. */
  status?: string;
  /** A withdrawal's reason code, e.g. PUBLICATION_WITHDRAWAL. */
  reasonCode?: string;
  /** A notification's document command: ADD, CHANGE_BY_REFRESH, CORRECT, DELETE. */
  documentCommand?: string;
  /** A notification or request: whether it is a reload (all items again) rather than one resend. */
  isReload?: boolean;
  /** A notification: GTINs of the next lower level of the item's hierarchy. */
  childGtins?: string[];
}

/** One error of a data pool's or the Global Registry's response. */
export interface GdsnError {
  /** e.g. GDSN.1091 (3.1) or 1091 (2.8); `''` when the sender left it out. */
  code: string;
  description?: string;
  languageCode?: string;
  /** Where it was raised: `message`, `transaction`, `command`, `document` or `attribute`. */
  level: 'message' | 'transaction' | 'command' | 'document' | 'attribute';
  /** The identifier of the transaction, command or document the error refers to. */
  transactionIdentifier?: string;
  commandIdentifier?: string;
  documentIdentifier?: string;
  /** GTINs the error names (in its refused document or its own text). */
  gtins?: string[];
}

export interface GdsnMessageSummary {
  messageType: GdsnMessageType;
  gdsnVersion: '3.1' | '2.8';
  /** The header's InstanceIdentifier. */
  documentIdentifier?: string;
  /** The message's own creation time, as written (the business document's, else the header's). */
  creationDateTime?: string;
  /** GLN of the sender (the header's), else the document's content owner. */
  senderGln?: string;
  receiverGln?: string;
  /** Responses: ACCEPTED, RECEIVED, REJECTED, …, as written. */
  status?: string;
  /** Responses: the identifier of the message answered. */
  originalMessageIdentifier?: string;
  /** Responses: every error, message level first, in document order. */
  errors?: GdsnError[];
  /** Resend requests: true for a reload (everything again), false for a resend of what it names. */
  isReload?: boolean;
  /** Resend requests: the recipient asking. */
  recipientGln?: string;
  /** Resend requests: the target market asked about. */
  targetMarketCountryCode?: string;
  /**
   * True when this message says a publication was refused before it reached the recipient: a
   * response with errors or a REJECTED status, a registration response REJECTED.
   */
  refusal?: boolean;
  items: GdsnItem[];
}
