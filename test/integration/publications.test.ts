/**
 * The publication path end to end, with the real handlers (packages/bridge/functions/api.ts, packages/bridge/functions/publish-worker.ts)
 * over the S3 + SQS emulator and the PDS simulator: request → 202 → the worker runs on the messages
 * received from the publication queue (deleted unless reported as batch item failures, as the event
 * source mapping does; redelivered after the visibility timeout otherwise) → selection and publication
 * in the simulator → event on the events queue → keys on the watch list. Also a PDS outage that is
 * retried, one that outlasts the attempt limit, and the local HTTP adapter with the bearer token.
 */
import { DeleteMessageCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { resetAwsClients } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { getWatchEntry } from '../../packages/bridge/src/state/watch-list.ts';
import {
  localLambdaContext,
  type RunningHttpAdapter,
  startHttpAdapter,
} from '../../packages/local/src/gateway/index.ts';
import {
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { apiEvent, bodyOf } from '../helpers/apigw.ts';
import { setEnv } from '../helpers/env.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { publicationSqsRecord, sqsEvent } from '../helpers/publications.ts';

const TOKEN = 'integration-token-0123456789';
const DESTINATIONS = [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: DEMO_CHANNEL_IDS.germany }];

type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: unknown,
) => Promise<APIGatewayProxyStructuredResultV2>;
type WorkerHandler = (event: SQSEvent, context: unknown) => Promise<SQSBatchResponse>;

let aws: AwsEmulator;
let sim: RunningSimulator;
let api: ApiHandler;
let worker: WorkerHandler;
let store: S3StateStore;
let restoreEnv: () => void;

beforeAll(async () => {
  aws = await startAwsEmulator({
    buckets: ['state'],
    queues: [
      { name: 'publications', visibilityTimeout: 1, dlq: { name: 'publications-dlq', maxReceiveCount: 10 } },
      'events',
    ],
  });
  sim = await startSimulator({ reviewDelayMs: 60_000 });
  restoreEnv = setEnv({
    ...aws.env,
    PDS_BASE_URL: sim.url,
    PDS_USERNAME: sim.username,
    PDS_PASSWORD: sim.password,
    PDS_CREDENTIALS_SECRET_ID: undefined,
    STATE_BUCKET: 'state',
    EVENTS_QUEUE_URL: aws.queueUrls.events,
    PUBLICATION_EVENTS_QUEUE_URL: undefined,
    PUBLICATION_QUEUE_URL: aws.queueUrls.publications,
    PUBLICATION_MAX_ATTEMPTS: '2',
    API_AUTH_MODE: 'bearer',
    API_TOKEN: TOKEN,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  resetAwsClients();
  ({ handler: api } = (await import('../../packages/bridge/functions/api.ts')) as unknown as {
    handler: ApiHandler;
  });
  ({ handler: worker } = (await import('../../packages/bridge/functions/publish-worker.ts')) as unknown as {
    handler: WorkerHandler;
  });
  store = new S3StateStore({ client: aws.s3, bucket: 'state' });
});

afterAll(async () => {
  restoreEnv?.();
  resetAwsClients();
  await sim?.close();
  await aws?.close();
});

/** POST /publications through the api handler. */
async function requestPublication(primaryKeys: string[], idempotencyKey: string) {
  const result = await api(
    apiEvent({
      method: 'POST',
      path: '/publications',
      json: { primaryKeys, destinations: DESTINATIONS },
      bearer: TOKEN,
      headers: { 'idempotency-key': idempotencyKey },
    }),
    localLambdaContext({ functionName: 'api' }),
  );
  expect(result.statusCode).toBe(202);
  return bodyOf(result).publicationId as string;
}

/** One poll of the publication queue handed to the worker, as Lambda's event source mapping does it. */
async function deliverOnce(): Promise<{ messages: Message[]; response: SQSBatchResponse }> {
  const received = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: aws.queueUrls.publications,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 5,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      MessageAttributeNames: ['All'],
    }),
  );
  const messages = received.Messages ?? [];
  if (messages.length === 0) throw new Error('no publication message arrived within 5 s');
  const event = sqsEvent(
    messages.map((message) => ({
      ...publicationSqsRecord(message.Body ?? '', {
        messageId: message.MessageId as string,
        receiveCount: Number(message.Attributes?.ApproximateReceiveCount ?? 1),
      }),
      // As Lambda hands them over: the attributes the sender set (the trace it hands on).
      messageAttributes: Object.fromEntries(
        Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
          name,
          { dataType: value.DataType ?? 'String', stringValue: value.StringValue },
        ]),
      ),
    })),
  );
  const response = await worker(
    event,
    localLambdaContext({ functionName: 'publish-worker', timeoutMs: 60_000 }),
  );
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  for (const message of messages) {
    if (failed.has(message.MessageId as string)) continue;
    await aws.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: aws.queueUrls.publications,
        ReceiptHandle: message.ReceiptHandle,
      }),
    );
  }
  return { messages, response };
}

