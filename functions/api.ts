/**
 * The HTTP API (API Gateway HTTP API, payload 2.0): publications, communication channels, item
 * validation, the watch list, the OpenAPI document and health. Logic: lib/publications/api.ts.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { sqsClient } from '../lib/aws.ts';
import { loadConfig } from '../lib/config.ts';
import { createApi } from '../lib/publications/api.ts';
import { API_SETTINGS, apiSettingsOf } from '../lib/publications/config.ts';
import { SqsPublicationQueue } from '../lib/publications/queue.ts';
import { flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';
import packageJson from '../package.json' with { type: 'json' };

const config = loadConfig(process.env, {
  settings: API_SETTINGS,
  require: ['STATE_BUCKET', 'PUBLICATION_QUEUE_URL'],
});

const api = createApi({
  store: stateStoreFor(config),
  queue: new SqsPublicationQueue({ sqs: sqsClient(), queueUrl: config.settings.PUBLICATION_QUEUE_URL }),
  pds: () => pdsClientFor(config),
  settings: apiSettingsOf(config.settings),
  version: packageJson.version,
  log: logger,
  count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value),
});

export async function handler(
  event: APIGatewayProxyEventV2,
  context: Context,
): Promise<APIGatewayProxyStructuredResultV2> {
  logger.addContext(context);
  try {
    return await api.handle(event);
  } finally {
    flushMetrics();
  }
}
