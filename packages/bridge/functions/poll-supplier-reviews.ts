/**
 * λ poll-supplier-reviews, invoked by its EventBridge Scheduler schedule: new supplier reviews of
 * watched items become `pds.supplier-review.received` events. A small watch list is polled here; a
 * large one is sent in chunks to poll-supplier-reviews-worker. Logic: packages/bridge/src/polling (handlers.ts wires it).
 */
import { lambdaHandler } from '../src/lambda/handler.ts';
import { createSupplierReviewPollHandler } from '../src/polling/handlers.ts';

/** The run's report, or `{ skipped: true }` when another run holds the lease. */
export const handler = lambdaHandler(createSupplierReviewPollHandler(process.env));
