/**
 * The real handlers for the local stack, built by the same factories and wrapped by the same edge as
 * packages/bridge/functions/*.ts. Each factory reads its configuration from the environment it is given, so the
 * configuration is not bound to module state; the AWS SDK clients still read `process.env`
 * (packages/bridge/src/lambda/aws-clients.ts), which is why the stack applies its environment before it builds them.
 */
import { createApiHandler } from '@pds-bridge/bridge/api/handlers.ts';
import type { Environment } from '@pds-bridge/bridge/config';
import { createIngestHandler } from '@pds-bridge/bridge/ingest/handlers.ts';
import { lambdaHandler } from '@pds-bridge/bridge/lambda/handler.ts';
import {
  createMessagingAssetPollHandler,
  createReviewChunkHandler,
  createSupplierReviewPollHandler,
} from '@pds-bridge/bridge/polling/handlers.ts';
import { createPublishWorkerHandler } from '@pds-bridge/bridge/publications/handlers.ts';
import { createWebhookDeliveryHandler } from '@pds-bridge/bridge/webhooks/handlers.ts';
import { withInvocationScopes } from './invocation-scope.ts';

/** Every handler the stack invokes. */
export interface LocalHandlers {
  ingest: ReturnType<typeof createIngestHandler>;
  pollMessagingAssets: ReturnType<typeof createMessagingAssetPollHandler>;
  pollSupplierReviews: ReturnType<typeof createSupplierReviewPollHandler>;
  pollSupplierReviewsWorker: ReturnType<typeof createReviewChunkHandler>;
  api: ReturnType<typeof createApiHandler>;
  publishWorker: ReturnType<typeof createPublishWorkerHandler>;
  webhookDelivery: ReturnType<typeof createWebhookDeliveryHandler>;
}

/**
 * Builds every handler from `env`, as packages/bridge/functions/*.ts do from `process.env`; a ConfigError from a
 * factory is thrown as is (it names every bad variable).
 *
 * @example
 * ```ts
 * applyEnvironment(handlerEnvironment(input));
 * const handlers = createLocalHandlers(process.env);
 * ```
 */
export function createLocalHandlers(env: Environment = process.env): LocalHandlers {
  // One process runs them all: each invocation gets its own logger context (./invocation-scope.ts).
  return withInvocationScopes(() => ({
    ingest: lambdaHandler(createIngestHandler(env)),
    pollMessagingAssets: lambdaHandler(createMessagingAssetPollHandler(env)),
    pollSupplierReviews: lambdaHandler(createSupplierReviewPollHandler(env)),
    pollSupplierReviewsWorker: lambdaHandler(createReviewChunkHandler(env)),
    // As in packages/bridge/functions/api.ts and packages/bridge/functions/publish-worker.ts: no cold-start metric.
    api: lambdaHandler(createApiHandler(env), { coldStartMetric: false }),
    publishWorker: lambdaHandler(createPublishWorkerHandler(env), { coldStartMetric: false }),
    webhookDelivery: lambdaHandler(createWebhookDeliveryHandler(env)),
  }));
}
