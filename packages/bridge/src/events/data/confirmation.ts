/** The confirmation family, `pds.confirmation.changed`: its data types (the schema: ../types.ts). */

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
