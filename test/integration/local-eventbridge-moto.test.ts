/**
 * EventBridge output in the local stack (docs/local-stack.md, "EventBridge"): with a backend named
 * (moto_server on 127.0.0.1) the stack creates its bus there and the functions' environment points
 * the EventBridge client at it, so a rule on the bus receives the events; without a backend, or with
 * one that does not answer, the stack refuses with the fix.
 */
import { createServer } from 'node:net';
import { PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../packages/bridge/src/core/index.ts';
import { EventBridgeEventPublisher } from '../../packages/bridge/src/events/eventbridge/index.ts';
import { createEvent } from '../../packages/bridge/src/events/index.ts';
import { createEventBridgeClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { parseStartArgs } from '../../packages/local/src/cli.ts';
import { applyEnvironment, handlerEnvironment } from '../../packages/local/src/environment.ts';
import { LocalEventBridgeError } from '../../packages/local/src/errors.ts';
import { ensureLocalEventBus, LOCAL_EVENT_BUS } from '../../packages/local/src/eventbridge.ts';
import type { LocalResources } from '../../packages/local/src/resources.ts';
import { FAKE_CREDENTIALS } from '../helpers/fauxqs.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describeOnMoto('local stack: EventBridge output on moto', () => {
  let aws: MotoServer;

  beforeAll(async () => {
    aws = await startMoto({ queues: ['bus-rule-target'] });
  }, 60_000);
  afterAll(async () => {
    await aws?.close();
  });

  it('creates the bus on the backend, keeps it when it exists, and the functions’ environment publishes to it', async () => {
    // prepare
    const busName = await ensureLocalEventBus(aws.endpoint, aws.region);
    expect(await ensureLocalEventBus(aws.endpoint, aws.region)).toBe(busName);
    const admin = createEventBridgeClient({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: FAKE_CREDENTIALS,
    });
    await admin.send(
      new PutRuleCommand({
        Name: 'everything',
        EventBusName: busName,
        EventPattern: JSON.stringify({ 'detail-type': ['pds.ingest.failed'] }),
      }),
    );
    await admin.send(
      new PutTargetsCommand({
        Rule: 'everything',
        EventBusName: busName,
        Targets: [{ Id: 'queue', Arn: aws.queueArns['bus-rule-target'] }],
      }),
    );
    const environment = handlerEnvironment({
      awsEndpoint: 'http://127.0.0.1:9',
      region: aws.region,
      resources: {
        queues: new Proxy({}, { get: () => ({ url: 'http://127.0.0.1:9/q' }) }),
        buckets: {},
      } as unknown as LocalResources,
      pds: { baseUrl: 'http://127.0.0.1:9', username: 'u', password: 'p' },
      apiToken: 't',
      pollFirstRun: 'now',
      webhookSecretsDir: '/tmp/pds-webhook-secrets-unused',
      eventBridge: { endpoint: aws.endpoint, busName },
    });
    const restore = applyEnvironment(environment);

    // act: what a function does with that environment
    try {
      const publisher = new EventBridgeEventPublisher({
        eventBridge: createEventBridgeClient(),
        busName: process.env.EVENT_BUS_NAME as string,
      });
      await publisher.publish([
        createEvent({
          type: 'pds.ingest.failed',
          subject: 's3://drop/a.csv',
          idParts: ['drop', 'a.csv'],
          time: '2026-12-01T10:00:00Z',
          data: {
            bucket: 'drop',
            key: 'a.csv',
            code: 'rejected',
            reason: 'refused',
            pdsStatus: 400,
            retryable: false,
          },
        }),
      ]);
    } finally {
      restore();
    }

    // assess
    expect(busName).toBe(LOCAL_EVENT_BUS);
    expect(environment.forced.EVENT_BUS_NAME).toBe(LOCAL_EVENT_BUS);
    expect(environment.defaults.EVENT_DESTINATIONS).toBe('both');
    const answer = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: aws.queueUrls['bus-rule-target'], WaitTimeSeconds: 5 }),
    );
    const received = JSON.parse(answer.Messages?.[0]?.Body ?? '{}') as Record<string, unknown>;
    expect(received['detail-type']).toBe('pds.ingest.failed');
    expect((received.detail as { subject?: string }).subject).toBe('s3://drop/a.csv');
  });
});

describe('local stack: no EventBridge backend', () => {
  it('refuses a backend that does not answer, naming moto_server and --eventbridge', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;

    const refusal = await ensureLocalEventBus(endpoint, 'us-east-1').catch((error: unknown) => error);

    expect(refusal).toBeInstanceOf(LocalEventBridgeError);
    expect((refusal as Error).message).toMatch(
      new RegExp(`No EventBridge backend answered at ${endpoint}.*moto_server.*--eventbridge`),
    );
  });

  it('refuses EVENT_DESTINATIONS that send to EventBridge when no backend is named', () => {
    expect(() => parseStartArgs([], { EVENT_DESTINATIONS: 'sqs,publication=both' })).toThrow(UsageError);
    expect(() => parseStartArgs([], { EVENT_DESTINATIONS: 'eventbridge' })).toThrow(
      /EVENT_DESTINATIONS=eventbridge sends events to EventBridge, but the local stack has no EventBridge backend: start moto_server/,
    );
    expect(() => parseStartArgs([], { EVENT_DESTINATIONS: 'sqs' })).not.toThrow();
  });

  it('takes the backend from --eventbridge or LOCAL_EVENTBRIDGE_ENDPOINT, and refuses what is not a URL', () => {
    const fromFlag = parseStartArgs(['--eventbridge', 'http://127.0.0.1:5000/'], {
      EVENT_DESTINATIONS: 'both',
    });
    const fromEnv = parseStartArgs([], { LOCAL_EVENTBRIDGE_ENDPOINT: 'http://127.0.0.1:5001' });

    expect(fromFlag !== 'help' && fromFlag.options.eventBridgeEndpoint).toBe('http://127.0.0.1:5000');
    expect(fromEnv !== 'help' && fromEnv.options.eventBridgeEndpoint).toBe('http://127.0.0.1:5001');
    expect(() => parseStartArgs(['--eventbridge', 'moto'], {})).toThrow(
      /--eventbridge must be the http\(s\) URL/,
    );
  });
});
