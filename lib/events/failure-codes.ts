/**
 * The failure code (`data.code` of the failed events, lib/events/types.ts) of a PDS call that failed
 * for good: what a consumer or operator does next differs between these, so they are told apart here,
 * once, for ingests and publications alike.
 */
import { type PdsError, PdsHttpError, PdsInvalidRequestError } from '../pds/index.ts';
import type { IngestFailureCode, PublicationFailureCode } from './types.ts';

/** The codes both flows give a permanent PDS failure. */
export type PdsFailureCode = IngestFailureCode & PublicationFailureCode;

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
  if (error instanceof PdsHttpError) {
    return error.status === 401 || error.status === 403 ? 'unauthorized' : 'rejected';
  }
  if (error instanceof PdsInvalidRequestError) return 'internal';
  return 'invalid-answer';
}
