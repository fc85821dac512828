/**
 * What the event destinations did not accept, recorded by the hour in the state bucket
 * (packages/bridge/src/events/publish-failures.ts), through the event sink every function builds
 * (packages/bridge/src/lambda/adapters.ts, `eventSinkFor`) against moto on 127.0.0.1: a queue that
 * does not exist and an EventBridge bus that does not exist are real failing destinations; a
 * successful publish writes nothing.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../packages/bridge/src/config/index.ts';
import { recentPublishFailures } from '../../packages/bridge/src/events/index.ts';
import { PUBLISH_FAILURES_PREFIX } from '../../packages/bridge/src/events/publish-failures.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { statusText } from '../../packages/cli/src/commands/bridge-text.ts';
import type { OperatorQueues } from '../../packages/cli/src/ops/ports.ts';
import { bridgeStatus } from '../../packages/cli/src/ops/status.ts';
import { setEnv } from '../helpers/env.ts';
import { ingestFailed, publicationFailed } from '../helpers/failed-events.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';

/** A stage without queues: this test is about the state bucket's records. */
const NO_QUEUES: OperatorQueues = {
  depth: async () => undefined,
  peek: async () => [],
  move: async () => {
    throw new Error('not used');
  },
};

describeOnMoto('publish failures recorded by the hour', () => {
  let aws: MotoServer;
  let restoreEnv: () => void;
  let eventSinkFor: typeof import('../../packages/bridge/src/lambda/adapters.ts')['eventSinkFor'];
  let store: S3StateStore;
  const base = () => ({
    PDS_BASE_URL: 'https://pds.example.com',
    PDS_USERNAME: 'demo',
    PDS_PASSWORD: 'demo',
    STATE_BUCKET: 'state',
  });

  beforeAll(async () => {
    aws = await startMoto({ buckets: ['state'], queues: ['events'] });
    restoreEnv = setEnv({ ...aws.env, POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' });
    eventSinkFor = (await import('../../packages/bridge/src/lambda/adapters.ts')).eventSinkFor;
    store = new S3StateStore({ client: aws.s3, bucket: 'state' });
  }, 60_000);

  afterAll(async () => {
    restoreEnv?.();
    await aws?.close();
  });

  async function recordedKeys(): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of store.list(PUBLISH_FAILURES_PREFIX)) keys.push(key);
    return keys;
  }

  it('writes nothing when every destination accepts', async () => {
    // prepare
    const sink = eventSinkFor(loadConfig({ ...base(), EVENTS_QUEUE_URL: aws.queueUrls.events as string }));

    // act
    await sink.publish([ingestFailed('ok'), publicationFailed('ok')]);

    // assess
    expect(await recordedKeys()).toEqual([]);
  });

  it("records a missing queue's and a missing bus's failures per destination, with the reasons, and still throws", async () => {
    // prepare: ingest events to a queue moto does not have, publication events to a bus it does not have
    const missingQueue = (aws.queueUrls.events as string).replace(/events$/, 'no-such-queue');
    const sink = eventSinkFor(
      loadConfig({
        ...base(),
        EVENTS_QUEUE_URL: missingQueue,
        EVENT_BUS_NAME: 'no-such-bus',
        EVENT_DESTINATIONS: 'sqs,publication=eventbridge',
      }),
    );
    const before = Date.now();

    // act
    const failed = await sink
      .publish([ingestFailed('a'), ingestFailed('b'), publicationFailed('p')])
      .catch((error: unknown) => error);
    const recorded = await recentPublishFailures(store, before - 3_600_000, Date.now() + 1);

    // assess
    expect(failed).toBeInstanceOf(Error);
    expect(Object.keys(recorded).sort()).toEqual(['eventbridge:no-such-bus', 'sqs:no-such-queue']);
    const queue = recorded['sqs:no-such-queue'];
    expect(queue).toMatchObject({ failedEvents: 2, failedPublishes: 1 });
    expect(queue?.recent.map((failure) => failure.eventId).sort()).toEqual(
      [ingestFailed('a').id, ingestFailed('b').id].sort(),
    );
    expect(queue?.recent[0]?.code).toMatch(/NonExistentQueue|QueueDoesNotExist/);
    const bus = recorded['eventbridge:no-such-bus'];
    expect(bus).toMatchObject({ failedEvents: 1, failedPublishes: 1 });
    expect(bus?.recent[0]).toMatchObject({
      eventId: publicationFailed('p').id,
      type: 'pds.publication.failed',
    });
    expect(bus?.recent[0]?.reason).toContain('The EventBridge bus no-such-bus does not exist');
    expect(Date.parse(bus?.lastAt ?? '')).toBeGreaterThanOrEqual(before);
  });

  it('keeps counting in the same hour, and only the latest ten failures of a destination', async () => {
    // prepare
    const missingQueue = (aws.queueUrls.events as string).replace(/events$/, 'no-such-queue');
    const sink = eventSinkFor(loadConfig({ ...base(), EVENTS_QUEUE_URL: missingQueue }));
    const events = Array.from({ length: 12 }, (_, index) => ingestFailed(`many-${index}`));
    const before = Date.now();

    // act
    await sink.publish(events).catch(() => undefined);
    const recorded = await recentPublishFailures(store, before - 3_600_000, Date.now() + 1);

    // assess: the two of the previous test and these twelve; ten reasons kept, the latest
    const queue = recorded['sqs:no-such-queue'];
    expect(queue?.failedEvents).toBe(14);
    expect(queue?.failedPublishes).toBe(2);
    expect(queue?.recent).toHaveLength(10);
  });

  it('pds bridge status shows each failing destination with its counts and latest reason', async () => {
    // act
    const status = await bridgeStatus(store, NO_QUEUES, { stage: 'test', stateBucket: 'state' });
    const text = statusText(status);

    // assess
    expect(status.publishFailures.destinations['sqs:no-such-queue']?.failedEvents).toBe(14);
    expect(text).toContain('event destinations that did not accept events since');
    expect(text).toMatch(/sqs:no-such-queue\s+14\s+2\s/);
    expect(text).toMatch(
      /eventbridge:no-such-bus\s+1\s+1\s.*ConfigError: The EventBridge bus no-such-bus does not/,
    );
  });
});
