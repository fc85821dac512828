/** The errors of lib/confirmations (lib/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError, errorSummary } from '../core/index.ts';

/** Some due publications could not be brought up to date; their marks wait for the next run. */
export class ConfirmationDeadlineError extends BridgeError {
  constructor(failed: number, due: number, cause: unknown) {
    super(
      'CONFIRMATION_DEADLINES_INCOMPLETE',
      `${failed} of ${due} due publications could not be checked for OVERDUE entries (${errorSummary(cause)}); the next scheduled run tries them again`,
      { retryable: true, cause },
    );
  }
}
