import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fromFile, Parser } from '@asyncapi/parser';
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, type SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_BUS, EVENT_QUEUES } from '../../packages/bridge/src/events/asyncapi.ts';
import { ASYNCAPI_PATH, contractFiles, contractText } from '../../packages/bridge/src/events/contracts.ts';
import { EventBridgeEventPublisher } from '../../packages/bridge/src/events/eventbridge/index.ts';
import { exampleEvents } from '../../packages/bridge/src/events/examples.ts';
import { type CloudEvent, EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { eventSchemaValidator } from '../helpers/json-schema.ts';

const root = path.resolve(import.meta.dirname, '../..');
const documentPath = path.join(root, ASYNCAPI_PATH);
const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };

type Parsed = Awaited<ReturnType<ReturnType<typeof fromFile>['parse']>>;
type AsyncApi = NonNullable<Parsed['document']>;

/** Severity of a diagnostic as Spectral numbers them: 0 error, 1 warning, 2 information, 3 hint. */
const ERROR_OR_WARNING = 1;

let parsed: Parsed;
let document: AsyncApi;

beforeAll(async () => {
  parsed = await fromFile(new Parser(), documentPath).parse();
  if (parsed.document === undefined) {
    const errors = parsed.diagnostics.filter((diagnostic) => diagnostic.severity === 0);
    throw new Error(
      `${ASYNCAPI_PATH} does not parse: ${errors.map((error) => `${error.path.join('/')}: ${error.message}`).join('; ')}`,
    );
  }
  document = parsed.document;
});

/** A validator for one message's payload and headers, from the parser's resolved schemas. */
function messageValidators(type: string) {
  const message = document
    .messages()
    .all()
    .find((candidate) => candidate.id() === type);
  if (message === undefined) throw new Error(`no message ${type}`);
  const ajv = eventSchemaValidator();
  // The parser resolved the $refs to the data schema files; what it adds (x-parser-*) and the files'
  // own $id and $schema, now nested, are left out.
  const strip = (schema: unknown) =>
    JSON.parse(
      JSON.stringify(schema, (key, value) =>
        key.startsWith('x-parser-') || key === '$id' || key === '$schema' ? undefined : value,
      ),
    );
  return {
    payload: ajv.compile(strip(message.payload()?.json())),
    headers: ajv.compile(strip(message.headers()?.json())),
  };
}

/** Message attributes as AsyncAPI headers: Number attributes as numbers, String ones as strings. */
function headersOf(entry: SendMessageBatchRequestEntry): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entry.MessageAttributes ?? {}).map(([name, value]) => [
      name,
      value.DataType === 'Number' ? Number(value.StringValue) : value.StringValue,
    ]),
  );
}

