/** The errors of packages/local/src/gateway (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError } from '@pds-bridge/bridge/core';

/** The handler's answer is not something API Gateway could send either. */
export class HandlerResultError extends BridgeError {
  constructor(detail: string) {
    super(
      'HANDLER_RESULT_INVALID',
      `The handler returned an answer API Gateway would refuse: ${detail}; return { statusCode, headers, body }`,
    );
    this.name = 'HandlerResultError';
  }
}
