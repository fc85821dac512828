/**
 * λ poll-supplier-reviews-worker, fed by the review fan-out queue (REVIEW_POLL_QUEUE_URL): polls the
 * watched keys of each chunk the scheduled poll-supplier-reviews run sent. A chunk with a failed key
 * is reported as a batch item failure, so SQS delivers it again and finally to its DLQ; keys already
 * handled are not emitted twice (their fingerprints are recorded). Logic: packages/bridge/src/polling (handlers.ts
 * wires it).
 */
import { lambdaHandler } from '../src/lambda/handler.ts';
import { createReviewChunkHandler } from '../src/polling/handlers.ts';

/** Partial batch response: the message ids of chunks that were not handled completely. */
export const handler = lambdaHandler(createReviewChunkHandler(process.env));
