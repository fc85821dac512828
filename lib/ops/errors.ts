/**
 * Errors of the operators' commands. {@link OperatorTargetError}: what the operator named does not
 * exist or cannot be done there (a wrong stage, region or queue); the CLI reports it as a
 * configuration error (exit 2) with its message, which names the fix.
 */

import { BridgeError } from '../core/index.ts';

/** The stage, bucket or queue the operator named cannot be found or used that way. */
export class OperatorTargetError extends BridgeError {
  constructor(message: string, code = 'OPERATOR_TARGET_INVALID') {
    super(code, message);
    this.name = 'OperatorTargetError';
  }
}
