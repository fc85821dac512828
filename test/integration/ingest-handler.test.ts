/**
 * packages/bridge/functions/ingest.ts as Lambda runs it: SQS events built from the emulator's ingest queue (received,
 * handed to the handler, deleted unless reported as batch item failures, exactly as the event source
 * mapping does), the S3 emulator, the PDS simulator with injected faults, events read back from the
 * emulator's events queue.
 */
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { S3Event, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ZipFile } from 'yazl';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import type { IngestSummary } from '../../packages/bridge/src/ingest/delivery.ts';
import { claimIngest } from '../../packages/bridge/src/ingest/progress.ts';
import { type ObjectWriteEvent, parseS3Event } from '../../packages/bridge/src/ingest/s3-event.ts';
import { DEFAULT_STEP_RETRY } from '../../packages/bridge/src/ingest/step-retry.ts';
import { sqsClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { toSqsRecord } from '../../packages/local/src/sqs-event-source.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { setEnv } from '../helpers/env.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { lambdaContext, s3Event, s3Record, sqsEvent, sqsRecord } from '../helpers/s3-events.ts';

type Handler = (
  event: SQSEvent | S3Event,
  context: ReturnType<typeof lambdaContext>,
) => Promise<SQSBatchResponse | IngestSummary>;

let aws: AwsEmulator;
let sim: RunningSimulator;
let handler: Handler;
let restoreEnv: () => void;

beforeAll(async () => {
  aws = await startAwsEmulator({
    buckets: ['drops', 'state'],
    queues: [
      { name: 'ingest', visibilityTimeout: 1, dlq: { name: 'ingest-dlq', maxReceiveCount: 25 } },
      { name: 'doomed', visibilityTimeout: 1, dlq: { name: 'doomed-dlq', maxReceiveCount: 2 } },
      { name: 'waiting', visibilityTimeout: 1 },
      'events',
    ],
  });
  sim = await startSimulator({ demoData: false });
  restoreEnv = setEnv({
    ...aws.env,
    PDS_BASE_URL: sim.url,
    PDS_USERNAME: sim.username,
    PDS_PASSWORD: sim.password,
    PDS_CREDENTIALS_SECRET_ID: undefined,
    STATE_BUCKET: 'state',
    EVENTS_QUEUE_URL: aws.queueUrls.events,
    INGEST_EVENTS_QUEUE_URL: undefined,
    INGEST_BUCKETS: 'drops',
    INGEST_PREFIX: 'incoming/',
    INGEST_SUFFIXES: '.csv,.zip',
    INGEST_TAG_OBJECTS: 'false',
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
  await sim?.close();
  await aws?.close();
});

async function drop(key: string, body: Buffer | string): Promise<ReturnType<typeof s3Record>> {
  const put = await aws.s3.send(new PutObjectCommand({ Bucket: 'drops', Key: key, Body: body }));
  return s3Record({
    bucket: 'drops',
    key,
    size: Buffer.byteLength(body),
    etag: (put.ETag ?? '').replaceAll('"', ''),
  });
}

async function zipOf(files: Record<string, string>): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [member, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), member);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function receiveAll(queue: string): Promise<string[]> {
  const bodies: string[] = [];
  for (let round = 0; round < 50; round++) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.queueUrls[queue],
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((m) => m.Body ?? ''));
    await aws.sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: aws.queueUrls[queue],
        Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
      }),
    );
  }
  return bodies;
}

async function events(): Promise<CloudEvent[]> {
  return (await receiveAll('events')).map((body) => JSON.parse(body) as CloudEvent);
}

