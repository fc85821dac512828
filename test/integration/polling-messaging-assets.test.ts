/**
 * The messaging-asset poller against real servers: the PDS simulator and fauxqs (S3 state bucket,
 * SQS event queue), through the real PDS client, S3 state store and SQS publisher.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandOutput,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXTENDED_PAYLOAD_SIZE_ATTRIBUTE } from '../../packages/bridge/src/events/claim-check.ts';
import { type CloudEvent, eventId } from '../../packages/bridge/src/events/index.ts';
import { resolveEventBody, SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { messagingAssetEvent } from '../../packages/bridge/src/polling/events.ts';
import {
  MESSAGING_ASSETS_CHECKPOINT,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { drainQueue } from '../helpers/polling.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const FIXTURES = ['cic-3.1-synchronised.xml', 'cic-3.1-review.xml', 'cic-2.8-state-attribute.xml'].map(
  (name) => readFileSync(path.join(fixtures, name), 'utf8'),
);
const BROKEN_XML = '<catalogueItemConfirmation><gtin>00614141123476</gtin></catalogueItemConfirmationState>';

type AssetEvent = CloudEvent<'pds.messaging-asset.received'>;

let aws: AwsEmulator;
const open: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  aws = await startAwsEmulator();
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((resource) => resource.close()));
});

afterAll(async () => {
  await aws?.close();
});

interface World {
  sim: RunningSimulator;
  pds: ClosablePdsClient;
  store: S3StateStore;
  bucket: string;
  queueUrl: string;
  sink: SqsEventPublisher;
  /** Every event in the queue so far (received and deleted), claim-checked bodies resolved. */
  received(): Promise<AssetEvent[]>;
}

/** A fresh simulator (with its demo backlog), state bucket and event queue for one test. */
async function world(options: { sqs?: SQSClient; pdsAttempts?: number } = {}): Promise<World> {
  const sim = await startSimulator({ reviewDelayMs: 20 });
  const pds = createPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: sim.password },
    retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: options.pdsAttempts ?? 4 },
  });
  open.push(pds, sim);
  const name = `t-${randomUUID().slice(0, 8)}`;
  aws.server.createBucket(name);
  aws.server.createQueue(name);
  const queueUrl = `${aws.endpoint}/000000000000/${name}`;
  const sink = new SqsEventPublisher({
    sqs: options.sqs ?? aws.sqs,
    queueUrl: () => queueUrl,
    claimCheck: { s3: aws.s3, bucket: name },
    baseDelayMs: 1,
  });
  return {
    sim,
    pds,
    store: new S3StateStore({ client: aws.s3, bucket: name }),
    bucket: name,
    queueUrl,
    sink,
    async received() {
      const messages = await drainQueue(aws.sqs, queueUrl);
      return Promise.all(
        messages.map(async (message) =>
          JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, aws.s3)),
        ),
      );
    },
  };
}

