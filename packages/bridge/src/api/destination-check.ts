/**
 * POST /publications checks its COMMUNICATION_CHANNEL destinations against the PDS channel list the
 * API already caches (GET /communication-channels), so a channel that does not exist is answered at
 * once (422, naming it) instead of being accepted and failing later in the publish worker.
 *
 * The check needs the list: when the cache is cold and the PDS cannot be read, the request is refused
 * (503 or 502) and the problem says how to skip the check, `?channelCheck=skip`; the publish worker
 * still fails a publication to a channel the PDS does not know, with its event.
 */
import type { Destination } from '../pds/index.ts';
import { PdsError, PdsRateLimitedError } from '../pds/index.ts';
import type { CachedChannels } from './channel-cache.ts';
import { ApiProblem } from './problem.ts';

/** The query parameter that skips the check, and its one value. */
export const CHANNEL_CHECK_PARAMETER = 'channelCheck';
export const SKIP_CHANNEL_CHECK = 'skip';

/** Retry-After of a PDS that failed without a hint; as the API's other 503 answers. */
const RETRY_AFTER_SECONDS = 5;

const SKIP_HINT = `or send the request with ?${CHANNEL_CHECK_PARAMETER}=${SKIP_CHANNEL_CHECK} to publish without checking the channels (a channel the PDS does not know then fails the publication later, with a pds.publication.failed event)`;

/**
 * Whether the request asks to skip the check.
 *
 * @throws ApiProblem `invalid-query` for any other value of the parameter
 * @example
 * ```ts
 * skipsChannelCheck({ channelCheck: 'skip' }); // true
 * skipsChannelCheck(undefined); // false
 * ```
 */
export function skipsChannelCheck(query: Record<string, string | undefined> | undefined): boolean {
  const value = query?.[CHANNEL_CHECK_PARAMETER];
  if (value === undefined) return false;
  if (value === SKIP_CHANNEL_CHECK) return true;
  throw new ApiProblem(
    'invalid-query',
    `${CHANNEL_CHECK_PARAMETER} must be ${SKIP_CHANNEL_CHECK} (or left out to check the channels), got ${JSON.stringify(value.slice(0, 40))}`,
  );
}

/**
 * Refuses destinations naming a communication channel the PDS list lacks; IN_PLATFORM destinations
 * and requests without channels read nothing.
 *
 * @throws ApiProblem `validation-failed` (422) with one error per unknown channel;
 *   `pds-unavailable` (503) or `pds-error` (502) when the list cannot be read
 * @example
 * ```ts
 * await checkChannelDestinations(body.destinations, () => cache.get(() => pds.listCommunicationChannels()));
 * ```
 */
export async function checkChannelDestinations(
  destinations: readonly Destination[],
  channelList: () => Promise<CachedChannels>,
): Promise<void> {
  const channels = destinations
    .map((destination, index) => ({ destination, index }))
    .filter(({ destination }) => destination.destinationType === 'COMMUNICATION_CHANNEL');
  if (channels.length === 0) return;
  const known = new Set((await readChannels(channelList)).channels.map((channel) => channel.id));
  const unknown = channels.filter(({ destination }) => !known.has(destination.destinationId));
  if (unknown.length === 0) return;
  const names = unknown.map(({ destination }) => JSON.stringify(destination.destinationId)).join(', ');
  throw new ApiProblem(
    'validation-failed',
    `The PDS has no communication channel ${names}; GET /communication-channels lists the channels, use one of their ids. Nothing was recorded.`,
    {
      errors: unknown.map(({ destination, index }) => ({
        pointer: `/destinations/${index}/destinationId`,
        detail: `no communication channel ${JSON.stringify(destination.destinationId)} in the PDS (GET /communication-channels lists them)`,
      })),
    },
  );
}

async function readChannels(channelList: () => Promise<CachedChannels>): Promise<CachedChannels> {
  try {
    return await channelList();
  } catch (error) {
    if (!(error instanceof PdsError)) throw error;
    const detail = `The communication channels could not be read from the PDS to check the destinations (${error.message}). Nothing was recorded: send the request again later, ${SKIP_HINT}.`;
    if (!error.retryable) {
      throw new ApiProblem('pds-error', detail, { extensions: { pdsCode: error.code }, cause: error });
    }
    const hinted = error instanceof PdsRateLimitedError ? error.retryAfterMs : undefined;
    const seconds = hinted === undefined ? RETRY_AFTER_SECONDS : Math.max(1, Math.ceil(hinted / 1000));
    throw new ApiProblem('pds-unavailable', detail, {
      headers: { 'retry-after': String(seconds) },
      cause: error,
    });
  }
}
