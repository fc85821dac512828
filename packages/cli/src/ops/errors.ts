/**
 * Errors of the operators' commands. {@link OperatorTargetError}: what the operator named does not
 * exist or cannot be done there (a wrong stage, region or queue); the CLI reports it as a
 * configuration error (exit 2) with its message, which names the fix.
 */

import { BridgeError } from '@pds-bridge/bridge/core';

/** The stage, bucket or queue the operator named cannot be found or used that way. */
export class OperatorTargetError extends BridgeError {
  constructor(message: string, code = 'OPERATOR_TARGET_INVALID') {
    super(code, message);
    this.name = 'OperatorTargetError';
  }
}

/** An argument `why` cannot read. */
export class WhySubjectError extends BridgeError {
  constructor(text: string) {
    super(
      'WHY_SUBJECT_INVALID',
      `Cannot tell what '${text}' is: give s3://BUCKET/KEY for a dropped file, a publication id (or publication/ID) or a messaging-asset id (digits, or messaging-asset/ID)`,
    );
    this.name = 'WhySubjectError';
  }
}

/** A queue the command needs does not exist (wrong stage, region or account). */
export class QueueNotFoundError extends OperatorTargetError {
  readonly queueName: string;

  constructor(name: string) {
    super(
      `There is no queue named ${name} here: check the stage (--stage), the region (AWS_REGION) and the account of your credentials`,
      'QUEUE_NOT_FOUND',
    );
    this.name = 'QueueNotFoundError';
    this.queueName = name;
  }
}
