/**
 * λ poll-messaging-assets, invoked by its EventBridge Scheduler schedule: new messaging assets of the
 * PDS become `pds.messaging-asset.received` events with the XML parsed. Logic: packages/bridge/src/polling
 * (handlers.ts wires it).
 */
import { lambdaHandler } from '../src/lambda/handler.ts';
import { createMessagingAssetPollHandler } from '../src/polling/handlers.ts';

/** The run's report, or `{ skipped: true }` when another run holds the lease. */
export const handler = lambdaHandler(createMessagingAssetPollHandler(process.env));
