/**
 * Concurrent deliveries of one object write on an S3 that enforces conditional writes: moto behind the
 * proxy that makes conditional writes of one key atomic (../helpers/s3-proxy.ts), the PDS simulator
 * over HTTP, events read back from moto's queue. Exactly one upload and one import per gathering entry,
 * whatever the number of deliveries; every delivery is acknowledged or retried, none lost.
 */
import { GetObjectTaggingCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { S3Event, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { noopMetrics, silentLog } from '../../packages/bridge/src/core/index.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { SqsEventPublisher } from '../../packages/bridge/src/events/sqs/index.ts';
import { type IngestSummary, ingestSqsBody } from '../../packages/bridge/src/ingest/delivery.ts';
import { isRetryable } from '../../packages/bridge/src/ingest/errors.ts';
import { createIngestFilter } from '../../packages/bridge/src/ingest/filters.ts';
import type { NotificationDeps } from '../../packages/bridge/src/ingest/notification.ts';
import { S3ObjectSource, S3ObjectTagger } from '../../packages/bridge/src/ingest/s3/adapters.ts';
import type { ClosablePdsClient } from '../../packages/bridge/src/pds/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { toSqsRecord } from '../../packages/local/src/sqs-event-source.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { setEnv } from '../helpers/env.ts';
import { describeOnMoto, type MotoServer, motoS3Client, startMoto } from '../helpers/moto.ts';
import { lambdaContext, s3Event, s3Record } from '../helpers/s3-events.ts';
import { type S3Proxy, startS3Proxy } from '../helpers/s3-proxy.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

type Handler = (
  event: SQSEvent | S3Event,
  context: ReturnType<typeof lambdaContext>,
) => Promise<SQSBatchResponse | IngestSummary>;

const sinks = { log: silentLog, metrics: noopMetrics };

describeOnMoto('ingest of one write delivered many times', () => {
  let moto: MotoServer;
  let proxy: S3Proxy;
  let s3: S3Client;
  let sim: RunningSimulator;
  let pds: ClosablePdsClient;
  let handler: Handler;
  let restoreEnv: () => void;

  beforeAll(async () => {
    moto = await startMoto({ buckets: ['drops', 'state'], queues: ['ingest', 'events'] });
    proxy = await startS3Proxy(moto.endpoint);
    s3 = motoS3Client(proxy.endpoint, moto.region);
    // Slow uploads, so the deliveries overlap while the first one streams.
    sim = await startSimulator({
      demoData: false,
      faults: { latencyMs: 50, pathPrefix: '/api/v1/gatherings' },
    });
    pds = simulatorClient(sim);
    restoreEnv = setEnv({
      ...moto.env,
      AWS_ENDPOINT_URL: proxy.endpoint,
      AWS_ENDPOINT_URL_S3: proxy.endpoint,
      AWS_ENDPOINT_URL_SQS: moto.endpoint,
      PDS_BASE_URL: sim.url,
      PDS_USERNAME: sim.username,
      PDS_PASSWORD: sim.password,
      PDS_CREDENTIALS_SECRET_ID: undefined,
      STATE_BUCKET: 'state',
      EVENTS_QUEUE_URL: moto.queueUrls.events,
      INGEST_EVENTS_QUEUE_URL: undefined,
      INGEST_BUCKETS: 'drops',
      INGEST_PREFIX: undefined,
      INGEST_SUFFIXES: '.zip',
      INGEST_TAG_OBJECTS: 'true',
      INGEST_LEASE_SECONDS: '960',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    });
    ({ handler } = (await import('../../packages/bridge/functions/ingest.ts')) as unknown as {
      handler: Handler;
    });
  });

  afterAll(async () => {
    restoreEnv?.();
    s3?.destroy();
    await pds?.close();
    await sim?.close();
    await proxy?.close();
    await moto?.close();
  });

  /** Puts a ZIP of `members` and returns the notification body S3 would send for this write. */
  async function drop(key: string, members: string[]): Promise<string> {
    const zip = new ZipFile();
    for (const [i, member] of members.entries())
      zip.addBuffer(Buffer.from(`primaryKey__\n${key.length}${i}\n`), member);
    zip.end();
    const chunks: Buffer[] = [];
    for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const put = await s3.send(new PutObjectCommand({ Bucket: 'drops', Key: key, Body: body }));
    return JSON.stringify(
      s3Event([
        s3Record({ bucket: 'drops', key, size: body.length, etag: (put.ETag ?? '').replaceAll('"', '') }),
      ]),
    );
  }

  async function drain(queue: string): Promise<string[]> {
    const bodies: string[] = [];
    for (let round = 0; round < 20; round++) {
      const { Messages = [] } = await moto.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: moto.queueUrls[queue],
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
        }),
      );
      if (Messages.length === 0) break;
      bodies.push(...Messages.map((m) => m.Body ?? ''));
      await moto.sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: moto.queueUrls[queue],
          Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
    }
    return bodies;
  }

  async function completedEvents(): Promise<Array<CloudEvent<'pds.ingest.completed'>>> {
    return (await drain('events')).map((body) => JSON.parse(body) as CloudEvent<'pds.ingest.completed'>);
  }

  function importsOf(gatheringKey: string): string[] {
    return sim.state.imports
      .filter((i) => i.gatheringKey === gatheringKey)
      .map((i) => i.path)
      .sort();
  }

  it('uploads once and imports each entry once when concurrent invocations get the same write', async () => {
    // prepare
    const body = await drop('in/concurrent.zip', ['a.csv', 'b.csv', 'c.csv']);
    const deps = (owner: string): NotificationDeps => ({
      pds,
      store: new S3StateStore({ client: s3, bucket: 'state' }),
      events: new SqsEventPublisher({ sqs: moto.sqs, queueUrl: () => moto.queueUrls.events ?? '' }),
      source: new S3ObjectSource(s3),
      tagger: new S3ObjectTagger(s3),
      owner,
      leaseMs: 960_000,
      accepts: createIngestFilter({ suffixes: ['.zip'] }),
      buckets: new Set(['drops']),
    });
    const gatheringsBefore = sim.state.gatherings.size;

    // act: six invocations at once, then SQS's redelivery of every one that was told to retry
    const first = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => ingestSqsBody(body, deps(`invocation-${i}`), sinks)),
    );
    const retried = first.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    const again = await Promise.all(
      retried.map((_, i) => ingestSqsBody(body, deps(`redelivery-${i}`), sinks)),
    );

    // assess
    const summaries = first.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(summaries.reduce((n, s) => n + s.imported, 0)).toBe(1);
    expect(retried.length + summaries.length).toBe(6);
    for (const reason of retried) expect(isRetryable(reason)).toBe(true);
    expect(again.every((summary) => summary.duplicate === 1)).toBe(true);
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    const events = await completedEvents();
    expect(events).toHaveLength(1);
    expect(importsOf(events[0]?.data.gatheringKey ?? '')).toEqual([
      'concurrent/a.csv',
      'concurrent/b.csv',
      'concurrent/c.csv',
    ]);
    const { TagSet = [] } = await s3.send(
      new GetObjectTaggingCommand({ Bucket: 'drops', Key: 'in/concurrent.zip' }),
    );
    expect(TagSet).toContainEqual({ Key: 'pds-ingest-outcome', Value: 'imported' });
  });

  it('uploads once and acknowledges both records when one batch carries the same write twice', async () => {
    // prepare: S3 notified the write twice, and both messages arrive in one batch
    const body = await drop('in/batch-twice.zip', ['x.csv', 'y.csv']);
    for (let i = 0; i < 2; i++) {
      await moto.sqs.send(new SendMessageCommand({ QueueUrl: moto.queueUrls.ingest, MessageBody: body }));
    }
    const messages = [];
    for (let round = 0; round < 10 && messages.length < 2; round++) {
      const { Messages = [] } = await moto.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: moto.queueUrls.ingest,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['All'],
        }),
      );
      messages.push(...Messages);
    }
    const event: SQSEvent = {
      Records: messages.map((m) => toSqsRecord(m, moto.queueArns.ingest ?? '', moto.region)),
    };
    const gatheringsBefore = sim.state.gatherings.size;

    // act
    const response = (await handler(event, lambdaContext())) as SQSBatchResponse;
    await moto.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: moto.queueUrls.ingest,
        Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );

    // assess
    expect(messages).toHaveLength(2);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    const events = await completedEvents();
    expect(events).toHaveLength(1);
    expect(importsOf(events[0]?.data.gatheringKey ?? '')).toEqual(['batch-twice/x.csv', 'batch-twice/y.csv']);
    const { Attributes = {} } = await moto.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: moto.queueUrls.ingest, AttributeNames: ['All'] }),
    );
    expect(
      Number(Attributes.ApproximateNumberOfMessages) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible),
    ).toBe(0);
  });
});
