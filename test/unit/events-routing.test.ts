import { DescribeEventBusCommand, EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  eventDestinationFor,
  parseEventDestinations,
} from '../../packages/bridge/src/config/event-destinations.ts';
import { ConfigError, loadConfig } from '../../packages/bridge/src/config/index.ts';
import { eventSinkFor } from '../../packages/bridge/src/lambda/adapters.ts';
import { ingestFailed, publicationFailed } from '../helpers/failed-events.ts';

const BASE = {
  PDS_BASE_URL: 'https://pds.example.com',
  PDS_USERNAME: 'demo',
  PDS_PASSWORD: 'pw',
  AWS_REGION: 'us-east-1',
};
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/pds-events';

const sqsMock = mockClient(SQSClient);
const ebMock = mockClient(EventBridgeClient);

beforeEach(() => {
  sqsMock.on(SendMessageBatchCommand).callsFake((input: { Entries: SendMessageBatchRequestEntry[] }) => ({
    Successful: input.Entries.map((entry) => ({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: 'x' })),
    Failed: [],
  }));
  ebMock.on(DescribeEventBusCommand).resolves({ Name: 'bus' });
  ebMock.on(PutEventsCommand).callsFake((input: { Entries: unknown[] }) => ({
    FailedEntryCount: 0,
    Entries: input.Entries.map(() => ({ EventId: 'e' })),
  }));
});

afterEach(() => {
  sqsMock.reset();
  ebMock.reset();
});

const queuedTypes = (): string[] =>
  sqsMock
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => JSON.parse(entry.MessageBody ?? '{}').type);

const busTypes = (): string[] =>
  ebMock
    .commandCalls(PutEventsCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => entry.DetailType ?? '');

describe('EVENT_DESTINATIONS', () => {
  it('reads a destination for every family and per-family overrides', () => {
    const parsed = parseEventDestinations('sqs, publication=both ,confirmation=eventbridge');

    expect(parsed).toEqual({
      ok: true,
      value: { default: 'sqs', families: { publication: 'both', confirmation: 'eventbridge' } },
    });
    const value = parsed.ok ? parsed.value : undefined;
    expect(eventDestinationFor(value, 'pds.publication.completed')).toBe('both');
    expect(eventDestinationFor(value, 'pds.confirmation.changed')).toBe('eventbridge');
    expect(eventDestinationFor(value, 'pds.ingest.failed')).toBe('sqs');
    expect(eventDestinationFor(undefined, 'pds.ingest.failed')).toBe('sqs');
  });

  it('refuses an unknown destination or family, naming the valid words', () => {
    const act = () =>
      loadConfig({ ...BASE, EVENT_DESTINATIONS: 'sqs,publications=bus', EVENT_BUS_NAME: 'b' });

    expect(act).toThrow(ConfigError);
    expect(act).toThrow(
      /EVENT_DESTINATIONS has "publications=bus": must be sqs, eventbridge, both or family=destination.*ingest, messaging-asset/,
    );
  });

  it('requires EVENT_BUS_NAME when a family the function emits goes to the bus, and no queue for it', () => {
    const options = { eventTypes: ['pds.ingest.failed', 'pds.publication.failed'] };

    const act = () =>
      loadConfig({ ...BASE, EVENTS_QUEUE_URL: QUEUE, EVENT_DESTINATIONS: 'ingest=eventbridge' }, options);
    const busOnly = () =>
      loadConfig({ ...BASE, EVENT_DESTINATIONS: 'eventbridge', EVENT_BUS_NAME: 'bus' }, options);

    expect(act).toThrow(
      /EVENT_BUS_NAME is required: EVENT_DESTINATIONS sends pds.ingest.failed to EventBridge/,
    );
    expect(busOnly).not.toThrow();
  });
});

describe('eventSinkFor routing', () => {
  it('sends every event to its queue only, as before, without EVENT_DESTINATIONS', async () => {
    const sink = eventSinkFor(loadConfig({ ...BASE, EVENTS_QUEUE_URL: QUEUE, EVENT_BUS_NAME: 'bus' }));

    await sink.publish([ingestFailed('a'), publicationFailed('p')]);

    expect(queuedTypes()).toEqual(['pds.ingest.failed', 'pds.publication.failed']);
    expect(ebMock.calls()).toHaveLength(0);
  });

  it('sends each family where EVENT_DESTINATIONS says: the queue, the bus or both', async () => {
    const config = loadConfig({
      ...BASE,
      EVENTS_QUEUE_URL: QUEUE,
      EVENT_BUS_NAME: 'bus',
      EVENT_DESTINATIONS: 'eventbridge,publication=both',
    });

    await eventSinkFor(config).publish([ingestFailed('a'), publicationFailed('p')]);

    expect(queuedTypes()).toEqual(['pds.publication.failed']);
    expect(busTypes().sort()).toEqual(['pds.ingest.failed', 'pds.publication.failed']);
  });

  it('refuses to build a sink that routes to EventBridge without a bus', () => {
    const config = loadConfig({ ...BASE, EVENTS_QUEUE_URL: QUEUE, EVENT_DESTINATIONS: 'both' });

    expect(() => eventSinkFor(config)).toThrow(/EVENT_BUS_NAME is required/);
  });
});
