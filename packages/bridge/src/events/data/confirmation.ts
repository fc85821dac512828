/** The confirmation family: `pds.confirmation.changed`, its data types and schema. */
import * as z from '../../core/zod.ts';
import { described } from '../../core/zod.ts';
import { integer, nonEmpty, optionalText } from './fields.ts';

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

/** zod schema of `pds.confirmation.changed` data. */
export const confirmationChangedSchema = () =>
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
  );
