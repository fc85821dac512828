/**
 * The webhook-delivery function, built from one configuration. Its main queue (WEBHOOK_QUEUE_URL)
 * carries two kinds of messages: the CloudEvents every emitting function offers to webhooks
 * (claim-checked when large), which are dispatched into one task per matching endpoint, and the
 * tasks of healthy endpoints, each one signed POST. Its slow queue (WEBHOOK_SLOW_QUEUE_URL, a second
 * event source of the same function) carries the tasks of endpoints whose last attempt failed; a
 * record's lane is the queue its eventSourceARN names. Records are handled concurrently (Powertools batch, partial batch responses), so a
 * slow endpoint holds only its own records; a failed attempt is queued again with its delay rather
 * than failed back to SQS, so nothing waits on a visibility timeout and the DLQ only sees messages
 * the function itself could not handle.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type BaseSettings, type Config, type Environment, loadConfig } from '../config/index.ts';
import { ConfigError } from '../core/index.ts';
import { type CloudEvent, createEvent, EVENT_TYPES, type EventSink } from '../events/index.ts';
import { resolveEventBody } from '../events/sqs/index.ts';
import { eventSinkFor, logger, metrics, stateStoreFor } from '../lambda/adapters.ts';
import { s3Client, sqsClient } from '../lambda/aws-clients.ts';
import type { InvocationHandler } from '../lambda/handler.ts';
import { type BatchBounds, type EndpointDisabled, WebhookDelivery } from './delivery.ts';
import { FileSecretStore } from './files/store.ts';
import type { DeliveryLane } from './lanes.ts';
import type { DeliveryTask } from './queue.ts';
import type { SecretStore } from './secret-store.ts';
import { SecretsManagerSecretStore, secretsManagerClient } from './secretsmanager/store.ts';
import { WEBHOOK_SETTINGS, type WebhookSettingValues } from './settings.ts';
import { SqsDeliveryQueue } from './sqs/queue.ts';

/** Event types the webhook-delivery function emits. */
export const WEBHOOK_EVENT_TYPES = ['pds.webhook.endpoint-disabled'] as const;

function isTask(value: unknown): value is DeliveryTask {
  return (value as DeliveryTask | undefined)?.kind === 'deliver';
}

/** The `pds.webhook.endpoint-disabled` event of an endpoint disabled now. */
export function endpointDisabledEvent(
  disabled: EndpointDisabled,
): CloudEvent<'pds.webhook.endpoint-disabled'> {
  const { endpoint } = disabled;
  return createEvent({
    type: 'pds.webhook.endpoint-disabled',
    subject: endpoint.id,
    idParts: [endpoint.id, endpoint.disabledAt ?? endpoint.updatedAt],
    data: {
      endpointId: endpoint.id,
      // The origin only: a path or query may hold a token of the endpoint's owner, and this event
      // reaches the queue's consumers (and any endpoint that asks for it).
      url: new URL(endpoint.url).origin,
      reason: disabled.reason,
      detail: disabled.detail,
      disabledAt: endpoint.disabledAt ?? endpoint.updatedAt,
      ...(endpoint.failingSince ? { failingSince: endpoint.failingSince } : {}),
    },
  });
}

/**
 * The delivery flow of one configuration, shared by the function and the api (which registers
 * endpoints and queues replays).
 */
export function webhookDeliveryFor(
  config: Config<Partial<BaseSettings> & WebhookSettingValues>,
  queueUrl: string,
  sink?: EventSink,
): WebhookDelivery {
  const { settings } = config;
  const slowQueueUrl = settings.WEBHOOK_SLOW_QUEUE_URL;
  return new WebhookDelivery({
    store: stateStoreFor(config),
    secrets: webhookSecretStoreFor(settings),
    queue: new SqsDeliveryQueue({ sqs: sqsClient(), queueUrl }),
    ...(slowQueueUrl
      ? { slowQueue: new SqsDeliveryQueue({ sqs: sqsClient(), queueUrl: slowQueueUrl }) }
      : {}),
    policy: settings.WEBHOOK_URL_POLICY,
    knownTypes: EVENT_TYPES,
    timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    mainLaneBudgetMs: settings.WEBHOOK_MAIN_LANE_MS,
    retentionMs: settings.WEBHOOK_RETENTION_DAYS * 86_400_000,
    disableAfterMs: settings.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    ...(sink
      ? { onDisabled: (disabled: EndpointDisabled) => sink.publish([endpointDisabledEvent(disabled)]) }
      : {}),
    log: logger,
    metrics,
  });
}

/**
 * Where the webhook secrets are kept: a local folder (WEBHOOK_SECRETS_DIR, the local stack) or AWS
 * Secrets Manager under WEBHOOK_SECRETS_PREFIX (deployed).
 *
 * @throws ConfigError when neither is set
 */
export function webhookSecretStoreFor(
  settings: Pick<WebhookSettingValues, 'WEBHOOK_SECRETS_DIR' | 'WEBHOOK_SECRETS_PREFIX'>,
): SecretStore {
  if (settings.WEBHOOK_SECRETS_DIR) return new FileSecretStore(settings.WEBHOOK_SECRETS_DIR);
  if (settings.WEBHOOK_SECRETS_PREFIX) {
    return new SecretsManagerSecretStore({
      client: secretsManagerClient(),
      prefix: settings.WEBHOOK_SECRETS_PREFIX,
    });
  }
  throw new ConfigError(
    'The webhook secrets have no store: set WEBHOOK_SECRETS_PREFIX (AWS Secrets Manager, deployed: pds-bridge/<stage>/) or WEBHOOK_SECRETS_DIR (a local folder)',
  );
}

