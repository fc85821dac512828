/**
 * schemas/asyncapi.json against the packaged template: each event type's channel is the queue the
 * deployed functions send it to, with that queue's dead-letter queue, redrive policy and retention.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventQueueUrlFor } from '../../packages/bridge/src/config/event-routing.ts';
import { EVENT_BUS } from '../../packages/bridge/src/events/asyncapi.ts';
import { ASYNCAPI_PATH } from '../../packages/bridge/src/events/contracts.ts';
import { EVENT_TYPES, type EventType } from '../../packages/bridge/src/events/index.ts';
import { INGEST_EVENT_TYPES } from '../../packages/bridge/src/ingest/settings.ts';
import { type CloudFormationTemplate, dig, packageService, referencedId } from '../helpers/serverless.ts';

const STAGE = 'ci';

/** The event types each deployed function emits (its handler's `eventTypes` at cold start). */
const EMITTED: Record<string, readonly EventType[]> = {
  IngestLambdaFunction: INGEST_EVENT_TYPES,
  PollMessagingAssetsLambdaFunction: ['pds.messaging-asset.received', 'pds.confirmation.changed'],
  PollSupplierReviewsLambdaFunction: ['pds.supplier-review.received', 'pds.confirmation.changed'],
  PollSupplierReviewsWorkerLambdaFunction: ['pds.supplier-review.received', 'pds.confirmation.changed'],
  PublishWorkerLambdaFunction: [
    'pds.publication.completed',
    'pds.publication.failed',
    'pds.confirmation.changed',
  ],
  WebhookDeliveryLambdaFunction: ['pds.webhook.endpoint-disabled'],
};

interface SqsQueueBinding {
  name: string;
  messageRetentionPeriod?: number;
  redrivePolicy?: { deadLetterQueue: { name: string }; maxReceiveCount: number };
}

interface Channel {
  messages: Record<string, unknown>;
  bindings: { sqs: { queue: SqsQueueBinding; deadLetterQueue: SqsQueueBinding } };
}

const asyncApi = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../..', ASYNCAPI_PATH), 'utf8'),
) as {
  channels: Record<string, Channel>;
};

/** The channel carrying `type`, with `{stage}` in its queue names resolved. */
function channelOf(type: EventType): { queue: SqsQueueBinding; deadLetterQueue: SqsQueueBinding } {
  const channels = Object.values(asyncApi.channels).filter((channel) => type in channel.messages);
  expect(channels, `${type} should be on exactly one channel`).toHaveLength(1);
  const resolved = JSON.stringify(channels[0]?.bindings.sqs).replaceAll('{stage}', STAGE);
  return JSON.parse(resolved);
}

let template: CloudFormationTemplate;

beforeAll(async () => {
  template = await packageService(['--stage', STAGE, '--param', 'pdsBaseUrl=https://pds.ci.test']);
}, 180_000);

function queueProperties(logicalId: string | undefined): Record<string, unknown> {
  const resource = logicalId === undefined ? undefined : template.Resources[logicalId];
  expect(resource?.Type, `${logicalId} should be an SQS queue`).toBe('AWS::SQS::Queue');
  return resource?.Properties ?? {};
}

/** The queue (logical id) a function of the template sends `type` to, by the bridge's own routing. */
function routedQueue(functionId: string, type: EventType): string | undefined {
  const variables = dig(template.Resources[functionId], 'Properties', 'Environment', 'Variables') as
    | Record<string, unknown>
    | undefined;
  const settings = Object.fromEntries(
    Object.entries(variables ?? {}).map(([name, value]) => [name, referencedId(value) ?? String(value)]),
  );
  return eventQueueUrlFor({ settings }, type);
}

describe('schemas/asyncapi.json against the packaged template', () => {
  it('knows a deployed function for every event type', () => {
    // assess
    for (const functionId of Object.keys(EMITTED)) {
      expect(template.Resources[functionId]?.Type, functionId).toBe('AWS::Lambda::Function');
    }
    expect([...new Set(Object.values(EMITTED).flat())].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(Object.entries(EMITTED).flatMap(([fn, types]) => types.map((type) => [fn, type] as const)))(
    '%s sends %s to the queue of its channel, with the documented dead-letter queue and redrive policy',
    (functionId, type) => {
      // prepare
      const queue = queueProperties(routedQueue(functionId, type));
      const deadLetterQueue = queueProperties(
        referencedId(dig(queue, 'RedrivePolicy', 'deadLetterTargetArn')),
      );

      // act
      const documented = channelOf(type);

      // assess
      expect(documented.queue).toEqual({
        name: queue.QueueName,
        fifoQueue: false,
        messageRetentionPeriod: queue.MessageRetentionPeriod,
        redrivePolicy: {
          deadLetterQueue: { name: deadLetterQueue.QueueName },
          maxReceiveCount: dig(queue, 'RedrivePolicy', 'maxReceiveCount'),
        },
      });
      expect(documented.deadLetterQueue).toEqual({
        name: deadLetterQueue.QueueName,
        fifoQueue: false,
        messageRetentionPeriod: deadLetterQueue.MessageRetentionPeriod,
      });
    },
  );

  it('has a channel for every queue the functions send events to, and for no other', () => {
    // act
    const routed = new Set(
      Object.entries(EMITTED).flatMap(([fn, types]) =>
        types.map((type) => queueProperties(routedQueue(fn, type)).QueueName),
      ),
    );
    const documented = Object.values(asyncApi.channels)
      .filter((channel) => channel.bindings?.sqs !== undefined)
      .map((channel) => channel.bindings.sqs.queue.name.replaceAll('{stage}', STAGE));

    // assess
    expect(documented.sort()).toEqual([...routed].sort());
  });

  it('names the bus the template creates (eventBus=create) as the EventBridge channel', () => {
    // act
    const bus = asyncApi.channels[EVENT_BUS.channel] as unknown as { address: string };

    // assess
    expect(template.Resources.EventBus?.Type).toBe('AWS::Events::EventBus');
    expect(bus.address.replaceAll('{stage}', STAGE)).toBe(template.Resources.EventBus?.Properties?.Name);
  });
});
