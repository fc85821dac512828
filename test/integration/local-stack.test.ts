/**
 * The local stack end to end, driven only through its public interfaces: objects are put into the
 * drop bucket with the S3 API, publications go through the HTTP API with the bearer token, events
 * are received from the event queues with the SQS API, and `npm run drop` / `npm run events` run as
 * the commands they are, against the connection file the stack's command line writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStackFile } from '../../packages/cli/src/stack-file.ts';
import { type RunningLocalStack, startLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { DEMO_PRIMARY_KEYS } from '../../packages/simulator/src/index.ts';

interface Event {
  id: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
}

const ROOT = join(import.meta.dirname, '..', '..');
const CSV_KEY = 'incoming/Q1 items+Ä.csv';
const KEYS = ['0614141777775', '0614141777782'];
const CSV = `primaryKey__,name,category,netContent,netContentUnit\r\n${KEYS[0]},Test Tea,BEVERAGE,1,LTR\r\n${KEYS[1]},Test Rice,FOOD,500,GRM\r\n`;

let stack: RunningLocalStack;
let s3: S3Client;
let sqs: SQSClient;
let dir: string;
const activity: string[] = [];
const received: Event[] = [];

beforeAll(async () => {
  stack = await startLocalStack({
    awsPort: 0,
    pdsPort: 0,
    apiPort: 0,
    messagingAssetsRateMs: 1000,
    supplierReviewsRateMs: 1000,
    reviewDelayMs: 200,
    log: (line) => activity.push(line),
  });
  const config = {
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
  };
  s3 = new S3Client({ ...config, forcePathStyle: true });
  sqs = new SQSClient(config);
  dir = await mkdtemp(join(tmpdir(), 'local-stack-'));
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  sqs?.destroy();
  await stack?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Receives from every event queue (deleting what it read) until an event matches or time runs out. */
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
        `no ${what} within ${timeoutMs} ms; received ${received.map((event) => event.type).join(', ')}; stack said: ${activity.join(' | ')}`,
      );
    }
    const queues = [
      stack.queues.events,
      stack.queues.messagingAssetEvents,
      stack.queues.supplierReviewEvents,
    ];
    await Promise.all(
      queues.map(async (queue) => {
        const answer = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queue.url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        const messages = answer.Messages ?? [];
        if (messages.length === 0) return;
        for (const message of messages) received.push(JSON.parse(message.Body ?? '{}') as Event);
        await sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: messages.map((message, index) => ({
              Id: String(index),
              ReceiptHandle: message.ReceiptHandle,
            })),
          }),
        );
      }),
    );
  }
}

