/**
 * The api function (API Gateway HTTP API, payload 2.0), built from one configuration: the adapters
 * are built once per factory call and reused by every invocation. It is packages/bridge/src/api's second entry
 * (beside index.ts) because it loads the AWS SDK and the runtime, which building the API from fakes
 * does not need.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import packageJson from '../../package.json' with { type: 'json' };
import { type Environment, loadConfig } from '../config/index.ts';
import { logger, metrics, pdsClientFor, stateStoreFor } from '../lambda/adapters.ts';
import { sqsClient } from '../lambda/aws-clients.ts';
import type { InvocationHandler } from '../lambda/handler.ts';
import { SqsPublicationQueue } from '../publications/sqs/queue.ts';
import { webhookDeliveryFor } from '../webhooks/handlers.ts';
import { WEBHOOK_SETTINGS } from '../webhooks/settings.ts';
import { createApi } from './api.ts';
import { API_SETTINGS, apiSettingsOf } from './settings.ts';

/**
 * The api function: publications, communication channels, item validation, the watch list, the
 * OpenAPI document and health.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createApiHandler(process.env), { coldStartMetric: false });
 * ```
 */
export function createApiHandler(
  env: Environment,
): InvocationHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const config = loadConfig(env, {
    settings: { ...API_SETTINGS, ...WEBHOOK_SETTINGS },
    require: ['STATE_BUCKET', 'PUBLICATION_QUEUE_URL'],
  });
  const webhookQueueUrl = config.settings.WEBHOOK_QUEUE_URL;
  const api = createApi({
    store: stateStoreFor(config),
    queue: new SqsPublicationQueue({ sqs: sqsClient(), queueUrl: config.settings.PUBLICATION_QUEUE_URL }),
    pds: () => pdsClientFor(config),
    settings: apiSettingsOf(config.settings),
    ...(webhookQueueUrl ? { webhooks: webhookDeliveryFor(config, webhookQueueUrl) } : {}),
    webhookRotationOverlapMs: config.settings.WEBHOOK_ROTATION_OVERLAP_HOURS * 3_600_000,
    version: packageJson.version,
    log: logger,
    metrics,
  });
  return (event) => api.handle(event);
}
