/**
 * The operators' commands (`pds bridge why|status|redrive|replay`) against a running local stack,
 * found through its stack file as `npm start` writes it: a file that imported, one the PDS refused,
 * one overwritten before its notification was handled (superseded), a dead-letter queue with
 * messages redriven, and a replay that sends a finished ingest's event again with its first id.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/main.ts';
import { writeStackFile } from '../../packages/cli/src/stack-file.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { s3Event, s3Record, s3TestEvent } from '../helpers/s3-events.ts';
import { startTestStack } from '../helpers/test-stack.ts';

interface Event {
  id: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
}

const CSV = 'primaryKey__,name,category\r\n0614141999996,Ops Tea,BEVERAGE\r\n';
const CSV_2 = 'primaryKey__,name,category\r\n0614141999989,Ops Rice,FOOD\r\n';

let stack: RunningLocalStack;
let s3: S3Client;
let sqs: SQSClient;
let dir: string;
let stackFile: string;
const received: Event[] = [];

beforeAll(async () => {
  stack = await startTestStack();
  const config = {
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
  };
  s3 = new S3Client({ ...config, forcePathStyle: true });
  sqs = new SQSClient(config);
  dir = await mkdtemp(join(tmpdir(), 'local-stack-ops-'));
  stackFile = join(dir, 'stack.json');
  await writeStackFile(stackFile, stackFactsOf(stack));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  sqs?.destroy();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Runs `pds ARGS --stack-file …` in-process; JSON output unless `tty`. */
async function pds(args: string[], tty = false): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  const code = await runCli([...args, '--stack-file', stackFile], {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: {},
    stdoutIsTTY: tty,
    stderrIsTTY: false,
    stderrColumns: 80,
  });
  return { code, stdout: out, stderr: err };
}

async function pdsJson<T>(args: string[]): Promise<T> {
  const run = await pds(args);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** Receives (and deletes) events from the events queue until one matches or time runs out. */
async function waitForEvent(
  what: string,
  matches: (event: Event) => boolean,
  timeoutMs = 60_000,
): Promise<Event> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = received.find(matches);
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `no ${what} within ${timeoutMs} ms; received ${received.map((e) => `${e.type} ${e.subject}`).join(', ')}`,
      );
    }
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.queues.events.url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) continue;
    for (const message of messages) received.push(JSON.parse(message.Body ?? '{}') as Event);
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: stack.queues.events.url,
        Entries: messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
  }
}

/** The event of one messaging asset, read from (and left on) the messaging-asset event queue. */
async function waitForAssetEvent(id: number): Promise<Event> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.queues.messagingAssetEvents.url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 1,
      }),
    );
    for (const message of answer.Messages ?? []) {
      const event = JSON.parse(message.Body ?? '{}') as Event;
      if (event.subject === `messaging-asset/${id}`) return event;
    }
  }
  throw new Error(`no event of messaging asset ${id}`);
}

async function visible(queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
}

async function drop(key: string, body: string): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket: stack.buckets.drop, Key: key, Body: body }));
}

const subjectOf = (key: string) => `s3://${stack.buckets.drop}/${key}`;

interface WhyWrite {
  state: string;
  code?: string;
  reason?: string;
  attempts: number;
  owner: string;
  gatheringKey?: string;
  entries: Array<{ path: string; importAccepted: boolean }>;
  events: Array<{ type: string; id: string }>;
  next: string;
}

