/**
 * The publication path as the confirmation ledger's {@link Republisher}: a resend request's
 * republication (REPUBLISH_ON_RESEND_REQUEST, packages/bridge/src/confirmations/resend.ts) is submitted exactly as
 * POST /publications submits a request with an Idempotency-Key (./submit.ts): a publication record,
 * then the publication queue, then the publish worker. Never the PDS directly.
 */

import type { Republisher } from '../confirmations/ports.ts';
import type { Log } from '../core/index.ts';
import { silentLog } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import { IdempotencyConflictError } from './errors.ts';
import type { PublicationQueue } from './queue.ts';
import type { PublicationRequestBody } from './records.ts';
import { publicationIdFor, submitPublication } from './submit.ts';

/** Who asks for a republication on a resend request (`requestedBy` of its publication record). */
export const RESEND_REQUEST_CALLER = 'resend-request';

/** The republication's request: these keys (sorted, so every reading builds the same body) to the channel. */
export function republicationRequest(
  primaryKeys: readonly string[],
  channelId: string,
): PublicationRequestBody {
  return {
    primaryKeys: [...new Set(primaryKeys)].sort(),
    destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channelId }],
  };
}

/**
 * A {@link Republisher} over the publication path. A key already used with another body (the same
 * request read again after the entries changed, so it names other items) is not submitted again:
 * the first republication stands, and its id is answered with a warning.
 *
 * @example
 * ```ts
 * const republisher = publicationRepublisher({ store, queue: new SqsPublicationQueue({ sqs, queueUrl }) });
 * ```
 */
export function publicationRepublisher(deps: {
  store: StateStore;
  queue: PublicationQueue;
  now?: () => Date;
  log?: Log;
}): Republisher {
  const log = deps.log ?? silentLog;
  return {
    async republish({ primaryKeys, channelId, idempotencyKey }) {
      try {
        return await submitPublication(
          { store: deps.store, queue: deps.queue, ...(deps.now ? { now: deps.now } : {}) },
          {
            request: republicationRequest(primaryKeys, channelId),
            caller: RESEND_REQUEST_CALLER,
            idempotencyKey,
          },
        );
      } catch (error) {
        if (!(error instanceof IdempotencyConflictError)) throw error;
        const publicationId = publicationIdFor(RESEND_REQUEST_CALLER, idempotencyKey);
        log.warn('Resend request: republished already with other keys; not submitted again', {
          idempotencyKey,
          publicationId,
        });
        return { publicationId, replayed: true };
      }
    },
  };
}
