/**
 * Loads the real handlers (functions/*.ts) for the local stack. Each reads its configuration when
 * its module is first imported, so this must run after the stack's environment is in place; a module
 * is imported once per process, which is why one process runs one local stack.
 */
import type { handler as ApiHandler } from '../../functions/api.ts';
import type { handler as IngestHandler } from '../../functions/ingest.ts';
import type { handler as PollMessagingAssetsHandler } from '../../functions/poll-messaging-assets.ts';
import type { handler as PollSupplierReviewsHandler } from '../../functions/poll-supplier-reviews.ts';
import type { handler as PollSupplierReviewsWorkerHandler } from '../../functions/poll-supplier-reviews-worker.ts';
import type { handler as PublishWorkerHandler } from '../../functions/publish-worker.ts';

/** Every handler the stack invokes. */
export interface LocalHandlers {
  ingest: typeof IngestHandler;
  pollMessagingAssets: typeof PollMessagingAssetsHandler;
  pollSupplierReviews: typeof PollSupplierReviewsHandler;
  pollSupplierReviewsWorker: typeof PollSupplierReviewsWorkerHandler;
  api: typeof ApiHandler;
  publishWorker: typeof PublishWorkerHandler;
}

/**
 * Imports every handler; a ConfigError from a handler's cold start is thrown as is (it names every bad variable).
 *
 * @example
 * ```ts
 * applyEnvironment(handlerEnvironment(input));
 * const handlers = await importHandlers();
 * ```
 */
export async function importHandlers(): Promise<LocalHandlers> {
  const [ingest, pollMessagingAssets, pollSupplierReviews, pollSupplierReviewsWorker, api, publishWorker] =
    await Promise.all([
      import('../../functions/ingest.ts'),
      import('../../functions/poll-messaging-assets.ts'),
      import('../../functions/poll-supplier-reviews.ts'),
      import('../../functions/poll-supplier-reviews-worker.ts'),
      import('../../functions/api.ts'),
      import('../../functions/publish-worker.ts'),
    ]);
  return {
    ingest: ingest.handler,
    pollMessagingAssets: pollMessagingAssets.handler,
    pollSupplierReviews: pollSupplierReviews.handler,
    pollSupplierReviewsWorker: pollSupplierReviewsWorker.handler,
    api: api.handler,
    publishWorker: publishWorker.handler,
  };
}
