/**
 * What the pollers ask of an error besides packages/bridge/src/core's `errorFields` and `errorSummary`: whether the
 * PDS as a whole is failing. They log through packages/bridge/src/core's `Log` (the Powertools Logger fits).
 */
import { PdsError } from '../pds/index.ts';

/**
 * True when the error says the PDS as a whole is unavailable or refuses us (rate limited, 5xx,
 * timeout, network, credentials), rather than something wrong with one asset or item.
 */
export function isSystemicPdsError(error: unknown): boolean {
  if (!(error instanceof PdsError)) return false;
  return error.retryable || error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN';
}
