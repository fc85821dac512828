/**
 * The failure code (`data.code` of the failed events, packages/bridge/src/events/data/fields.ts) of a PDS call that failed
 * for good: what a consumer or operator does next differs between these, so they are told apart here,
 * once, for ingests and publications alike.
 */
import { type PdsError, PdsHttpError, PdsInvalidRequestError } from '../pds/index.ts';
import type { PdsFailureCode } from './data/fields.ts';

/**
 * `unauthorized` for 401/403, `rejected` for any other HTTP refusal, `internal` when the client refused
 * to send the request, `invalid-answer` for everything else (an answer the client could not read).
 *
 * @example
 * ```ts
 * pdsFailureCode(new PdsBadRequestError(400, line, 'bad csv')); // 'rejected'
 * ```
 */
export function pdsFailureCode(error: PdsError): PdsFailureCode {
  if (error instanceof PdsHttpError) return httpRefusalCode(error.status);
  if (error instanceof PdsInvalidRequestError) return 'internal';
  return 'invalid-answer';
}

/**
 * The code of an HTTP refusal by the PDS: `unauthorized` for 401/403 (the bridge's credentials),
 * `rejected` for any other status.
 *
 * @example
 * ```ts
 * httpRefusalCode(403); // 'unauthorized'
 * ```
 */
export function httpRefusalCode(status: number): 'unauthorized' | 'rejected' {
  return status === 401 || status === 403 ? 'unauthorized' : 'rejected';
}