/** The events that arrived on the events queue (received and deleted). */
async function receiveEvents(): Promise<CloudEvent[]> {
  const received = await aws.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: aws.queueUrls.events,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 2,
    }),
  );
  const events: CloudEvent[] = [];
  for (const message of received.Messages ?? []) {
    events.push(JSON.parse(message.Body ?? '{}') as CloudEvent);
    await aws.sqs.send(
      new DeleteMessageCommand({ QueueUrl: aws.queueUrls.events, ReceiptHandle: message.ReceiptHandle }),
    );
  }
  return events;
}

async function publicationStatus(id: string) {
  const result = await api(apiEvent({ path: `/publications/${id}`, bearer: TOKEN }), localLambdaContext());
  return bodyOf(result);
}

describe('publications through the emulator and the simulator', () => {
  it('request → 202 → worker → selection and publication in the PDS → completed event → keys watched', async () => {
    // Prepare
    const keys = [DEMO_PRIMARY_KEYS.water, DEMO_PRIMARY_KEYS.dishSoap];
    const selectionsBefore = sim.state.selections.size;

    // Act
    const id = await requestPublication(keys, 'happy-1');
    const { messages, response } = await deliverOnce();
    const events = await receiveEvents();

    // Assess
    expect(messages).toHaveLength(1);
    expect(response.batchItemFailures).toEqual([]);
    expect(sim.state.selections.size).toBe(selectionsBefore + 1);
    const status = await publicationStatus(id);
    expect(status).toMatchObject({ status: 'published', numberOfItems: 2, attempts: 1 });
    const selection = sim.state.selections.get(status.selectionId as string);
    expect(selection?.primaryKeys).toEqual(keys);
    expect(sim.state.publications.at(-1)).toMatchObject({
      selectionId: status.selectionId,
      destinations: DESTINATIONS,
    });
    // One pds.confirmation.changed (AWAITING) per key at the channel, before the completed event.
    const confirmations = events.filter((event) => event.type === 'pds.confirmation.changed');
    expect(confirmations.map((event) => (event.data as { state: string }).state)).toEqual([
      'AWAITING',
      'AWAITING',
    ]);
    const outcome = events.filter((event) => event.type !== 'pds.confirmation.changed');
    expect(outcome).toHaveLength(1);
    expect(outcome[0]).toMatchObject({
      type: 'pds.publication.completed',
      subject: `publication/${id}`,
      data: { publicationId: id, selectionId: status.selectionId, primaryKeys: keys, numberOfItems: 2 },
    });
    for (const key of keys) {
      expect((await getWatchEntry(store, key))?.sources).toContain(`publication:${id}`);
    }
  });

  it("continues the trace of the request: the completed event names the api invocation's X-Ray trace", async () => {
    // Prepare: the api invocation runs in an X-Ray trace, as in Lambda
    process.env._X_AMZN_TRACE_ID =
      'Root=1-6760a2b1-0123456789abcdef01234567;Parent=89abcdef01234567;Sampled=1';

    // Act
    let id: string;
    try {
      id = await requestPublication([DEMO_PRIMARY_KEYS.water], 'traced-1');
    } finally {
      delete process.env._X_AMZN_TRACE_ID;
    }
    await deliverOnce();
    const events = await receiveEvents();

    // Assess
    expect(events.filter((event) => event.type !== 'pds.confirmation.changed')).toEqual([
      expect.objectContaining({
        type: 'pds.publication.completed',
        subject: `publication/${id}`,
        traceparent: '00-6760a2b10123456789abcdef01234567-89abcdef01234567-01',
      }),
    ]);
  });

  it('retries a PDS outage on the publication through SQS redelivery and completes with one selection', async () => {
    // Prepare
    const keys = [DEMO_PRIMARY_KEYS.chocolate];
    const selectionsBefore = sim.state.selections.size;
    const publicationsBefore = sim.state.publications.length;
    sim.failNext(1, { kind: 'status', status: 503, method: 'POST', pathPrefix: '/api/v1/publications' });

    // Act
    const id = await requestPublication(keys, 'outage-1');
    const first = await deliverOnce();
    const between = await publicationStatus(id);
    const second = await deliverOnce();
    const events = await receiveEvents();

    // Assess
    expect(first.response.batchItemFailures).toHaveLength(1);
    expect(between).toMatchObject({ status: 'publishing', lastError: { pdsStatus: 503, retryable: true } });
    expect(second.messages[0]?.Attributes?.ApproximateReceiveCount).toBe('2');
    expect(second.response.batchItemFailures).toEqual([]);
    expect(sim.state.selections.size).toBe(selectionsBefore + 1);
    expect(sim.state.publications.length).toBe(publicationsBefore + 1);
    expect(await publicationStatus(id)).toMatchObject({ status: 'published', attempts: 2 });
    // Besides the completed event, one pds.confirmation.changed (AWAITING) per key at the channel.
    expect(events.map((event) => event.type).filter((type) => type !== 'pds.confirmation.changed')).toEqual([
      'pds.publication.completed',
    ]);
  });

  it('emits the failed event once the outage outlasts PUBLICATION_MAX_ATTEMPTS', async () => {
    // Prepare
    const keys = [DEMO_PRIMARY_KEYS.fridayOats];
    sim.failNext(2, { kind: 'status', status: 503, method: 'POST', pathPrefix: '/api/v1/selections' });

    // Act
    const id = await requestPublication(keys, 'outage-2');
    const first = await deliverOnce();
    const second = await deliverOnce();
    const events = await receiveEvents();

    // Assess
    expect(first.response.batchItemFailures).toHaveLength(1);
    expect(second.response.batchItemFailures).toEqual([]);
    expect(await publicationStatus(id)).toMatchObject({
      status: 'failed',
      error: { pdsStatus: 503, retryable: true },
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'pds.publication.failed',
      data: { publicationId: id, pdsStatus: 503, retryable: true },
    });
    expect(await getWatchEntry(store, DEMO_PRIMARY_KEYS.fridayOats)).toBeUndefined();
  });
});

