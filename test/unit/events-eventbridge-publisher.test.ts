import {
  DescribeEventBusCommand,
  EventBridgeClient,
  PutEventsCommand,
  type PutEventsRequestEntry,
  ResourceNotFoundException,
} from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/core/index.ts';
import {
  EventBridgeEventPublisher,
  type EventBridgeEventPublisherOptions,
  putEventsEntrySize,
} from '../../packages/bridge/src/events/eventbridge/index.ts';
import { type CloudEvent, createEvent, EventPublishError } from '../../packages/bridge/src/events/index.ts';

const ebMock = mockClient(EventBridgeClient);
const s3Mock = mockClient(S3Client);
const eventBridge = new EventBridgeClient({ region: 'us-east-1' });
const s3 = new S3Client({ region: 'us-east-1' });

beforeEach(() => {
  ebMock
    .on(DescribeEventBusCommand)
    .resolves({ Name: 'pds-events', Arn: 'arn:aws:events:::event-bus/pds-events' });
});

afterEach(() => {
  ebMock.reset();
  s3Mock.reset();
});

function assetEvent(id: number, rawXml = '<broken'): CloudEvent<'pds.messaging-asset.received'> {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${id}`,
    idParts: [id],
    time: '2026-11-20T09:15:00Z',
    data: { messagingAssetId: id, parseError: { name: 'XmlParseError', message: 'broken' }, rawXml },
  });
}

function publisher(options: Partial<EventBridgeEventPublisherOptions> = {}): EventBridgeEventPublisher {
  return new EventBridgeEventPublisher({
    eventBridge,
    busName: 'pds-events',
    sleep: async () => {},
    ...options,
  });
}

/** Every entry accepted. */
function acceptAll(): void {
  ebMock.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map((_, index) => ({ EventId: `eb-${index}` })),
  }));
}

const sentEntries = (): PutEventsRequestEntry[][] =>
  ebMock.commandCalls(PutEventsCommand).map((call) => call.args[0].input.Entries ?? []);

async function publishError(
  sink: EventBridgeEventPublisher,
  events: CloudEvent[],
): Promise<EventPublishError> {
  try {
    await sink.publish(events);
  } catch (error) {
    if (error instanceof EventPublishError) return error;
    throw error;
  }
  throw new Error('publish resolved, an EventPublishError was expected');
}

describe('EventBridgeEventPublisher', () => {
  it('maps a CloudEvent to an entry: source, type as detail-type, the whole event as detail, its time', async () => {
    acceptAll();
    const event = assetEvent(1);

    await publisher().publish([event]);

    const entry = sentEntries()[0]?.[0];
    expect(entry?.EventBusName).toBe('pds-events');
    expect(entry?.Source).toBe(event.source);
    expect(entry?.DetailType).toBe('pds.messaging-asset.received');
    expect(JSON.parse(entry?.Detail ?? '{}')).toEqual(event);
    expect(entry?.Time?.toISOString()).toBe('2026-11-20T09:15:00.000Z');
  });

  it('sends at most 10 entries per PutEvents call, in order, and each event once', async () => {
    acceptAll();
    const events = Array.from({ length: 23 }, (_, i) => assetEvent(i));

    await publisher().publish([...events, events[0] as CloudEvent]);

    const batches = sentEntries();
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 3]);
    expect(batches.flat().map((entry) => JSON.parse(entry.Detail ?? '{}').id)).toEqual(
      events.map((e) => e.id),
    );
  });

  it('keeps each request within the entry limit in bytes', async () => {
    acceptAll();
    // Each entry about 60 KiB: four fit in 256 KiB, a fifth does not.
    const events = Array.from({ length: 9 }, (_, i) => assetEvent(i, 'x'.repeat(60_000)));

    await publisher().publish(events);

    const batches = sentEntries();
    for (const batch of batches) {
      expect(batch.reduce((sum, entry) => sum + putEventsEntrySize(entry), 0)).toBeLessThanOrEqual(262_144);
    }
    expect(batches.map((batch) => batch.length)).toEqual([4, 4, 1]);
  });

  it('retries only the entries that failed, then publishes them', async () => {
    const events = Array.from({ length: 3 }, (_, i) => assetEvent(i));
    ebMock
      .on(PutEventsCommand)
      .resolvesOnce({
        FailedEntryCount: 1,
        Entries: [
          { EventId: 'a' },
          { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' },
          { EventId: 'c' },
        ],
      })
      .resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'b' }] });

    await publisher().publish(events);

    const batches = sentEntries();
    expect(batches).toHaveLength(2);
    expect(batches[1]?.map((entry) => JSON.parse(entry.Detail ?? '{}').id)).toEqual([events[1]?.id]);
  });

  it('names an entry that keeps failing after the bounded attempts, with its reason, and the published ones', async () => {
    const events = [assetEvent(1), assetEvent(2)];
    ebMock.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
      FailedEntryCount: 1,
      Entries: input.Entries.map((entry) =>
        JSON.parse(entry.Detail ?? '{}').id === events[1]?.id
          ? { ErrorCode: 'ThrottlingException', ErrorMessage: 'Rate exceeded' }
          : { EventId: 'ok' },
      ),
    }));

    const error = await publishError(publisher({ maxAttempts: 3 }), events);

    expect(error.publishedIds).toEqual([events[0]?.id]);
    expect(error.failures).toEqual([
      expect.objectContaining({
        eventId: events[1]?.id,
        code: 'ThrottlingException',
        senderFault: false,
        attempts: 3,
        reason: expect.stringContaining('Rate exceeded'),
      }),
    ]);
    expect(error.message).toContain('not accepted by EventBridge');
    expect(sentEntries()).toHaveLength(3);
  });

  it('does not retry an entry EventBridge refuses as malformed', async () => {
    ebMock.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' }],
    });

    const error = await publishError(publisher(), [assetEvent(1)]);

    expect(error.failures[0]).toMatchObject({ code: 'MalformedDetail', senderFault: true, attempts: 1 });
    expect(sentEntries()).toHaveLength(1);
  });

  it('sends an event over the entry limit as a claim-check pointer to the state bucket', async () => {
    acceptAll();
    s3Mock.on(PutObjectCommand).resolves({});
    const big = assetEvent(7, 'y'.repeat(300_000));

    await publisher({ claimCheck: { s3, bucket: 'state' } }).publish([big]);

    const [put] = s3Mock.commandCalls(PutObjectCommand);
    expect(put?.args[0].input).toMatchObject({
      Bucket: 'state',
      Key: expect.stringMatching(/^claim-check\//),
    });
    expect(JSON.parse(String(put?.args[0].input.Body))).toEqual(big);
    const entry = sentEntries()[0]?.[0];
    expect(entry?.DetailType).toBe('pds.messaging-asset.received');
    expect(JSON.parse(entry?.Detail ?? '{}')).toEqual({
      s3BucketName: 'state',
      s3Key: put?.args[0].input.Key,
    });
  });

  it('fails an event over the entry limit without a claim-check bucket, naming STATE_BUCKET', async () => {
    acceptAll();

    const error = await publishError(publisher(), [assetEvent(7, 'y'.repeat(300_000))]);

    expect(error.failures[0]?.reason).toContain('set STATE_BUCKET');
    expect(sentEntries()).toHaveLength(0);
  });

  it('refuses to publish to a bus that does not exist, naming EVENT_BUS_NAME, and sends nothing', async () => {
    ebMock
      .on(DescribeEventBusCommand)
      .rejects(new ResourceNotFoundException({ message: 'Event bus nope does not exist.', $metadata: {} }));
    acceptAll();
    const sink = publisher({ busName: 'nope' });

    const error = await sink.publish([assetEvent(1)]).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/bus nope does not exist.*EVENT_BUS_NAME/);
    expect((error as ConfigError).variables).toEqual(['EVENT_BUS_NAME']);
    expect(sentEntries()).toHaveLength(0);
  });

  it('checks the bus once, not per publish', async () => {
    acceptAll();
    const sink = publisher();

    await sink.publish([assetEvent(1)]);
    await sink.publish([assetEvent(2)]);

    expect(ebMock.commandCalls(DescribeEventBusCommand)).toHaveLength(1);
  });

  it('refuses an empty bus name and an out-of-range entry limit at construction', () => {
    expect(() => publisher({ busName: ' ' })).toThrow(/EVENT_BUS_NAME/);
    expect(() => publisher({ entryLimitBytes: 2_000_000 })).toThrow(ConfigError);
  });
});
