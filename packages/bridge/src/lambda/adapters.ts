/**
 * The adapters a handler wires, built once per cold start and reused by every invocation of that
 * container: the PDS client (keep-alive pool), the state store, the event sink, the logger and metrics.
 *
 * Handlers choose adapters here and nowhere else; the logic in the other rooms only sees the ports
 * (`PdsClient`, `StateStore`, `EventSink`).
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, { require: ['STATE_BUCKET'] });
 * const pds = await pdsClientFor(config);
 * ```
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { goesToBus, goesToQueue } from '../config/event-destinations.ts';
import { eventQueueUrlFor } from '../config/event-routing.ts';
import { type BaseSettings, type Config, requireSetting } from '../config/index.ts';
import { ConfigError, errorFields } from '../core/index.ts';
import { EventBridgeEventPublisher } from '../events/eventbridge/index.ts';
import type { EventSink } from '../events/index.ts';
import { FailureRecordingSink, FanOutSink, FilteredSink } from '../events/index.ts';
import { SqsEventPublisher } from '../events/sqs/index.ts';
import {
  type ClosablePdsClient,
  createPdsClient,
  type PdsCredentials,
  readSecretCredentials,
} from '../pds/index.ts';
import type { StateStore } from '../state/index.ts';
import { S3StateStore } from '../state/s3/index.ts';
import { eventBridgeClient, s3Client, sqsClient } from './aws-clients.ts';
import { installSourceMappedStacks } from './source-mapped-stacks.ts';

// Stacks name the TypeScript sources, reading a bundle's map only when an error is formatted.
installSourceMappedStacks();

/**
 * The function's service name: `POWERTOOLS_SERVICE_NAME`, which the template sets per function
 * (`pds-bridge-ingest`, …), so logs and metrics tell the functions apart; `pds-bridge` without it.
 */
export const serviceName = process.env.POWERTOOLS_SERVICE_NAME || 'pds-bridge';

/** Structured JSON logs (`service` is {@link serviceName}); `POWERTOOLS_LOG_LEVEL` tunes it. */
export const logger = new Logger({ serviceName });

/** CloudWatch embedded-metric-format metrics under the `PdsBridge` namespace, dimension `service`. */
export const metrics = new Metrics({ namespace: 'PdsBridge', serviceName });

/** Writes the invocation's metrics, if it recorded any (Powertools warns on every empty flush). */
export function flushMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

/** One client per configuration, so one process can host two (the local stack, tests). */
const pdsClients = new WeakMap<object, Promise<ClosablePdsClient>>();

/**
 * The PDS client of this configuration, built on first use and reused by every invocation.
 * Credentials come from the secret (cached by Powertools) or the variables; retries are counted in
 * the `PdsRetries` metric, and each attempt's duration is recorded in `PdsLatency`.
 */
export function pdsClientFor(config: Config<Partial<BaseSettings>>): Promise<ClosablePdsClient> {
  const cached = pdsClients.get(config);
  if (cached) return cached;
  const client = credentialsOf(config).then((credentials) =>
    createPdsClient({
      baseUrl: config.pdsBaseUrl,
      credentials,
      onRetry: (retry) => {
        metrics.addMetric('PdsRetries', 'Count', 1);
        logger.warn('Retrying a PDS request', { ...retry });
      },
      // Every attempt, retried or not: the dashboard's PDS latency (p50/p99) and request count.
      onAnswer: (answer) => metrics.addMetric('PdsLatency', 'Milliseconds', answer.durationMs),
    }),
  );
  pdsClients.set(config, client);
  // A failed resolution (a missing secret) is retried at the next invocation rather than cached.
  client.catch(() => {
    if (pdsClients.get(config) === client) pdsClients.delete(config);
  });
  return client;
}

async function credentialsOf(config: Config<Partial<BaseSettings>>): Promise<PdsCredentials> {
  const source = config.pdsCredentials;
  if (source.kind === 'basic') return { username: source.username, password: source.password };
  return readSecretCredentials(source.secretId);
}