const assetIds = (events: AssetEvent[]) =>
  events.map((event) => event.data.messagingAssetId).sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('pollMessagingAssets against the simulator and fauxqs', () => {
  it('emits a backlog once, then only new arrivals, never anything twice', async () => {
    // prepare: the demo backlog (3 confirmations) plus 150 more, one of them broken
    const w = await world();
    for (let index = 0; index < 150; index++) {
      w.sim.state.addMessagingAsset({ xml: index === 77 ? BROKEN_XML : (FIXTURES[index % 3] as string) });
    }
    const deps = { pds: w.pds, store: w.store, sink: w.sink };
    const options = { firstRun: 'backlog' as const, pageSize: 40, concurrency: 4 };

    // act
    const first = await pollMessagingAssets(deps, options);
    const again = await pollMessagingAssets(deps, options);
    for (let index = 0; index < 5; index++) w.sim.state.addMessagingAsset({ xml: FIXTURES[0] as string });
    const arrivals = await pollMessagingAssets(deps, options);
    const events = await w.received();

    // assess
    expect(first).toMatchObject({ listed: 153, emitted: 153, parseErrors: 1, failed: 0, remaining: 0 });
    expect(again.emitted).toBe(0);
    expect(arrivals.emitted).toBe(5);
    expect(assetIds(events)).toEqual(range(1, 158));
    expect(new Set(events.map((event) => event.id)).size).toBe(158);
    for (const event of events)
      expect(event.id).toBe(eventId('pds.messaging-asset.received', [event.data.messagingAssetId]));
    const broken = events.find((event) => event.data.messagingAssetId === 81);
    expect(broken?.data).toMatchObject({ parseError: { code: 'MALFORMED' }, rawXml: BROKEN_XML });
  });

  it('summarises 3.1 and 2.8 confirmations, the simulator demo ones included', async () => {
    // prepare
    const w = await world();
    for (const xml of FIXTURES) w.sim.state.addMessagingAsset({ xml, primaryKey: '00614141123452' });

    // act
    await pollMessagingAssets({ pds: w.pds, store: w.store, sink: w.sink }, { firstRun: 'backlog' });
    const events = await w.received();

    // assess
    const byId = new Map(events.map((event) => [event.data.messagingAssetId, event.data]));
    expect(byId.get(1)?.cic?.[0]).toMatchObject({ gdsnVersion: '3.1', state: 'SYNCHRONISED' });
    expect(byId.get(1)?.primaryKey).toBe(w.sim.state.messagingAssets.get(1)?.primaryKey);
    expect(byId.get(4)?.cic?.[0]).toMatchObject({
      gdsnVersion: '3.1',
      state: 'SYNCHRONISED',
      gtin: '00614141123452',
    });
    expect(byId.get(5)?.cic?.[0]).toMatchObject({
      gdsnVersion: '3.1',
      state: 'REVIEW',
      gtin: '00614141123469',
    });
    expect(byId.get(5)?.cic?.[0]?.statuses[0]?.correctiveActions.length).toBeGreaterThan(0);
    expect(byId.get(6)?.cic?.[0]).toMatchObject({
      gdsnVersion: '2.8',
      state: 'ACCEPTED',
      gtin: '00614141123476',
    });
    expect(byId.get(6)?.primaryKey).toBe('00614141123452');
  });

  it('sends the same events again, with identical ids, after a crash between sending and the checkpoint', async () => {
    // prepare
    const w = await world();
    let crash = true;
    let writes = 0;
    // The first write records the page in flight; the one after sending fails.
    const crashes = (key: string) => crash && key === MESSAGING_ASSETS_CHECKPOINT && ++writes > 1;
    const crashing: StateStore = {
      get: (key) => w.store.get(key),
      create: (key, value) =>
        crashes(key) ? Promise.reject(new Error('crash')) : w.store.create(key, value),
      update: (key, value, etag) =>
        crashes(key) ? Promise.reject(new Error('crash')) : w.store.update(key, value, etag),
      delete: (key, etag) => w.store.delete(key, etag),
      list: (prefix, options) => w.store.list(prefix, options),
      listEntries: (prefix, options) => w.store.listEntries(prefix, options),
      mutate: (key, fn, options) => w.store.mutate(key, fn, options),
    };
    const deps = { pds: w.pds, store: crashing, sink: w.sink };

    // act
    await expect(pollMessagingAssets(deps, { firstRun: 'backlog' })).rejects.toThrow('crash');
    crash = false;
    const retried = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const settled = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const events = await w.received();

    // assess: every demo asset twice, both copies with the same id; nothing after the checkpoint moved
    expect(retried.emitted).toBe(3);
    expect(settled.emitted).toBe(0);
    expect(assetIds(events)).toEqual([1, 1, 2, 2, 3, 3]);
    const idsByAsset = Map.groupBy(events, (event) => event.data.messagingAssetId);
    for (const copies of idsByAsset.values()) expect(new Set(copies.map((event) => event.id)).size).toBe(1);
  });

  it('keeps an event SQS failed in a partial batch failure new, and sends it on the next run', async () => {
    // prepare: a client whose batches go to fauxqs, except the entry of asset 2, which SQS "fails"
    const sqs = new SQSClient({
      region: aws.region,
      endpoint: aws.endpoint,
      credentials: { accessKeyId: 't', secretAccessKey: 't' },
    });
    const sqsMock = mockClient(sqs);
    let refused = eventId('pds.messaging-asset.received', [2]);
    sqsMock
      .on(SendMessageBatchCommand)
      .callsFake(async (input: { QueueUrl: string; Entries: SendMessageBatchRequestEntry[] }) => {
        const failing = input.Entries.filter((entry) => entry.MessageAttributes?.id?.StringValue === refused);
        const passing = input.Entries.filter((entry) => !failing.includes(entry));
        const answer: Partial<SendMessageBatchCommandOutput> =
          passing.length > 0
            ? await aws.sqs.send(new SendMessageBatchCommand({ ...input, Entries: passing }))
            : {};
        return {
          Successful: answer.Successful ?? [],
          Failed: [
            ...(answer.Failed ?? []),
            ...failing.map((entry) => ({
              Id: entry.Id,
              Code: 'InternalError',
              SenderFault: false,
              Message: 'try again',
            })),
          ],
        };
      });
    open.push({ close: async () => sqsMock.restore() });
    const w = await world({ sqs });
    const deps = { pds: w.pds, store: w.store, sink: w.sink };

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const afterFirst = await w.received();
    refused = '';
    const second = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const afterSecond = await w.received();

    // assess
    expect(first).toMatchObject({ stopped: 'publish-failed', emitted: 2, unpublished: 1 });
    expect(assetIds(afterFirst)).toEqual([1, 3]);
    expect(second.emitted).toBe(1);
    expect(assetIds(afterSecond)).toEqual([2]);
  });

  it('emits an asset whose XML holds characters SQS refuses, and the assets behind it', async () => {
    // prepare: U+FFFE and U+FFFF in the text, an emoji in an attribute, then two ordinary assets
    const w = await world();
    const awkward = '<note by="😀">a\uFFFEb\uFFFFc</note>';
    const awkwardId = w.sim.state.addMessagingAsset({ xml: awkward });
    const later = [FIXTURES[0], FIXTURES[1]].map((xml) =>
      w.sim.state.addMessagingAsset({ xml: xml as string }),
    );
    const deps = { pds: w.pds, store: w.store, sink: w.sink };

    // act
    const report = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const events = await w.received();

    // assess
    expect(report).toMatchObject({ emitted: 6, unpublished: 0, retryPending: 0 });
    expect(report.stopped).toBeUndefined();
    expect(assetIds(events)).toEqual([1, 2, 3, awkwardId, ...later]);
    const event = events.find((item) => item.data.messagingAssetId === awkwardId);
    // Built again outside the poll's unit of work, it names another trace.
    expect(event).toEqual({
      ...messagingAssetEvent(
        { id: awkwardId, createdAt: event?.data.createdAt ?? 0, contentType: 'application/xml' },
        awkward,
        { time: new Date(event?.time ?? 0) },
      ),
      traceparent: event?.traceparent,
    });
    expect(JSON.stringify(event?.data)).toContain('a\uFFFEb\uFFFFc');
  });

  it('sends an asset too large for SQS through the claim-check in the state bucket', async () => {
    // prepare: a valid confirmation of more than 256 KiB
    const w = await world();
    const statuses = Array.from(
      { length: 1500 },
      (_, index) =>
        `<catalogueItemConfirmationStatus><confirmationStatusCode>CIC${index}</confirmationStatusCode><confirmationStatusCodeDescription languageCode="en">Status ${index}: the net content is not declared in the unit the recipient expects.</confirmationStatusCodeDescription></catalogueItemConfirmationStatus>`,
    ).join('');
    const xml = (FIXTURES[1] as string).replace(
      '<catalogueItemConfirmationStatusDetail>',
      `<catalogueItemConfirmationStatusDetail>${statuses}`,
    );
    expect(Buffer.byteLength(xml)).toBeGreaterThan(256 * 1024);
    const id = w.sim.state.addMessagingAsset({ xml });

    // act
    await pollMessagingAssets({ pds: w.pds, store: w.store, sink: w.sink }, { firstRun: 'backlog' });
    const messages = await drainQueue(aws.sqs, w.queueUrl);

    // assess
    const large = messages.find((message) => message.MessageAttributes?.[EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]);
    expect(large?.Body).toContain('software.amazon.payloadoffloading.PayloadS3Pointer');
    expect(large?.Body).toContain(w.bucket);
    const event = JSON.parse(
      await resolveEventBody(large?.Body ?? '', large?.MessageAttributes, aws.s3),
    ) as AssetEvent;
    expect(event.data.messagingAssetId).toBe(id);
    // The document carries all 1,502 statuses; the summary its cap, counting the rest (docs/events.md).
    expect(event.data.cic?.[0]?.statuses).toHaveLength(200);
    expect(event.data.cic?.[0]?.truncated).toEqual({ statuses: 1302 });
    expect(messages).toHaveLength(4);
  });

  it('rides out a transient 503 through the transport and fetches an asset that failed for good on the next run', async () => {
    // prepare: ids 1-3 demo, 4-7 added
    const w = await world();
    for (let index = 0; index < 4; index++)
      w.sim.state.addMessagingAsset({ xml: FIXTURES[index % 3] as string });
    w.sim.failNext(1, {
      kind: 'status',
      status: 503,
      retryAfterSeconds: 0,
      method: 'GET',
      pathPrefix: '/api/v1/messaging/messagingassets/6',
    });
    w.sim.failNext(1, {
      kind: 'status',
      status: 500,
      method: 'GET',
      pathPrefix: '/api/v1/messaging/messagingassets/5',
    });
    const deps = { pds: w.pds, store: w.store, sink: w.sink };

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const second = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    const events = await w.received();

    // assess
    expect(first).toMatchObject({ emitted: 6, failed: 1, retryPending: 1 });
    expect(second).toMatchObject({ emitted: 1, failed: 0, retryPending: 0 });
    expect(assetIds(events)).toEqual(range(1, 7));
    const asset6 = w.sim.requestLog.filter((entry) => entry.path === '/api/v1/messaging/messagingassets/6');
    expect(asset6.map((entry) => entry.status)).toEqual([503, 200]);
  });

  it('emits every asset exactly once through random PDS faults, in a bounded number of runs', async () => {
    // prepare: no retries in the client, so each fault is a failed fetch (or a failed listing) the poller must survive
    const w = await world({ pdsAttempts: 1 });
    for (let index = 0; index < 60; index++)
      w.sim.state.addMessagingAsset({ xml: FIXTURES[index % 3] as string });
    w.sim.setFaults({
      rate: 0.3,
      statuses: [503, 502],
      retryAfterSeconds: 0,
      seed: 11,
      pathPrefix: '/api/v1/messaging/',
    });
    const deps = { pds: w.pds, store: w.store, sink: w.sink };

    // act
    const reports = [];
    for (let run = 0; run < 30; run++) {
      const report = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 20 }).catch(
        (error: Error) => error,
      );
      reports.push(report);
      if (
        !(report instanceof Error) &&
        report.remaining === 0 &&
        report.retryPending === 0 &&
        !report.stopped
      )
        break;
    }
    w.sim.setFaults(undefined);
    const events = await w.received();

    // assess
    expect(assetIds(events)).toEqual(range(1, 63));
    expect(reports.some((report) => !(report instanceof Error) && report.failed > 0)).toBe(true);
  });
});