describe('schemas/asyncapi.json', () => {
  it('is what `npm run schemas` generates now', () => {
    // prepare
    const generated = contractFiles(version).find((file) => file.path === ASYNCAPI_PATH);

    // assess
    expect(readFileSync(documentPath, 'utf8'), 'out of date: run npm run schemas').toBe(
      generated && contractText(generated),
    );
  });

  it('is a valid AsyncAPI 3.0 document for the official parser, without errors or warnings', () => {
    // act
    const problems = parsed.diagnostics.filter((diagnostic) => diagnostic.severity <= ERROR_OR_WARNING);

    // assess
    expect(problems.map((problem) => `${problem.path.join('/')}: ${problem.message}`)).toEqual([]);
    expect(document.version()).toBe('3.0.0');
  });

  it('has one message per event type and no other, each on exactly one channel the bridge sends to', () => {
    // act
    const messages = document
      .messages()
      .all()
      .map((message) => message.id());
    const byChannel = document
      .channels()
      .all()
      .flatMap((channel) =>
        channel
          .messages()
          .all()
          .map((message) => message.id()),
      );
    const sent = document
      .operations()
      .all()
      .filter((operation) => operation.isSend())
      .flatMap((operation) =>
        operation
          .messages()
          .all()
          .map((message) => message.id()),
      );

    // assess: each type once on the queues, and once more on the bus
    const expected = [...EVENT_TYPES, ...EVENT_TYPES.map(EVENT_BUS.messageId)].sort();
    expect([...messages].sort()).toEqual(expected);
    expect([...byChannel].sort()).toEqual(expected);
    expect([...sent].sort()).toEqual(expected);
  });

  it('has the EventBridge bus as a channel of its own server, carrying every event type', () => {
    // act
    const bus = document.channels().get(EVENT_BUS.channel);
    const servers = bus
      ?.servers()
      .all()
      .map((server) => server.id());
    const carried = bus
      ?.messages()
      .all()
      .map((message) => message.id());

    // assess
    expect(bus?.address()).toBe(EVENT_BUS.busName);
    expect(servers).toEqual(['eventbridge']);
    expect(carried?.sort()).toEqual(EVENT_TYPES.map(EVENT_BUS.messageId).sort());
    for (const queue of EVENT_QUEUES) {
      const queueServers = document
        .channels()
        .get(queue.channel)
        ?.servers()
        .all()
        .map((server) => server.id());
      expect(queueServers).toEqual(['sqs']);
    }
  });

  it('gives every channel the SQS binding of its queue, with the dead-letter queue and redrive policy', () => {
    for (const queue of EVENT_QUEUES) {
      // act
      const binding = document.channels().get(queue.channel)?.bindings().get('sqs')?.value();

      // assess
      expect(binding).toMatchObject({
        queue: {
          name: queue.queueName,
          redrivePolicy: {
            deadLetterQueue: { name: queue.deadLetterQueueName },
            maxReceiveCount: queue.maxReceiveCount,
          },
        },
        deadLetterQueue: { name: queue.deadLetterQueueName },
      });
    }
  });

  it.each(EVENT_TYPES)('shows the documented examples of %s, valid against its message', (type) => {
    // prepare
    const validate = messageValidators(type);
    const message = document
      .messages()
      .all()
      .find((candidate) => candidate.id() === type);

    // act
    const examples = message?.examples().all() ?? [];

    // assess
    expect(examples.map((example) => example.payload())).toEqual(
      JSON.parse(JSON.stringify(exampleEvents()[type])),
    );
    for (const example of examples) {
      expect(validate.payload(example.payload()), JSON.stringify(validate.payload.errors)).toBe(true);
      expect(validate.headers(example.headers()), JSON.stringify(validate.headers.errors)).toBe(true);
    }
  });

  it('refuses under one message the events of another type, and attributes that do not match', () => {
    // prepare
    const completed = messageValidators('pds.ingest.completed');
    const [failed] = exampleEvents()['pds.ingest.failed'];

    // act
    const otherType = completed.payload(JSON.parse(JSON.stringify(failed)));
    const oldSchema = completed.payload({
      ...exampleEvents()['pds.ingest.completed'][0],
      dataschema: 'urn:pds-bridge:schemas/events/pds.ingest.completed/v0.json',
    });
    const badId = completed.headers({ type: 'pds.ingest.completed', id: 'not-a-uuid' });

    // assess
    expect([otherType, oldSchema, badId]).toEqual([false, false, false]);
  });

  describe('against what the SQS publisher sends', () => {
    const sqsMock = mockClient(SQSClient);
    const s3Mock = mockClient(S3Client);
    afterEach(() => {
      sqsMock.reset();
      s3Mock.reset();
    });

    /** The entries the publisher sends for `events`; bodies above `inlineLimitBytes` are claim-checked. */
    async function sent(
      events: CloudEvent[],
      inlineLimitBytes?: number,
    ): Promise<SendMessageBatchRequestEntry[]> {
      sqsMock.on(SendMessageBatchCommand).callsFake((input: { Entries: Array<{ Id: string }> }) => ({
        Successful: input.Entries.map((entry) => ({
          Id: entry.Id,
          MessageId: entry.Id,
          MD5OfMessageBody: '',
        })),
        Failed: [],
      }));
      s3Mock.on(PutObjectCommand).resolves({});
      const publisher = new SqsEventPublisher({
        sqs: new SQSClient({ region: 'eu-central-1' }),
        queueUrl: () => 'https://sqs.eu-central-1.amazonaws.com/000000000000/pds-bridge-dev-events',
        claimCheck: { s3: new S3Client({ region: 'eu-central-1' }), bucket: 'state' },
        ...(inlineLimitBytes === undefined ? {} : { inlineLimitBytes }),
      });
      await publisher.publish(events);
      return sqsMock
        .commandCalls(SendMessageBatchCommand)
        .flatMap((call) => call.args[0].input.Entries ?? []);
    }

    /** Checks one sent entry against the message of `type`: every attribute documented, body and attributes valid. */
    function expectDocumented(type: string, entry: SendMessageBatchRequestEntry) {
      const validate = messageValidators(type);
      const message = document
        .messages()
        .all()
        .find((candidate) => candidate.id() === type);
      const documented = Object.keys(
        (message?.headers()?.json() as { properties?: object } | undefined)?.properties ?? {},
      );
      const headers = headersOf(entry);
      expect(documented).toEqual(expect.arrayContaining(Object.keys(headers)));
      expect(validate.headers(headers), JSON.stringify(validate.headers.errors)).toBe(true);
      const body = JSON.parse(entry.MessageBody ?? '');
      expect(validate.payload(body), JSON.stringify(validate.payload.errors)).toBe(true);
    }

    it.each(EVENT_TYPES)('documents the body and every message attribute of %s', async (type) => {
      // act
      const entries = await sent(exampleEvents()[type]);

      // assess
      expect(entries).toHaveLength(exampleEvents()[type].length);
      for (const entry of entries) expectDocumented(type, entry);
    });

    it('documents a claim-checked message: the pointer body and its ExtendedPayloadSize attribute', async () => {
      // prepare: the parsed confirmation is larger than the smallest inline limit
      const [event] = exampleEvents()['pds.messaging-asset.received'];
      if (event === undefined) throw new Error('no example');

      // act
      const [entry] = await sent([event], 1024);

      // assess
      expect(entry?.MessageAttributes?.ExtendedPayloadSize?.DataType).toBe('Number');
      expect(JSON.parse(entry?.MessageBody ?? '')).toEqual([
        'software.amazon.payloadoffloading.PayloadS3Pointer',
        { s3BucketName: 'state', s3Key: `claim-check/${event.id}.json` },
      ]);
      if (entry) expectDocumented(event.type, entry);
    });
  });
});

