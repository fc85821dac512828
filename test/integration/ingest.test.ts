/**
 * The ingest logic against real servers on 127.0.0.1: objects in the S3 emulator (fauxqs), the PDS
 * simulator over HTTP, events read back from the emulator's queue. Tags go to an in-memory tagger
 * (the emulator would overwrite the object's body), the state store is S3 on the emulator.
 */

import { Readable } from 'node:stream';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { noopMetrics, silentLog } from '../../packages/bridge/src/core/index.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { ingestSqsBody } from '../../packages/bridge/src/ingest/delivery.ts';
import { createIngestFilter } from '../../packages/bridge/src/ingest/filters.ts';
import { MemoryObjectTagger } from '../../packages/bridge/src/ingest/memory-tagger.ts';
import type { NotificationDeps } from '../../packages/bridge/src/ingest/notification.ts';
import { S3ObjectSource } from '../../packages/bridge/src/ingest/s3/adapters.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { s3Event, s3Record } from '../helpers/s3-events.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

const DROPS = 'drops';
const STATE = 'state';

let aws: AwsEmulator;
let sim: RunningSimulator;
let pds: ClosablePdsClient;
let tagger: MemoryObjectTagger;

beforeAll(async () => {
  aws = await startAwsEmulator({ buckets: [DROPS, STATE], queues: ['events'] });
  sim = await startSimulator({ demoData: false });
  pds = simulatorClient(sim);
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  await aws?.close();
});

beforeEach(() => {
  tagger = new MemoryObjectTagger();
});

function deps(overrides: Partial<NotificationDeps> = {}): NotificationDeps {
  return {
    pds,
    store: new S3StateStore({ client: aws.s3, bucket: STATE }),
    events: new SqsEventPublisher({ sqs: aws.sqs, queueUrl: () => aws.queueUrls.events ?? '' }),
    source: new S3ObjectSource(aws.s3),
    tagger,
    owner: 'integration',
    leaseMs: 60_000,
    accepts: createIngestFilter({ suffixes: ['.csv', '.json', '.zip'] }),
    buckets: new Set([DROPS]),
    ...overrides,
  };
}

const sinks = {
  log: silentLog,
  metrics: noopMetrics,
};

/** Puts an object and returns the notification S3 would send for this write. */
async function drop(key: string, body: Buffer | string, contentType?: string): Promise<string> {
  const put = await aws.s3.send(
    new PutObjectCommand({
      Bucket: DROPS,
      Key: key,
      Body: body,
      ...(contentType ? { ContentType: contentType } : {}),
    }),
  );
  const size = Buffer.byteLength(body);
  return JSON.stringify(
    s3Event([s3Record({ bucket: DROPS, key, size, etag: (put.ETag ?? '').replaceAll('"', '') })]),
  );
}

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [member, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), member);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Receives every event that arrived on the events queue so far. */
async function receivedEvents(): Promise<CloudEvent[]> {
  const events: CloudEvent[] = [];
  for (let round = 0; round < 20; round++) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.queueUrls.events,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) break;
    events.push(...Messages.map((m: Message) => JSON.parse(m.Body ?? '{}') as CloudEvent));
    await aws.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: aws.queueUrls.events,
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return events;
}

function importsOf(gatheringKey: string): string[] {
  return sim.state.imports.filter((i) => i.gatheringKey === gatheringKey).map((i) => i.path);
}

