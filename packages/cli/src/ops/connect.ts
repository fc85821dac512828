/**
 * Builds what the operators' commands talk through from a {@link BridgeTarget}: the state store on
 * the state bucket, the queues, and an event sink for replays. Against AWS the clients use the usual
 * credential chain and region (AWS_PROFILE, AWS_REGION, …); against the local stack, its emulator.
 */

import { EVENT_TYPES, type EventSink } from '@pds-bridge/bridge/events';
import { SqsEventPublisher } from '@pds-bridge/bridge/events/sqs';
import { createS3Client, createSqsClient } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import type { StateStore } from '@pds-bridge/bridge/state';
import { S3StateStore } from '@pds-bridge/bridge/state/s3';
import { type SecretStore, type UrlPolicy, WebhookDelivery } from '@pds-bridge/bridge/webhooks';
import { FileSecretStore } from '@pds-bridge/bridge/webhooks/files/store.ts';
import {
  SecretsManagerSecretStore,
  secretsManagerClient,
} from '@pds-bridge/bridge/webhooks/secretsmanager/store.ts';
import { SqsDeliveryQueue } from '@pds-bridge/bridge/webhooks/sqs/queue.ts';
import { cloudWatchQueueAges } from './cloudwatch/queue-ages.ts';
import { OperatorTargetError } from './errors.ts';
import { NO_QUEUE_AGES, type QueueAgeSource } from './ports.ts';
import { SqsOperatorQueues } from './sqs/queues.ts';
import { accountOfQueueUrl, type BridgeTarget, deployedStateBucket, queueName } from './target.ts';

export interface OperatorConnection {
  readonly stage: string;
  readonly stateBucket: string;
  readonly store: StateStore;
  readonly queues: SqsOperatorQueues;
  /** The ages of the queues' oldest messages: CloudWatch for a deployed stage, none for the local stack. */
  readonly queueAges: QueueAgeSource;
  /** Sends events to `queueUrl`, or to the stage's `events` queue (where ingest and publication events go). */
  eventSink(queueUrl?: string): Promise<{ sink: EventSink; queueUrl: string }>;
  /**
   * Webhook endpoints and replays of the stage (packages/bridge/src/webhooks): the registry in its state bucket,
   * replays queued on `queueUrl` or the stage's `webhooks` queue.
   */
  webhooks(options: { policy: UrlPolicy; queueUrl?: string }): Promise<WebhookDelivery>;
  close(): void;
}

/**
 * Connects to the target's state bucket and queues. The state bucket of a deployed stage, when not
 * given, is derived from the account in its events queue's URL (deploy/core.yml names it
 * `pds-bridge-state-<account>-<region>-<stage>`).
 *
 * @example
 * ```ts
 * const connection = await connectOperator({ stage: 'prod' });
 * try { await bridgeStatus(connection.store, connection.queues, connection); } finally { connection.close(); }
 * ```
 */
export async function connectOperator(target: BridgeTarget): Promise<OperatorConnection> {
  const sqs = createSqsClient(target.emulator ? { ...target.emulator } : {});
  const s3 = createS3Client(target.emulator ? { ...target.emulator, forcePathStyle: true } : {});
  const queues = new SqsOperatorQueues({ sqs });
  // The local emulator keeps no CloudWatch metrics: its ages are said to be unavailable, never guessed.
  const ages = target.emulator ? undefined : cloudWatchQueueAges();
  const close = () => {
    sqs.destroy();
    s3.destroy();
    ages?.close();
  };
  try {
    let stateBucket = target.stateBucket;
    if (stateBucket === undefined) {
      const events = queueName(target.stage, 'events');
      const url = await queues.url(events);
      const account = url ? accountOfQueueUrl(url) : undefined;
      if (!account) {
        throw new OperatorTargetError(
          `Cannot find the state bucket of stage '${target.stage}': there is no queue ${events} in region ${await sqs.config.region()} for these credentials; check --stage and AWS_REGION, or pass --state-bucket (the StateBucketName stack output)`,
        );
      }
      stateBucket = deployedStateBucket(account, await sqs.config.region(), target.stage);
    }
    const bucket = stateBucket;
    const store = new S3StateStore({ client: s3, bucket });
    return {
      stage: target.stage,
      stateBucket: bucket,
      store,
      queues,
      queueAges: ages?.source ?? NO_QUEUE_AGES,
      async webhooks({ policy, queueUrl }) {
        const url = queueUrl ?? (await queues.url(queueName(target.stage, 'webhooks')));
        if (!url) {
          throw new OperatorTargetError(
            `There is no queue ${queueName(target.stage, 'webhooks')}: deploy the webhooks part, or pass --queue-url with the webhook queue`,
          );
        }
        return new WebhookDelivery({
          store,
          secrets: operatorSecretStore(target),
          queue: new SqsDeliveryQueue({ sqs, queueUrl: url }),
          policy,
          knownTypes: EVENT_TYPES,
        });
      },
      async eventSink(queueUrl) {
        const url = queueUrl ?? (await queues.url(queueName(target.stage, 'events')));
        if (!url) {
          throw new OperatorTargetError(
            `There is no queue ${queueName(target.stage, 'events')}: pass --queue-url with the queue the events go to`,
          );
        }
        return {
          sink: new SqsEventPublisher({ sqs, queueUrl: () => url, claimCheck: { s3, bucket } }),
          queueUrl: url,
        };
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * The webhook secrets of the target: the local stack's folder, or the deployed stage's secrets in
 * Secrets Manager (`pds-bridge/<stage>/`, as deploy/webhooks.yml names them), with the operator's
 * credentials.
 */
function operatorSecretStore(target: BridgeTarget): SecretStore {
  if (target.webhookSecretsDir) return new FileSecretStore(target.webhookSecretsDir);
  if (target.emulator) {
    // Reading endpoints and deliveries needs no secret: only what creates or deletes one fails.
    const unknown = async (): Promise<never> => {
      throw new OperatorTargetError(
        'The local stack file names no folder of webhook secrets: restart the local stack (npm start) with this version',
      );
    };
    return { read: unknown, create: unknown, delete: unknown };
  }
  return new SecretsManagerSecretStore({
    client: secretsManagerClient(),
    prefix: `pds-bridge/${target.stage}/`,
  });
}