/** The configuration of a function that delivers or manages webhooks. */
export function loadWebhookConfig(env: Environment, eventTypes: readonly string[] = []) {
  return loadConfig(env, {
    settings: WEBHOOK_SETTINGS,
    require: ['STATE_BUCKET', 'WEBHOOK_QUEUE_URL', 'WEBHOOK_SLOW_QUEUE_URL'],
    eventTypes: [...eventTypes],
  });
}

/**
 * The webhook-delivery function.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createWebhookDeliveryHandler(process.env));
 * ```
 */
export function createWebhookDeliveryHandler(
  env: Environment,
): InvocationHandler<SQSEvent, SQSBatchResponse> {
  const config = loadWebhookConfig(env, WEBHOOK_EVENT_TYPES);
  const delivery = webhookDeliveryFor(config, config.settings.WEBHOOK_QUEUE_URL, eventSinkFor(config));
  const processor = new BatchProcessor(EventType.SQS);
  const lanes = {
    main: queueNameOf(config.settings.WEBHOOK_QUEUE_URL),
    slow: queueNameOf(config.settings.WEBHOOK_SLOW_QUEUE_URL),
  };
  return async (event, context) => {
    // The batch's tasks are carried out together (deliverBatch: on the main lane the tasks of
    // endpoints that are not healthy moved to the slow lane, each endpoint read once, a failing
    // endpoint attempted once per batch, re-queued tasks sent together); each record then settles
    // with its own task's result, so partial batch responses stay per record.
    const bounds = { attemptsEndBy: Date.now() + context.getRemainingTimeInMillis() - RECORDING_RESERVE_MS };
    const results = tasksOfBatch(event.Records, delivery, lanes, bounds);
    const handleRecord = async (record: SQSRecord): Promise<void> => {
      const result = results.get(record.messageId);
      if (result) {
        const settled = await result;
        if (settled.status === 'rejected') throw settled.reason;
        return;
      }
      const body = await resolveEventBody(record.body, record.messageAttributes as never, s3Client());
      const message = JSON.parse(body) as unknown;
      if (isTask(message)) await delivery.deliver(message, laneOf(record, lanes), bounds);
      else await delivery.dispatch([message as CloudEvent]);
    };
    return processPartialResponse(event, handleRecord, processor, {
      context,
      throwOnFullBatchFailure: false,
    });
  };
}

/**
 * Time kept at the end of an invocation, after the last attempt's deadline, to record every attempt's
 * outcome and queue the tasks again: a batch is never returned whole because one endpoint was slow.
 */
export const RECORDING_RESERVE_MS = 10_000;

/** The queue's name: the last part of its URL (`…/123456789012/pds-bridge-dev-webhooks`). */
function queueNameOf(url: string): string {
  return new URL(url).pathname.split('/').pop() ?? '';
}

/**
 * The lane of a record: the queue its eventSourceARN names (`arn:aws:sqs:<region>:<account>:<name>`).
 * A record from neither queue is refused rather than guessed: on the wrong lane a task would be moved
 * back and forth without an attempt.
 */
export function laneOf(record: SQSRecord, lanes: Record<DeliveryLane, string>): DeliveryLane {
  const name = record.eventSourceARN.split(':').pop();
  if (name === lanes.main) return 'main';
  if (name === lanes.slow) return 'slow';
  throw new Error(
    `Webhook record ${record.messageId} comes from ${record.eventSourceARN}, neither WEBHOOK_QUEUE_URL's queue (${lanes.main}) nor WEBHOOK_SLOW_QUEUE_URL's (${lanes.slow}): point the function's event sources and these variables at the same two queues`,
  );
}

/** The results of the batch's task records (tasks are small: never claim-checked), by message id. */
function tasksOfBatch(
  records: readonly SQSRecord[],
  delivery: WebhookDelivery,
  lanes: Record<DeliveryLane, string>,
  bounds: BatchBounds,
): Map<string, Promise<PromiseSettledResult<unknown>>> {
  const byLane: Record<DeliveryLane, Array<{ messageId: string; task: DeliveryTask }>> = {
    main: [],
    slow: [],
  };
  const results = new Map<string, Promise<PromiseSettledResult<unknown>>>();
  for (const record of records) {
    let message: unknown;
    try {
      message = JSON.parse(record.body);
    } catch {
      continue; // not a task; handled (and reported) on its own
    }
    if (!isTask(message)) continue;
    try {
      byLane[laneOf(record, lanes)].push({ messageId: record.messageId, task: message });
    } catch (error) {
      results.set(record.messageId, Promise.resolve({ status: 'rejected', reason: error }));
    }
  }
  for (const lane of ['main', 'slow'] as const) {
    const tasks = byLane[lane];
    if (tasks.length === 0) continue;
    const all = delivery.deliverBatch(
      tasks.map((each) => each.task),
      lane,
      bounds,
    );
    tasks.forEach(({ messageId }, n) => {
      results.set(
        messageId,
        all.then(
          (settled) => settled[n] as PromiseSettledResult<unknown>,
          (error: unknown): PromiseSettledResult<unknown> => ({ status: 'rejected', reason: error }),
        ),
      );
    });
  }
  return results;
}