describe('pds bridge against the local stack', { timeout: 120_000 }, () => {
  let completed: Event;
  let published: Event;

  it('why: an imported file shows its gathering, its imported entries and the id of the event it sent', async () => {
    // prepare
    await drop('ops/items.csv', CSV);
    completed = await waitForEvent('completed', (e) => e.subject === subjectOf('ops/items.csv'));

    // act
    const answer = await pdsJson<{ writes: WhyWrite[] }>(['bridge', 'why', subjectOf('ops/items.csv')]);

    // assess
    expect(answer.writes).toHaveLength(1);
    const [write] = answer.writes as [WhyWrite];
    expect(write).toMatchObject({
      state: 'import-accepted',
      attempts: 1,
      gatheringKey: completed.data.gatheringKey,
      entries: [{ path: 'items.csv', importAccepted: true }],
      events: [{ type: 'pds.ingest.completed', id: completed.id }],
    });
    expect(write.owner).not.toBe('');
    expect(write.next).toMatch(/the PDS accepted the import of every entry/);
    expect(write.next).toMatch(/Whether items were created is not reported/);
    expect(completed.data.outcome).toBe('import-accepted');
  });

  it('why: a file the PDS refused shows the failure code, the reason, the failed event and what to do', async () => {
    // prepare: not a ZIP archive, although its name says so
    await drop('ops/broken.zip', 'this is not a zip archive');
    const failed = await waitForEvent('failed', (e) => e.subject === subjectOf('ops/broken.zip'));

    // act
    const answer = await pdsJson<{ writes: WhyWrite[] }>(['bridge', 'why', subjectOf('ops/broken.zip')]);
    const onTerminal = await pds(['bridge', 'why', subjectOf('ops/broken.zip')], true);

    // assess
    const [write] = answer.writes as [WhyWrite];
    expect(failed.data.code).toBe('rejected');
    expect(write).toMatchObject({
      state: 'failed',
      code: 'rejected',
      events: [{ type: 'pds.ingest.failed', id: failed.id }],
    });
    expect(write.reason).toContain('not a readable ZIP archive');
    expect(write.next).toContain('upload the file again');
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.stdout).toContain('FAILED (rejected)');
    expect(onTerminal.stdout).toContain(failed.id);
  });

  it('why: a notification of a write that was overwritten before it was read is superseded; the newer write imported', async () => {
    // prepare: the object now holds CSV_2; a notification of its earlier content (CSV) arrives late
    await drop('ops/overwritten.csv', CSV_2);
    const newer = await waitForEvent(
      'newer completed',
      (e) => e.subject === subjectOf('ops/overwritten.csv'),
    );
    const staleEtag = createHash('md5').update(CSV).digest('hex');
    const late = s3Event([
      s3Record({ bucket: stack.buckets.drop, key: 'ops/overwritten.csv', size: CSV.length, etag: staleEtag }),
    ]);
    await sqs.send(
      new SendMessageCommand({ QueueUrl: stack.queues.ingest.url, MessageBody: JSON.stringify(late) }),
    );
    const superseded = await waitForEvent(
      'superseded',
      (e) => e.type === 'pds.ingest.failed' && e.subject === subjectOf('ops/overwritten.csv'),
    );

    // act
    const answer = await pdsJson<{ writes: WhyWrite[] }>(['bridge', 'why', subjectOf('ops/overwritten.csv')]);

    // assess
    expect(superseded.data.code).toBe('superseded');
    expect(answer.writes.map((write) => write.state).sort()).toEqual(['import-accepted', 'superseded']);
    const stale = answer.writes.find((write) => write.state === 'superseded') as WhyWrite;
    expect(stale.events).toEqual([{ type: 'pds.ingest.failed', id: superseded.id }]);
    expect(stale.next).toContain('newer upload');
    const imported = answer.writes.find((write) => write.state === 'import-accepted') as WhyWrite;
    expect(imported.events[0]?.id).toBe(newer.id);
  });

  it('why: accepts a key in the URL-encoded form S3 notifications show, and says that form matched', async () => {
    // prepare
    const key = 'ops/my items +plus ü.csv';
    await drop(key, CSV);
    await waitForEvent('completed', (e) => e.subject === subjectOf(key));
    const encoded = subjectOf('ops/my+items+%2Bplus+%C3%BC.csv');

    // act
    const answer = await pdsJson<{ key: string; keyMatched: string; writes: WhyWrite[] }>([
      'bridge',
      'why',
      encoded,
    ]);
    const onTerminal = await pds(['bridge', 'why', encoded], true);

    // assess
    expect(answer).toMatchObject({ key, keyMatched: 'url-decoded' });
    expect(answer.writes.map((write) => write.state)).toEqual(['import-accepted']);
    expect(onTerminal.stdout).toContain('the key as decoded from the URL-encoded form given');
  });

  it('why: a key the bridge never saw says so and where to look; a bad subject is a usage error', async () => {
    const answer = await pdsJson<{ writes: unknown[]; next: string }>([
      'bridge',
      'why',
      subjectOf('ops/never.csv'),
    ]);
    const bad = await pds(['bridge', 'why', 'not an id!']);

    expect(answer.writes).toEqual([]);
    expect(answer.next).toContain('saw no write');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('s3://BUCKET/KEY');
  });

  it('confirmations: an unknown --state exits 2 naming the valid states; any case is taken; reindexing changes nothing twice', async () => {
    const bogus = await pds(['bridge', 'confirmations', '--state', 'BOGUS']);
    const lower = await pds(['bridge', 'confirmations', '--state', 'review,overdue', '--json']);
    await pds(['bridge', 'reindex-confirmations', '--json']);
    const again = await pdsJson<{ markersWritten: number }>(['bridge', 'reindex-confirmations', '--json']);

    expect(bogus.code).toBe(2);
    expect(bogus.stdout).toBe('');
    expect(bogus.stderr).toContain(
      'state BOGUS is not a state of the confirmation ledger; use one or more of ACCEPTED, AWAITING, OVERDUE, RECEIVED, REFUSED_BY_DATA_POOL, REJECTED, REVIEW, REVIEW_WARNING, SYNCHRONISED',
    );
    expect(lower.code).toBe(0);
    expect(JSON.parse(lower.stdout).query.states).toEqual(['REVIEW', 'OVERDUE']);
    expect(again.markersWritten).toBe(0);
  });

  it("status: the pollers' last successful runs, the checkpoint, the day's ingests and every queue with its DLQ", async () => {
    // prepare: the stack polls every second; wait for both pollers to have finished a run
    const deadline = Date.now() + 30_000;
    let status: {
      pollers: Array<{ name: string; lastSuccessAt?: string; lastRun?: { ok: boolean } }>;
      checkpoint?: { emitted: number; ageMs: number };
      ingests: { window: { finished: number }; inFlight: unknown[] };
      queues: Array<{
        name: string;
        exists: boolean;
        visible?: number;
        deadLetter?: { name: string; exists: boolean };
      }>;
      watchList: { keys: number };
      queueAges: { source: string; available: boolean };
      audit: unknown;
    };
    do {
      status = await pdsJson(['bridge', 'status']);
    } while (status.pollers.some((poller) => !poller.lastSuccessAt) && Date.now() < deadline);

    // assess
    expect(status.pollers.map((poller) => poller.name)).toEqual([
      'poll-messaging-assets',
      'poll-supplier-reviews',
    ]);
    for (const poller of status.pollers) {
      expect(poller.lastRun?.ok).toBe(true);
      expect(Date.parse(poller.lastSuccessAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(status.checkpoint?.ageMs).toBeGreaterThanOrEqual(0);
    expect(status.ingests.window.finished).toBeGreaterThanOrEqual(4);
    expect(status.watchList.keys).toBeGreaterThanOrEqual(0);
    const ingest = status.queues.find((queue) => queue.name === 'pds-bridge-local-ingest');
    expect(ingest).toMatchObject({
      exists: true,
      deadLetter: { name: 'pds-bridge-local-ingest-dlq', exists: true },
    });
    // The schedule's DLQ exists only in deployed stacks.
    expect(
      status.queues.find((queue) => queue.name === 'pds-bridge-local-poller-schedule-dlq'),
    ).toMatchObject({
      exists: false,
      deadLetter: { exists: false },
    });
    const onTerminal = await pds(['bridge', 'status'], true);
    expect(onTerminal.stdout).toContain('poll-messaging-assets');
    expect(onTerminal.stdout).toContain('pds-bridge-local-ingest-dlq');
    // What the local stack lacks by design reads as such, not as an error.
    expect(onTerminal.stdout).toMatch(/pds-bridge-local-poller-schedule-dlq\s+deployed stacks only/);
    expect(onTerminal.stdout).toMatch(/pds-bridge-local-poller-failed-runs\s+deployed stacks only/);
    expect(onTerminal.stdout).not.toContain('missing');
    // The emulator measures no queue ages and the local stack schedules no audit: both said, none invented.
    expect(status.queueAges).toEqual({
      source: 'age: not available locally (the local emulator keeps no CloudWatch metrics)',
      available: false,
    });
    expect(status.audit).toBeNull();
    expect(onTerminal.stdout).toContain('age: not available locally');
    expect(onTerminal.stdout).toContain('audit: never ran');
  });

  it('redrive: the dry run counts and explains the DLQ and moves nothing; --apply moves it back and the ingest handles it', async () => {
    // prepare: a notification (twice) of an object that is not there, and S3's test event
    const dlq = stack.deadLetterQueues.ingest?.url as string;
    const missing = JSON.stringify(
      s3Event([s3Record({ bucket: stack.buckets.drop, key: 'ops/missing.csv', size: 10 })]),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: missing }));
    await sqs.send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: missing }));
    await sqs.send(
      new SendMessageCommand({ QueueUrl: dlq, MessageBody: JSON.stringify(s3TestEvent(stack.buckets.drop)) }),
    );

    // act
    const dryRun = await pdsJson<{
      count: number;
      oldest?: string;
      reasons: Array<{ reason: string; count: number }>;
      applied: boolean;
    }>(['bridge', 'redrive', 'ingest']);
    const stillThere = await visible(dlq);
    const applied = await pdsJson<{ applied: boolean; moved: { method: string; moved: number } }>([
      'bridge',
      'redrive',
      'ingest',
      '--apply',
      '--rate',
      '5',
    ]);
    const gone = await waitForEvent('gone', (e) => e.subject === subjectOf('ops/missing.csv'));

    // assess
    expect(dryRun.count).toBe(3);
    expect(dryRun.applied).toBe(false);
    expect(Date.parse(dryRun.oldest ?? '')).toBeGreaterThan(Date.now() - 120_000);
    expect(dryRun.reasons).toEqual([
      expect.objectContaining({ count: 2, reason: expect.stringContaining('no progress record') }),
      expect.objectContaining({ count: 1, reason: 'S3 test event' }),
    ]);
    expect(stillThere).toBe(3);
    expect(applied).toMatchObject({ applied: true, moved: { method: 'copy', moved: 3 } });
    expect(await visible(dlq)).toBe(0);
    expect(gone.data.code).toBe('gone');
    const scheduleDlq = await pds(['bridge', 'redrive', 'poller-schedule']);
    const unknownQueue = await pds(['bridge', 'redrive', 'nonsense']);
    expect(scheduleDlq.code).toBe(2);
    expect(scheduleDlq.stderr).toContain('exists only in deployed stacks');
    expect(unknownQueue.code).toBe(2);
    expect(unknownQueue.stderr).toContain('use one of ingest, publications');
    const why = await pdsJson<{ writes: WhyWrite[] }>(['bridge', 'why', subjectOf('ops/missing.csv')]);
    expect(why.writes[0]).toMatchObject({ state: 'failed', code: 'gone' });
  });

  it('why: a publication shows its status, items and the id of its completed event; a messaging asset where it stands', async () => {
    // prepare: a publication through the HTTP API, imported keys to an organization
    const accepted = await fetch(`${stack.api.url}/publications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        primaryKeys: ['0614141999996'],
        destinations: [{ destinationType: 'IN_PLATFORM', destinationId: 'org-ops' }],
      }),
    });
    const { publicationId } = (await accepted.json()) as { publicationId: string };
    published = await waitForEvent('publication', (e) => e.subject === `publication/${publicationId}`);
    const asset = await waitForAssetEvent(2);

    // act
    const publication = await pdsJson<Record<string, unknown>>(['bridge', 'why', publicationId]);
    const assetAnswer = await pdsJson<Record<string, unknown>>(['bridge', 'why', 'messaging-asset/2']);
    const unknownAsset = await pdsJson<Record<string, unknown>>(['bridge', 'why', '999999']);

    // assess
    expect(published.type).toBe('pds.publication.completed');
    expect(publication).toMatchObject({
      kind: 'publication',
      found: true,
      status: 'published',
      primaryKeys: 1,
      events: [{ type: 'pds.publication.completed', id: published.id }],
    });
    expect(assetAnswer).toMatchObject({ state: 'emitted', events: [{ id: asset.id }] });
    expect(unknownAsset).toMatchObject({ state: 'not-seen-yet', events: [] });
  });

  it('replay: lists what finished in the window, then sends the events again with their first ids', async () => {
    // prepare: every event so far was consumed
    await waitForEvent('nothing', () => false, 1500).catch(() => undefined);
    received.length = 0;

    // act
    const dryRun = await pdsJson<{ events: Event[]; applied: boolean }>([
      'bridge',
      'replay',
      '--since',
      '10m',
    ]);
    const queuedAfterDryRun = await visible(stack.queues.events.url);
    const onlyIngests = await pdsJson<{ events: Event[] }>([
      'bridge',
      'replay',
      '--since',
      '10m',
      '--kind',
      'ingest',
    ]);
    const applied = await pdsJson<{ sent: number }>([
      'bridge',
      'replay',
      '--since',
      '10m',
      '--apply',
      '--rate',
      '50',
    ]);
    const again = await waitForEvent('replayed completed', (e) => e.id === completed.id);
    const publicationAgain = await waitForEvent('replayed publication', (e) => e.id === published.id);

    // assess
    expect(dryRun.applied).toBe(false);
    expect(dryRun.events.map((e) => e.id)).toEqual(expect.arrayContaining([completed.id, published.id]));
    expect(queuedAfterDryRun).toBe(0);
    expect(onlyIngests.events.map((e) => e.type).every((type) => type.startsWith('pds.ingest.'))).toBe(true);
    expect(applied.sent).toBe(dryRun.events.length);
    expect(again).toMatchObject({
      type: 'pds.ingest.completed',
      subject: completed.subject,
      data: completed.data,
    });
    expect(publicationAgain).toMatchObject({ type: 'pds.publication.completed', data: published.data });
  });
});