describe('schemas/asyncapi.json: the EventBridge bus against what the EventBridge publisher sends', () => {
  const ebMock = mockClient(EventBridgeClient);
  afterEach(() => ebMock.reset());

  /** The event a rule's target receives for a PutEvents entry (EventBridge's envelope). */
  function delivered(entry: PutEventsRequestEntry): Record<string, unknown> {
    return {
      version: '0',
      id: '0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6',
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: '123456789012',
      time: entry.Time?.toISOString().replace(/\.\d+Z$/, 'Z'),
      region: 'eu-central-1',
      resources: [],
      detail: JSON.parse(entry.Detail ?? 'null'),
    };
  }

  it.each(EVENT_TYPES)(
    '%s: the examples and what the publisher sends are valid against its bus message',
    async (type) => {
      // prepare
      const message = document
        .messages()
        .all()
        .find((candidate) => candidate.id() === EVENT_BUS.messageId(type));
      const strip = (schema: unknown) =>
        JSON.parse(
          JSON.stringify(schema, (key, value) =>
            key.startsWith('x-parser-') || key === '$id' || key === '$schema' ? undefined : value,
          ),
        );
      const validate = eventSchemaValidator().compile(strip(message?.payload()?.json()));
      ebMock.on(PutEventsCommand).callsFake((input: { Entries: PutEventsRequestEntry[] }) => ({
        FailedEntryCount: 0,
        Entries: input.Entries.map((_, index) => ({ EventId: `eb-${index}` })),
      }));
      const publisher = new EventBridgeEventPublisher({
        eventBridge: new EventBridgeClient({ region: 'eu-central-1' }),
        busName: 'pds-events',
        checkBus: false,
      });

      // act
      await publisher.publish(exampleEvents()[type]);
      const entries = ebMock
        .commandCalls(PutEventsCommand)
        .flatMap((call) => call.args[0].input.Entries ?? []);
      const examples = message?.examples().all() ?? [];

      // assess
      expect(entries).toHaveLength(exampleEvents()[type].length);
      expect(examples).toHaveLength(exampleEvents()[type].length);
      for (const payload of [...entries.map(delivered), ...examples.map((example) => example.payload())])
        expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
      expect(
        validate({ ...delivered(entries[0] as PutEventsRequestEntry), 'detail-type': 'pds.other' }),
      ).toBe(false);
    },
  );
});