/** The state store on the state bucket (`STATE_BUCKET`). */
export function stateStoreFor(config: Config<Partial<BaseSettings>>): StateStore {
  return new S3StateStore({ client: s3Client(), bucket: requireSetting(config, 'STATE_BUCKET') });
}

/**
 * The event sink: each event family to its destinations (EVENT_DESTINATIONS; default its SQS queue
 * only): the queue of its type, the EventBridge bus EVENT_BUS_NAME (checked before the first send),
 * or both; oversized bodies go through the state bucket on either. When WEBHOOK_QUEUE_URL is set,
 * every event is also offered to webhooks through that queue (the webhook-delivery function
 * dispatches it to the endpoints whose filters match).
 */
export function eventSinkFor(config: Config<Partial<BaseSettings>>): EventSink {
  const stateBucket = config.settings.STATE_BUCKET;
  const claimCheck = stateBucket ? { claimCheck: { s3: s3Client(), bucket: stateBucket } } : {};
  // What a destination did not accept is recorded by the hour for operators (events/publish-failures.ts).
  const failureStore = stateBucket
    ? new S3StateStore({ client: s3Client(), bucket: stateBucket })
    : undefined;
  const recorded = (sink: EventSink, destinationOf: (type: string) => string): EventSink =>
    failureStore
      ? new FailureRecordingSink(sink, {
          store: failureStore,
          destinationOf,
          onRecordError: (error) =>
            logger.warn('Could not record a publish failure', { ...errorFields(error) }),
        })
      : sink;
  const destinations = config.settings.EVENT_DESTINATIONS;
  const sinks: EventSink[] = [];
  const queues = recorded(
    new SqsEventPublisher({
      sqs: sqsClient(),
      queueUrl: (type) => eventQueueUrlFor(config, type),
      ...claimCheck,
    }),
    (type) => sqsDestination(eventQueueUrlFor(config, type)),
  );
  // Without EVENT_DESTINATIONS every event goes to its queue, exactly as before the bus existed.
  sinks.push(
    destinations === undefined
      ? queues
      : new FilteredSink(queues, (event) => goesToQueue(destinations, event.type)),
  );
  const busName = config.settings.EVENT_BUS_NAME;
  const anyToBus =
    destinations !== undefined &&
    (destinations.default !== 'sqs' || Object.values(destinations.families).some((each) => each !== 'sqs'));
  if (anyToBus && !busName) {
    // loadConfig names this for the types a function declares; this catches the rest before any send.
    throw new ConfigError(
      'EVENT_BUS_NAME is required: EVENT_DESTINATIONS sends events to EventBridge. Set the bus name or ARN, or route every family to sqs.',
      { variables: ['EVENT_BUS_NAME'] },
    );
  }
  if (anyToBus && busName) {
    const bus = recorded(
      new EventBridgeEventPublisher({ eventBridge: eventBridgeClient(), busName, ...claimCheck }),
      () => `eventbridge:${busName}`,
    );
    sinks.push(new FilteredSink(bus, (event) => goesToBus(destinations, event.type)));
  }
  const webhookQueueUrl = config.settings.WEBHOOK_QUEUE_URL;
  if (webhookQueueUrl) {
    sinks.push(
      recorded(
        new SqsEventPublisher({ sqs: sqsClient(), queueUrl: () => webhookQueueUrl, ...claimCheck }),
        () => sqsDestination(webhookQueueUrl),
      ),
    );
  }
  return sinks.length === 1 ? (sinks[0] as EventSink) : new FanOutSink(sinks);
}

/** `sqs:<queue name>` for a queue URL, as publish-failure records name SQS destinations. */
function sqsDestination(queueUrl: string | undefined): string {
  return `sqs:${queueUrl?.split('/').at(-1) || 'unknown-queue'}`;
}
