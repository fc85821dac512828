/** The errors of packages/cli/src (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError } from '@pds-bridge/bridge/core';

/** A file the command was asked to read cannot be used (missing, not JSON, wrong shape). Exit code 1. */
export class CliInputError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('CLI_INPUT_INVALID', message, options);
    this.name = 'CliInputError';
  }
}

/** `npm run drop` / `npm run events` found no running stack to talk to. */
export class StackFileError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('STACK_FILE_MISSING', message, options);
    this.name = 'StackFileError';
  }
}

/** The console (`pds bridge console`) was asked for something it cannot show: answered 400 with the fix. */
export class ConsoleInputError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('CONSOLE_INPUT_INVALID', message, options);
    this.name = 'ConsoleInputError';
  }
}