describe('the api handler behind the local HTTP adapter', () => {
  let adapter: RunningHttpAdapter;

  beforeAll(async () => {
    adapter = await startHttpAdapter({
      handler: (event, context) => api(event, context),
      functionName: 'api',
    });
  });

  afterAll(async () => {
    await adapter?.close();
  });

  async function stateKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of store.list('')) keys.push(key);
    return keys;
  }

  it('accepts a bearer-authenticated request over HTTP and refuses one without the token, recording nothing', async () => {
    // Prepare
    const before = await stateKeys();
    const body = JSON.stringify({ primaryKeys: [DEMO_PRIMARY_KEYS.unnamed], destinations: DESTINATIONS });

    // Act
    const refused = await fetch(`${adapter.url}/publications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const afterRefusal = await stateKeys();
    const accepted = await fetch(`${adapter.url}/publications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    });
    const channels = await fetch(`${adapter.url}/communication-channels`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const watched = await fetch(`${adapter.url}/watch/${encodeURIComponent('a/b key')}?force=true`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
    });

    // Assess
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(afterRefusal).toEqual(before);
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get('location')).toMatch(/^\/publications\/[0-9a-f-]{36}$/);
    expect(
      ((await channels.json()) as { channels: Array<{ id: string }> }).channels.map((c) => c.id),
    ).toEqual(Object.values(DEMO_CHANNEL_IDS));
    expect(watched.status).toBe(201);
    expect(await getWatchEntry(store, 'a/b key')).toMatchObject({ sources: ['operator'] });
    // The accepted request is queued; let the worker carry it out so the queue is left empty.
    expect((await deliverOnce()).response.batchItemFailures).toEqual([]);
  });
});
