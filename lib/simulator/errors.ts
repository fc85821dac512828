/**
 * Errors of the simulator itself: one for a request it refuses (turned into the JSON error answer of
 * docs/spec-gaps.md) and one for options a caller passed wrongly.
 */

import { BridgeError } from '../core/index.ts';

/**
 * A request the simulator refuses; server.ts answers it as `{status, error, message}`.
 *
 * @example
 * throw new SimulatorHttpError(404, "No item has primary key '123'; create it by an import first");
 */
export class SimulatorHttpError extends BridgeError {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super('SIMULATOR_HTTP', message, { retryable: status === 429 || status >= 500 });
    this.name = 'SimulatorHttpError';
    this.status = status;
    this.headers = headers;
  }
}

/** An option of `startSimulator`, `setFaults` or `failNext` is out of range; the message names it and its allowed values. */
export class SimulatorOptionsError extends BridgeError {
  constructor(message: string) {
    super('INVALID_OPTION', message);
    this.name = 'SimulatorOptionsError';
  }
}
