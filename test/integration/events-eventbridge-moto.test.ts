/**
 * The EventBridge publisher against moto's EventBridge on 127.0.0.1: a rule matching by detail-type
 * routes the published events to an SQS queue, and the consumer kit reads each back as the same
 * CloudEvent, a large one through the claim-check in the state bucket; a bus that does not exist is
 * refused before anything is sent. (Failed-entry retry is in test/unit/events-eventbridge-publisher.test.ts:
 * moto never fails a single entry.)
 */
import {
  CreateEventBusCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/core/index.ts';
import { EventBridgeEventPublisher } from '../../packages/bridge/src/events/eventbridge/index.ts';
import { type CloudEvent, createEvent } from '../../packages/bridge/src/events/index.ts';
import { createEventReader, s3PayloadFetcher } from '../../packages/consumer/src/index.ts';
import { ingestFailed } from '../helpers/failed-events.ts';
import { FAKE_CREDENTIALS } from '../helpers/fauxqs.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';

const BUS = 'pds-bridge-test-events';

function assetEvent(id: number, rawXml = '<broken'): CloudEvent {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${id}`,
    idParts: [id],
    time: '2026-11-20T09:15:00Z',
    data: { messagingAssetId: id, parseError: { name: 'XmlParseError', message: 'broken' }, rawXml },
  });
}

describeOnMoto('EventBridge publishing', () => {
  let aws: MotoServer;
  let eventBridge: EventBridgeClient;

  beforeAll(async () => {
    aws = await startMoto({ buckets: ['state'], queues: ['asset-events'] });
    eventBridge = new EventBridgeClient({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
    });
    await eventBridge.send(new CreateEventBusCommand({ Name: BUS }));
    // A consumer's rule: messaging-asset events only, matched by detail-type.
    await eventBridge.send(
      new PutRuleCommand({
        Name: 'assets-to-queue',
        EventBusName: BUS,
        EventPattern: JSON.stringify({ 'detail-type': ['pds.messaging-asset.received'] }),
      }),
    );
    await eventBridge.send(
      new PutTargetsCommand({
        Rule: 'assets-to-queue',
        EventBusName: BUS,
        Targets: [{ Id: 'queue', Arn: aws.queueArns['asset-events'] }],
      }),
    );
  }, 60_000);

  afterAll(async () => {
    eventBridge?.destroy();
    await aws?.close();
  });

  async function receiveAll(expected: number): Promise<Message[]> {
    const messages: Message[] = [];
    for (let round = 0; round < 20 && messages.length < expected; round++) {
      const answer = await aws.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: aws.queueUrls['asset-events'],
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      messages.push(...(answer.Messages ?? []));
    }
    return messages;
  }

  it('delivers every event a rule matches to its SQS target, read back by the kit as the same CloudEvent', async () => {
    // prepare: 23 matching events (three PutEvents calls) and one the rule does not match
    const assets = Array.from({ length: 23 }, (_, i) => assetEvent(i));
    const publisher = new EventBridgeEventPublisher({ eventBridge, busName: BUS });
    const reader = createEventReader();

    // act
    await publisher.publish([...assets, ingestFailed('other.csv')]);
    const messages = await receiveAll(assets.length);
    const read = await Promise.all(messages.map((message) => reader.read(message)));

    // assess
    expect(read.map((event) => event.id).sort()).toEqual(assets.map((event) => event.id).sort());
    const first = read.find((event) => event.id === assets[0]?.id);
    expect(first).toMatchObject({
      specversion: '1.0',
      type: 'pds.messaging-asset.received',
      source: assets[0]?.source,
      subject: assets[0]?.subject,
      time: assets[0]?.time,
      data: assets[0]?.data,
    });
  });

  it('sends an event over the entry limit through the claim-check, which the kit follows', async () => {
    // prepare
    const big = assetEvent(999, 'z'.repeat(300_000));
    const publisher = new EventBridgeEventPublisher({
      eventBridge,
      busName: BUS,
      claimCheck: { s3: aws.s3, bucket: 'state' },
    });
    const reader = createEventReader({
      payloads: s3PayloadFetcher(aws.s3),
      claimCheck: { buckets: ['state'] },
    });

    // act
    await publisher.publish([big]);
    const [message] = await receiveAll(1);
    const event = await reader.read(message ?? {});

    // assess
    expect(JSON.parse(message?.Body ?? '{}').detail).toEqual({
      s3BucketName: 'state',
      s3Key: expect.stringMatching(/^claim-check\//),
    });
    expect(event.id).toBe(big.id);
    expect(event.data).toEqual(big.data);
  });

  it('refuses to publish to a bus that does not exist, naming EVENT_BUS_NAME', async () => {
    // prepare
    const publisher = new EventBridgeEventPublisher({ eventBridge, busName: 'no-such-bus' });

    // act
    const error = await publisher.publish([assetEvent(1)]).catch((caught: unknown) => caught);

    // assess
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('The EventBridge bus no-such-bus does not exist');
    expect((error as Error).message).toContain('EVENT_BUS_NAME');
  });
});
