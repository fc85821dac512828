/** The errors of packages/bridge/src/confirmations (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError, errorSummary } from '../core/index.ts';

/** Some due publications could not be brought up to date; their marks wait for the next run. */
export class ConfirmationDeadlineError extends BridgeError {
  constructor(failed: number, due: number, cause: unknown) {
    super(
      'CONFIRMATION_DEADLINES_INCOMPLETE',
      `${failed} of ${due} due publications could not be checked for OVERDUE entries (${errorSummary(cause)}); the next scheduled run tries them again`,
      { retryable: true, cause },
    );
    this.name = 'ConfirmationDeadlineError';
  }
}

/** A ledger question named a state the ledger does not know (a typo would otherwise read as "no problems"). */
export class UnknownConfirmationStateError extends BridgeError {
  /** The states asked for that are not known. */
  readonly unknown: readonly string[];
  /** Every state the ledger knows (its own and every status it has recorded). */
  readonly valid: readonly string[];

  constructor(unknown: readonly string[], valid: readonly string[]) {
    super(
      'UNKNOWN_CONFIRMATION_STATE',
      `state ${unknown.join(', ')} is not a state of the confirmation ledger; use one or more of ${valid.join(', ')} (comma-separated, any case)`,
    );
    this.name = 'UnknownConfirmationStateError';
    this.unknown = unknown;
    this.valid = valid;
  }
}

/**
 * A ledger key was asked for a recipient that is not a GLN (13 digits) and target market (3 digits):
 * the ledger screens confirmations before keying them (./identifiers.ts), so this names a bug in the
 * caller, never a partner's text turned into an unbounded or ambiguous key.
 */
export class InvalidRecipientError extends BridgeError {
  constructor(problem: string) {
    super(
      'CONFIRMATION_RECIPIENT_INVALID',
      `Cannot key a confirmation entry: ${problem}; screen the confirmation with recipientProblem() first`,
    );
    this.name = 'InvalidRecipientError';
  }
}