async function depth(queue: string): Promise<number> {
  const { Attributes = {} } = await aws.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: aws.queueUrls[queue],
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

/**
 * Delivers the queue's messages to the handler the way the Lambda event source mapping does, until
 * `done` says so or the rounds run out (bounded: each round waits at most one second).
 */
async function pump(queue: string, done: () => Promise<boolean>, maxRounds = 90): Promise<number> {
  let invocations = 0;
  for (let round = 0; round < maxRounds; round++) {
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.queueUrls[queue],
        MaxNumberOfMessages: 4,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
    );
    if (Messages.length > 0) {
      invocations += 1;
      const event = sqsEvent(
        Messages.map((m) =>
          sqsRecord(m.Body ?? '', {
            messageId: m.MessageId ?? '',
            receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
          }),
        ),
      );
      const response = (await handler(event, lambdaContext())) as SQSBatchResponse;
      const failed = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      const succeeded = Messages.filter((m) => !failed.has(m.MessageId ?? ''));
      if (succeeded.length > 0) {
        await aws.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: aws.queueUrls[queue],
            Entries: succeeded.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
          }),
        );
      }
    }
    if (await done()) return invocations;
  }
  throw new Error(`the ${queue} queue did not settle within ${maxRounds} rounds`);
}

describe('ingest handler', () => {
  it('answers a batch with only the record that must be retried', async () => {
    // prepare: a good drop, an unreadable message, an object deleted before processing
    const good = sqsRecord(s3Event([await drop('incoming/handler-good.csv', 'primaryKey__\n9001\n')]));
    const unreadable = sqsRecord('{"this is": "not an S3 event"}');
    const deletedRecord = await drop('incoming/handler-deleted.csv', 'primaryKey__\n9002\n');
    await aws.s3.send(new DeleteObjectCommand({ Bucket: 'drops', Key: 'incoming/handler-deleted.csv' }));
    const deleted = sqsRecord(s3Event([deletedRecord]));

    // act
    const response = await handler(sqsEvent([good, unreadable, deleted]), lambdaContext());

    // assess
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: unreadable.messageId }] });
    const received = await events();
    expect(received.map((e) => [e.type, (e.data as { key?: string }).key]).sort()).toEqual([
      ['pds.ingest.completed', 'incoming/handler-good.csv'],
      ['pds.ingest.failed', 'incoming/handler-deleted.csv'],
    ]);
    expect(sim.state.items.has('9001')).toBe(true);
  });

  it('ingests a write delivered twice in one batch once and acknowledges both records', async () => {
    // prepare: S3 sent the notification of one write twice, and both arrive in one batch
    const zip = await zipOf({ 'a.csv': 'primaryKey__\n9201\n', 'b.csv': 'primaryKey__\n9202\n' });
    const body = JSON.stringify(s3Event([await drop('incoming/twice-in-batch.zip', zip)]));
    const records = [sqsRecord(body), sqsRecord(body)];
    const gatheringsBefore = sim.state.gatherings.size;
    const importsBefore = sim.state.imports.length;

    // act
    const response = await handler(sqsEvent(records), lambdaContext());

    // assess
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    expect(
      sim.state.imports
        .slice(importsBefore)
        .map((i) => i.path)
        .sort(),
    ).toEqual(['twice-in-batch/a.csv', 'twice-in-batch/b.csv']);
    expect((await events()).map((e) => e.type)).toEqual(['pds.ingest.completed']);
  });

  it('brings a delivery that meets a live claim back after the lease of that claim, not after the retry back-off', async () => {
    // prepare: another delivery holds the write's claim (a large file still streaming)
    const record = await drop('incoming/held.csv', 'primaryKey__\n9301\n');
    const [write] = (parseS3Event(s3Event([record])) as { writes: ObjectWriteEvent[] }).writes;
    const store = new S3StateStore({ client: aws.s3, bucket: 'state' });
    const held = await claimIngest(store, write as ObjectWriteEvent, {
      owner: 'streaming',
      leaseMs: 960_000,
    });
    if (held.kind !== 'claimed') throw new Error('the write should be claimable');
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls.waiting,
        MessageBody: JSON.stringify(s3Event([record])),
      }),
    );
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: aws.queueUrls.waiting,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const event = sqsEvent(Messages.map((m) => toSqsRecord(m, aws.queueArns.waiting ?? '', aws.region)));
    const send = vi.spyOn(sqsClient(), 'send');

    // act
    let response: SQSBatchResponse;
    let sent: unknown[];
    try {
      response = (await handler(event, lambdaContext())) as SQSBatchResponse;
    } finally {
      sent = send.mock.calls.map(([command]) => command);
      send.mockRestore();
    }

    // assess: retried once the lease has run out, so its receives are not spent meanwhile
    expect(response.batchItemFailures).toHaveLength(1);
    const delays = sent
      .filter((command) => command instanceof ChangeMessageVisibilityBatchCommand)
      .flatMap((command) => command.input.Entries ?? [])
      .map((entry) => entry.VisibilityTimeout ?? 0);
    const leaseLeftSeconds = (held.claim.record.leaseUntil - Date.now()) / 1000;
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThanOrEqual(leaseLeftSeconds);
    expect(delays[0]).toBeLessThanOrEqual(960 + 60);
    await aws.sqs.send(
      new DeleteMessageCommand({
        QueueUrl: aws.queueUrls.waiting,
        ReceiptHandle: Messages[0]?.ReceiptHandle,
      }),
    );
  });

  it('answers a batch whose every record failed with all of them instead of throwing', async () => {
    const records = [sqsRecord('garbage'), sqsRecord('{"Records": 5}')];

    const response = await handler(sqsEvent(records), lambdaContext());

    expect(response).toEqual({ batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })) });
  });

  it('ingests a plain S3 event of a direct invocation and throws when a write must be retried', async () => {
    // prepare
    const first = await drop('incoming/direct.csv', 'primaryKey__\n9101\n');
    const second = await drop('incoming/direct-later.csv', 'primaryKey__\n9102\n');
    sim.failNext(1, { kind: 'status', status: 503, pathPrefix: '/api/v1/gatherings' });
    // Too little time left to repeat the upload within the invocation: the 503 is the caller's to retry.
    const nearlyOver = lambdaContext({}, DEFAULT_STEP_RETRY.reserveMs);

    // act
    const failed = handler(s3Event([second]), nearlyOver).catch((error: unknown) => error);
    const summary = await handler(
      s3Event([first, s3Record({ bucket: 'drops', key: 'incoming/folder/', size: 0 })]),
      lambdaContext(),
    );

    // assess
    expect(await failed).toMatchObject({ name: 'PdsServerError', retryable: true });
    expect(summary).toEqual({ imported: 1, failed: 0, duplicate: 0, skipped: 1 });
    await events();
  });

  it('imports an archive through 503, 429 and connection resets within one invocation', async () => {
    // prepare: the upload meets a 503 and a reset, the first import a 429 (Retry-After 1 s), a reset and a 503
    const zip = await zipOf({
      'a.csv': 'primaryKey__\n9401\n',
      'b.csv': 'primaryKey__\n9402\n',
      'c.csv': 'primaryKey__\n9403\n',
    });
    const record = sqsRecord(s3Event([await drop('incoming/bumpy.zip', zip)]));
    const gatheringsBefore = sim.state.gatherings.size;
    sim.requestLog.length = 0;
    sim.failNext(1, { kind: 'status', status: 503, retryAfterSeconds: 0, pathPrefix: '/api/v1/gatherings' });
    sim.failNext(1, { kind: 'reset', pathPrefix: '/api/v1/gatherings' });
    sim.failNext(1, { kind: 'status', status: 429, retryAfterSeconds: 1, pathPrefix: '/api/v1/imports' });
    sim.failNext(1, { kind: 'reset', pathPrefix: '/api/v1/imports' });
    sim.failNext(1, { kind: 'status', status: 503, retryAfterSeconds: 0, pathPrefix: '/api/v1/imports' });

    // act
    const response = await handler(sqsEvent([record]), lambdaContext());

    // assess: no delivery spent, every entry imported once, the whole object uploaded
    expect(response).toEqual({ batchItemFailures: [] });
    expect(sim.requestLog.filter((r) => [0, 429, 503].includes(r.status))).toHaveLength(5);
    const [completed] = (await events()) as Array<CloudEvent<'pds.ingest.completed'>>;
    expect(completed).toMatchObject({ type: 'pds.ingest.completed', data: { size: zip.length } });
    expect(sim.state.gatherings.size - gatheringsBefore).toBe(1);
    expect(
      sim.state.imports
        .filter((i) => i.gatheringKey === completed?.data.gatheringKey)
        .map((i) => i.path)
        .sort(),
    ).toEqual(['bumpy/a.csv', 'bumpy/b.csv', 'bumpy/c.csv']);
    expect(['9401', '9402', '9403'].every((key) => sim.state.items.has(key))).toBe(true);
  });

  it('imports every file exactly once through 503s, 429s and connection resets, losing nothing', async () => {
    // prepare: five CSVs and three ZIPs, two notifications delivered twice
    const records: Array<ReturnType<typeof s3Record>> = [];
    for (let i = 0; i < 5; i++) {
      records.push(await drop(`incoming/faults/file ${i}+.csv`, `primaryKey__,name\n77${i}0,Item ${i}\n`));
    }
    for (let i = 0; i < 3; i++) {
      const zip = await zipOf({
        'a.csv': `primaryKey__\n78${i}1\n`,
        'b.csv': `primaryKey__\n78${i}2\n`,
        'c.csv': `primaryKey__\n78${i}3\n`,
      });
      records.push(await drop(`incoming/faults/ärchive-${i}.zip`, zip));
    }
    const notifications = [...records, records[0], records[5]].map((record) =>
      JSON.stringify(s3Event([record as ReturnType<typeof s3Record>])),
    );
    for (const body of notifications) {
      await aws.sqs.send(new SendMessageCommand({ QueueUrl: aws.queueUrls.ingest, MessageBody: body }));
    }
    sim.requestLog.length = 0;
    sim.setFaults({
      rate: 0.25,
      statuses: [503, 429],
      resetRate: 0.15,
      retryAfterSeconds: 0,
      seed: 11,
      pathPrefix: '/api/v1/',
    });
    const completed = new Map<string, CloudEvent<'pds.ingest.completed'>>();
    const collect = async () => {
      for (const event of await events()) {
        expect(event.type).toBe('pds.ingest.completed');
        completed.set(event.id, event as CloudEvent<'pds.ingest.completed'>);
      }
      return completed.size === records.length && (await depth('ingest')) === 0;
    };

    // act
    try {
      await pump('ingest', collect);
    } finally {
      sim.setFaults(undefined);
    }

    // assess: the faults happened, every write completed once, every entry was imported once
    expect(
      sim.requestLog.filter((r) => r.status === 0 || r.status === 503 || r.status === 429).length,
    ).toBeGreaterThan(0);
    const keys = [...completed.values()].map((e) => e.data.key).sort();
    expect(keys).toEqual(records.map((r) => decodeURIComponent(r.s3.object.key.replaceAll('+', ' '))).sort());
    for (const event of completed.values()) {
      const imported = sim.state.imports
        .filter((i) => i.gatheringKey === event.data.gatheringKey)
        .map((i) => i.path)
        .sort();
      expect(imported).toEqual(event.data.entriesImported.map((e) => e.path).sort());
    }
    const pairs = sim.state.imports.map((i) => `${i.gatheringKey}/${i.path}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(await depth('ingest-dlq')).toBe(0);
  }, 120_000);

  it('moves a message whose ingest never succeeds to the dead-letter queue after maxReceiveCount receives', async () => {
    // prepare
    const record = await drop('incoming/never.csv', 'primaryKey__\n9901\n');
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: aws.queueUrls.doomed,
        MessageBody: JSON.stringify(s3Event([record])),
      }),
    );
    sim.setFaults({ rate: 1, statuses: [503], retryAfterSeconds: 0, pathPrefix: '/api/v1/gatherings' });

    // act
    let invocations = 0;
    try {
      invocations = await pump('doomed', async () => (await depth('doomed-dlq')) === 1, 20);
    } finally {
      sim.setFaults(undefined);
    }

    // assess
    expect(invocations).toBe(2);
    expect(await depth('doomed')).toBe(0);
    expect(await events()).toEqual([]);
    const [dead] = await receiveAll('doomed-dlq');
    expect(JSON.parse(dead ?? '{}')).toEqual(s3Event([record]));
  }, 60_000);
});
