/**
 * GET /communication-channels: the PDS communication channels (their ids are COMMUNICATION_CHANNEL
 * destinations), read through the API's short-lived cache (./channel-cache.ts), which POST /publications
 * checks its destinations against too.
 */
import type { ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { PDS_DOWN, PDS_REFUSED } from './route-problems.ts';

/** GET /communication-channels. */
export function channelRoute(context: RouteContext): ApiRoute {
  const { deps, settings, schemas, channels } = context;
  return {
    method: 'GET',
    path: '/communication-channels',
    operationId: 'listCommunicationChannels',
    summary: 'The PDS communication channels (their ids are COMMUNICATION_CHANNEL destinations)',
    description: `Read from the PDS and reused for ${settings.channelsCacheMs / 1000} s.`,
    responses: { 200: { description: 'The channels.', schema: schemas.communicationChannels } },
    problems: { 502: PDS_REFUSED, 503: PDS_DOWN },
    async handle() {
      const pds = await deps.pds();
      const cached = await channels.get(() => pds.listCommunicationChannels());
      return {
        status: 200,
        body: { channels: cached.channels, fetchedAt: cached.fetchedAt.toISOString() },
      };
    },
  };
}