/** Calls the HTTP API with the stack's token, another token, or (null) none. */
function api(path: string, init: RequestInit = {}, token: string | null = stack.api.token) {
  const headers = new Headers(init.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${stack.api.url}${path}`, { ...init, headers });
}

describe('the local stack', { timeout: 90_000 }, () => {
  it('turns an object put into the drop bucket into a pds.ingest.completed event', async () => {
    // act
    await s3.send(
      new PutObjectCommand({ Bucket: stack.buckets.drop, Key: CSV_KEY, Body: CSV, ContentType: 'text/csv' }),
    );
    const event = await waitForEvent(
      'pds.ingest.completed',
      (candidate) => candidate.subject === `s3://${stack.buckets.drop}/${CSV_KEY}`,
    );

    // assess
    expect(event.type).toBe('pds.ingest.completed');
    expect(event.data).toMatchObject({
      bucket: stack.buckets.drop,
      key: CSV_KEY,
      size: Buffer.byteLength(CSV),
      entriesImported: [expect.objectContaining({ path: 'Q1 items+Ä.csv' })],
    });
  });

  it('publishes through the HTTP API, reports the publication and then the reviews of its items', async () => {
    // prepare
    const channels = (await (await api('/communication-channels')).json()) as {
      channels: Array<{ id: string }>;
    };
    const channelId = channels.channels[0]?.id ?? '';

    // act
    const accepted = await api('/publications', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        primaryKeys: KEYS,
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channelId }],
      }),
    });
    const { publicationId } = (await accepted.json()) as { publicationId: string };
    const completed = await waitForEvent(
      'pds.publication.completed',
      (event) => event.type === 'pds.publication.completed' && event.data.publicationId === publicationId,
    );
    const reviews = await Promise.all(
      KEYS.map((key) =>
        waitForEvent(
          `a review of ${key}`,
          (event) => event.type === 'pds.supplier-review.received' && event.subject === `item/${key}`,
        ),
      ),
    );
    const status = (await (await api(`/publications/${publicationId}`)).json()) as { status: string };

    // assess
    expect(accepted.status).toBe(202);
    expect(completed.data).toMatchObject({ numberOfItems: 2, primaryKeys: KEYS });
    expect(reviews.map((review) => (review.data.review as { channelId: string }).channelId)).toEqual([
      channelId,
      channelId,
    ]);
    expect(status.status).toBe('published');
  });

  it('shows every confirmation state of an item published to every demo channel, and REVIEW turns SYNCHRONISED after a republication', async () => {
    // prepare
    const channels = (await (await api('/communication-channels')).json()) as {
      channels: Array<{ id: string }>;
    };
    const publish = async (channelIds: string[]) => {
      const accepted = await api('/publications', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          // Valid in every respect: the synchronising recipients synchronise it.
          primaryKeys: [DEMO_PRIMARY_KEYS.water],
          destinations: channelIds.map((destinationId) => ({
            destinationType: 'COMMUNICATION_CHANNEL',
            destinationId,
          })),
        }),
      });
      return ((await accepted.json()) as { publicationId: string }).publicationId;
    };
    type Answer = { entries: Array<{ channelId: string; state: string; correctiveActions: unknown[] }> };
    const statesOf = async (publicationId: string, expected: Record<string, string>) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const answer = (await (await api(`/publications/${publicationId}/confirmations`)).json()) as Answer;
        const states = Object.fromEntries(answer.entries.map((entry) => [entry.channelId, entry.state]));
        if (
          JSON.stringify(states, Object.keys(expected).sort()) ===
            JSON.stringify(expected, Object.keys(expected).sort()) ||
          Date.now() > deadline
        ) {
          return { states, answer };
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const everyState = {
      'gdsn-at': 'REVIEW',
      'gdsn-be': 'ACCEPTED',
      'gdsn-ch': 'AWAITING',
      'gdsn-de': 'SYNCHRONISED',
      'gdsn-dk': 'SYNCHRONISED',
      'gdsn-fr': 'REJECTED',
      'gdsn-nl': 'SYNCHRONISED',
      'gdsn-pl': 'REFUSED_BY_DATA_POOL',
      'gdsn-se': 'AWAITING',
    };

    // act
    const first = await statesOf(await publish(channels.channels.map((channel) => channel.id)), everyState);
    const again = await statesOf(await publish(['gdsn-at']), { 'gdsn-at': 'SYNCHRONISED' });

    // assess
    expect(first.states).toEqual(everyState);
    expect(
      first.answer.entries.find((entry) => entry.channelId === 'gdsn-at')?.correctiveActions,
    ).toHaveLength(1);
    expect(again.states).toEqual({ 'gdsn-at': 'SYNCHRONISED' });
    await waitForEvent(
      'pds.confirmation.changed to REJECTED',
      (event) => event.type === 'pds.confirmation.changed' && event.data.state === 'REJECTED',
    );
  });

  it('refuses API requests without the bearer token or with a wrong one (401), but not /health', async () => {
    const missing = await api('/communication-channels', {}, null);
    const wrong = await api('/publications', { method: 'POST', body: '{}' }, 'not-the-token-but-long-enough');
    const health = await api('/health', {}, null);

    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(wrong.status).toBe(401);
    expect(health.status).toBe(200);
  });

  it('takes a large file from npm run drop in parts and npm run events prints its ingest event', async () => {
    // prepare
    const stackFile = join(dir, 'stack.json');
    await writeStackFile(stackFile, stackFactsOf(stack));
    const file = join(dir, 'large notes.txt');
    await writeFile(file, Buffer.alloc(9 * 1024 * 1024 + 17, 'pds-bridge local stack\n'));

    // act
    const drop = await run('scripts/drop.ts', ['--stack-file', stackFile, '--prefix', 'big/', file]);
    const events = spawn(
      process.execPath,
      [join(ROOT, 'scripts/events.ts'), '--stack-file', stackFile, '--json'],
      { cwd: ROOT },
    );
    const line = await lineMatching(
      events,
      (text) => text.includes('"pds.ingest.completed"') && text.includes('big/large notes.txt'),
    );
    events.kill('SIGINT');
    const [exitCode] = (await once(events, 'exit')) as [number];

    // assess
    expect(drop.code).toBe(0);
    expect(drop.stdout).toContain(
      `→ s3://${stack.buckets.drop}/big/large notes.txt (${9 * 1024 * 1024 + 17} bytes, 2 parts)`,
    );
    expect(JSON.parse(line).data).toMatchObject({ key: 'big/large notes.txt', size: 9 * 1024 * 1024 + 17 });
    expect(exitCode).toBe(0);
  });
});

/** Runs a script with Node and collects its output. */
async function run(
  script: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(ROOT, script), ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

/** The first stdout line of a running child that matches; fails after 60 s. */
async function lineMatching(child: ChildProcess, matches: (line: string) => boolean): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    for await (const line of lines) if (matches(line)) return line;
    throw new Error('npm run events ended without printing the ingest event');
  } finally {
    clearTimeout(timer);
  }
}
