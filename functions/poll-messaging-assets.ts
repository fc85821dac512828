/**
 * λ poll-messaging-assets, invoked by its EventBridge Scheduler schedule: new messaging assets of the
 * PDS become `pds.messaging-asset.received` events with the XML parsed. Logic: lib/polling
 * (handlers.ts wires it).
 */
import { lambdaHandler } from '../lib/handler.ts';
import { createMessagingAssetPollHandler } from '../lib/polling/handlers.ts';

/** The run's report, or `{ skipped: true }` when another run holds the lease. */
export const handler = lambdaHandler(createMessagingAssetPollHandler(process.env));