describe('ingest with S3 emulator and PDS simulator', () => {
  it('imports a dropped CSV, creates its items, emits the completed event and tags the object', async () => {
    // prepare
    const csv = 'primaryKey__;name\n04012345678901;Still water\n04012345678918;Sparkling water\n';
    const body = await drop('incoming/items.csv', csv, 'text/csv');

    // act
    const summary = await ingestSqsBody(body, deps(), sinks);

    // assess
    expect(summary.imported).toBe(1);
    const events = await receivedEvents();
    expect(events).toHaveLength(1);
    const event = events[0] as CloudEvent<'pds.ingest.completed'>;
    expect(event).toMatchObject({
      type: 'pds.ingest.completed',
      data: {
        bucket: DROPS,
        key: 'incoming/items.csv',
        size: Buffer.byteLength(csv),
        entriesImported: [{ path: 'items.csv' }],
      },
    });
    expect(importsOf(event.data.gatheringKey)).toEqual(['items.csv']);
    expect(sim.state.items.get('04012345678918')).toMatchObject({ name: 'Sparkling water' });
    expect(tagger.tagsOf(DROPS, 'incoming/items.csv')).toEqual({
      'pds-gathering-key': event.data.gatheringKey,
      'pds-ingest-outcome': 'imported',
    });
  });

  it('imports every member of a dropped ZIP exactly once', async () => {
    const zip = await zipOf({
      'a.csv': 'primaryKey__,name\n1001,A\n',
      'sub/b.csv': 'primaryKey__,name\n1002,B\n',
      'c.json': '[{"primaryKey__":"1003","name":"C"}]',
    });
    const body = await drop('incoming/2026/batch.zip', zip, 'application/zip');

    await ingestSqsBody(body, deps(), sinks);

    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.completed'>>;
    const paths = event?.data.entriesImported.map((e) => e.path).sort();
    expect(paths).toEqual(['batch/a.csv', 'batch/c.json', 'batch/sub/b.csv']);
    expect(importsOf(event?.data.gatheringKey ?? '').sort()).toEqual(paths);
    expect(['1001', '1002', '1003'].every((key) => sim.state.items.has(key))).toBe(true);
  });

  it.each([
    ['spaces', 'incoming/Q1 price list.csv', 'Q1 price list.csv'],
    ['a plus sign', 'incoming/a+b=c.csv', 'a+b=c.csv'],
    ['unicode', 'incoming/Müsli – Ärger/品目 ✓.csv', '品目 ✓.csv'],
    ['a deep prefix', 'a/b/c/d/e/f/g/h/i/j/deep.csv', 'deep.csv'],
    ['percent signs and brackets', 'incoming/100% (final) [v2].csv', '100% (final) [v2].csv'],
  ])('ingests a key with %s under its decoded name', async (_name, key, fileName) => {
    const body = await drop(key, 'primaryKey__,name\n2001,X\n', 'text/csv');

    const summary = await ingestSqsBody(body, deps(), sinks);

    expect(summary.imported).toBe(1);
    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.completed'>>;
    expect(event?.data.key).toBe(key);
    expect(event?.subject).toBe(`s3://${DROPS}/${key}`);
    expect(importsOf(event?.data.gatheringKey ?? '')).toEqual([fileName]);
    expect(tagger.tagsOf(DROPS, key)['pds-ingest-outcome']).toBe('imported');
  });

  it('imports once when the same notification is delivered twice', async () => {
    const body = await drop('incoming/twice.csv', 'primaryKey__,name\n3001,X\n', 'text/csv');
    const importsBefore = sim.state.imports.length;

    const first = await ingestSqsBody(body, deps(), sinks);
    const second = await ingestSqsBody(body, deps(), sinks);

    expect(first.imported).toBe(1);
    expect(second.duplicate).toBe(1);
    expect(sim.state.imports.length - importsBefore).toBe(1);
    expect(await receivedEvents()).toHaveLength(1);
  });

  it('after a crash between two imports, the retry uploads nothing and imports only the rest', async () => {
    // prepare: the process dies after the first import was accepted and recorded, before the second
    const zip = await zipOf({
      'x.csv': 'primaryKey__\n4001\n',
      'y.csv': 'primaryKey__\n4002\n',
      'z.csv': 'primaryKey__\n4003\n',
    });
    const body = await drop('incoming/crash.zip', zip, 'application/zip');
    let calls = 0;
    const crashing = {
      uploadGathering: pds.uploadGathering.bind(pds),
      async startImport(request: { gatheringKey: string; path: string }) {
        calls += 1;
        if (calls === 2) throw new Error('Lambda runtime exited');
        await pds.startImport(request);
      },
    };
    const gatheringsBefore = sim.state.gatherings.size;
    await expect(ingestSqsBody(body, deps({ pds: crashing }), sinks)).rejects.toThrow(
      'Lambda runtime exited',
    );

    // act
    const summary = await ingestSqsBody(body, deps(), sinks);

    // assess
    expect(summary.imported).toBe(1);
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.completed'>>;
    expect(importsOf(event?.data.gatheringKey ?? '').sort()).toEqual([
      'crash/x.csv',
      'crash/y.csv',
      'crash/z.csv',
    ]);
  });

  it('retries an upload whose S3 stream broke midway, and the retry uploads the whole object', async () => {
    // prepare: the first read of the object is cut after 1 KiB
    const csv = `primaryKey__,name\n${Array.from({ length: 400 }, (_, i) => `${10_000 + i},Item ${i}`).join('\n')}\n`;
    const body = await drop('incoming/cut.csv', csv, 'text/csv');
    const real = new S3ObjectSource(aws.s3);
    let opens = 0;
    const cutting = {
      async open(ref: Parameters<S3ObjectSource['open']>[0]) {
        const opened = await real.open(ref);
        opens += 1;
        if (opens > 1) return opened;
        const source = opened.stream;
        async function* cut() {
          let seen = 0;
          for await (const chunk of source) {
            seen += (chunk as Buffer).length;
            if (seen > 1024) {
              source.destroy();
              throw new Error('socket hang up');
            }
            yield chunk as Buffer;
          }
        }
        return { ...opened, stream: Readable.from(cut()) };
      },
    };

    // act
    const first = await ingestSqsBody(body, deps({ source: cutting }), sinks).catch(
      (error: unknown) => error,
    );
    const second = await ingestSqsBody(body, deps({ source: cutting }), sinks);

    // assess
    expect(first).toMatchObject({ name: 'PdsUploadSourceError', retryable: true });
    expect(second.imported).toBe(1);
    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.completed'>>;
    expect(event?.data.size).toBe(Buffer.byteLength(csv));
    expect(sim.state.items.has('10399')).toBe(true);
  });

  it('acknowledges an object deleted before processing with a failed event and no retry', async () => {
    const body = await drop('incoming/deleted.csv', 'primaryKey__\n5001\n', 'text/csv');
    await aws.s3.send(new DeleteObjectCommand({ Bucket: DROPS, Key: 'incoming/deleted.csv' }));
    const gatheringsBefore = sim.state.gatherings.size;

    const summary = await ingestSqsBody(body, deps(), sinks);

    expect(summary.failed).toBe(1);
    expect(sim.state.gatherings.size).toBe(gatheringsBefore);
    const events = await receivedEvents();
    expect(events).toEqual([
      expect.objectContaining({
        type: 'pds.ingest.failed',
        data: expect.objectContaining({
          key: 'incoming/deleted.csv',
          retryable: false,
          reason: expect.stringContaining('deleted'),
        }),
      }),
    ]);
    expect(tagger.calls).toHaveLength(0);
  });

  it('reports a notification of an overwritten object with the code superseded and ingests the newer write', async () => {
    // prepare: two writes of one key, the first one's notification arrives after the overwrite
    const older = await drop('incoming/overwritten.csv', 'primaryKey__\n6001\n', 'text/csv');
    const newer = await drop('incoming/overwritten.csv', 'primaryKey__\n6002\n', 'text/csv');

    // act
    const first = await ingestSqsBody(older, deps(), sinks);
    const second = await ingestSqsBody(newer, deps(), sinks);

    // assess
    expect(first.failed).toBe(1);
    expect(second.imported).toBe(1);
    const events = await receivedEvents();
    expect(events.map((e) => e.type)).toEqual(['pds.ingest.failed', 'pds.ingest.completed']);
    expect(events[0]?.data).toMatchObject({
      code: 'superseded',
      retryable: false,
      reason: expect.stringContaining('replaced by a newer upload'),
    });
    expect(sim.state.items.has('6002')).toBe(true);
    expect(sim.state.items.has('6001')).toBe(false);
  });

  it('ends with a failed event carrying the status when the PDS refuses the upload', async () => {
    const body = await drop('incoming/refused.csv', 'primaryKey__\n7001\n', 'text/csv');
    const refusing = createPdsClient({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: 'wrong' },
    });

    try {
      const summary = await ingestSqsBody(body, deps({ pds: refusing }), sinks);

      expect(summary.failed).toBe(1);
      const [event] = await receivedEvents();
      expect(event).toMatchObject({
        type: 'pds.ingest.failed',
        data: { code: 'unauthorized', pdsStatus: 401, retryable: false },
      });
      expect(tagger.tagsOf(DROPS, 'incoming/refused.csv')).toEqual({
        'pds-ingest-outcome': 'failed',
        'pds-ingest-code': 'unauthorized',
      });
    } finally {
      await refusing.close();
    }
  });

  it.each([
    [
      'JSON that is not well-formed',
      'incoming/broken.json',
      '[{"primaryKey__":"8001","name":"Water"},',
      /broken\.json cannot be imported: the JSON text ends early, on line 1/,
    ],
    [
      'a CSV with an unclosed quote',
      'incoming/quote.csv',
      'primaryKey__,name\n8002,"Water\n8003,Juice\n',
      /quote\.csv cannot be imported: the quoted field opened on line 2 is never closed/,
    ],
  ])('fails %s as unreadable, imports nothing of it and tags it', async (_what, key, content, reason) => {
    const body = await drop(key, content);
    const importsBefore = sim.state.imports.length;

    const summary = await ingestSqsBody(body, deps(), sinks);

    expect(summary.failed).toBe(1);
    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.failed'>>;
    expect(event).toMatchObject({
      type: 'pds.ingest.failed',
      data: { key, code: 'unreadable', retryable: false, reason: expect.stringMatching(reason) },
    });
    expect(event?.data.reason).toMatch(/Fix: .*then upload it again/);
    expect(sim.state.imports.length).toBe(importsBefore);
    expect(['8001', '8002', '8003'].some((item) => sim.state.items.has(item))).toBe(false);
    expect(tagger.tagsOf(DROPS, key)).toMatchObject({
      'pds-ingest-outcome': 'failed',
      'pds-ingest-code': 'unreadable',
    });
  });

  it('fails a ZIP with one unreadable member whole, naming the member', async () => {
    const zip = await zipOf({
      'good.csv': 'primaryKey__,name\n8101,A\n',
      'bad.csv': 'primaryKey__,name,price\n8102,B\n',
    });
    const body = await drop('incoming/mixed.zip', zip);

    await ingestSqsBody(body, deps(), sinks);

    const [event] = (await receivedEvents()) as Array<CloudEvent<'pds.ingest.failed'>>;
    expect(event?.data).toMatchObject({
      code: 'unreadable',
      reason: expect.stringContaining(
        'mixed.zip:bad.csv cannot be imported: line 2 has 2 fields, the header has 3',
      ),
    });
    expect(sim.state.items.has('8101')).toBe(false);
  });

  it('imports an unreadable file as it is when INGEST_CONTENT_CHECK is off', async () => {
    const body = await drop('incoming/unchecked.json', '{"not":"an array"}');

    const summary = await ingestSqsBody(body, deps({ checkContent: false }), sinks);

    expect(summary.imported).toBe(1);
    expect((await receivedEvents())[0]?.type).toBe('pds.ingest.completed');
  });

  it('skips folder placeholders and keys outside the filters without touching the PDS', async () => {
    const body = JSON.stringify(
      s3Event([
        s3Record({ bucket: DROPS, key: 'incoming/new folder/', size: 0 }),
        s3Record({ bucket: DROPS, key: 'incoming/readme.txt', size: 10 }),
      ]),
    );
    const requestsBefore = sim.requestLog.length;

    const summary = await ingestSqsBody(body, deps(), sinks);

    expect(summary).toEqual({ imported: 0, failed: 0, duplicate: 0, skipped: 2 });
    expect(sim.requestLog.length).toBe(requestsBefore);
  });
});
