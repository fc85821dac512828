/**
 * The PDS client was configured in a way it cannot work with: a missing credential variable, a secret
 * of the wrong shape, a base URL it cannot use. Raised at construction or cold start, before any request;
 * the message names what is wrong and what to set, never a secret's content.
 *
 * @example
 * ```ts
 * try { await resolveCredentials(); } catch (e) { if (e instanceof PdsConfigurationError) process.exitCode = 2; }
 * ```
 */

import { BridgeError } from '../core/index.ts';
export class PdsConfigurationError extends BridgeError {
  constructor(message: string, options?: ErrorOptions) {
    super('CONFIG_INVALID', message, options);
    this.name = 'PdsConfigurationError';
  }
}
