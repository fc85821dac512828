/**
 * `npm run drop` against a stack's emulator: a file the stack's filters skip, one the simulator
 * creates no items from, or one the ingest's content check fails, is uploaded with a warning on
 * stderr saying so. And `npm run events -- --count N` against the same emulator takes only the
 * events it prints.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqsClient } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { emulatorClientConfig, type StackFacts, writeStackFile } from '../../packages/cli/src/stack-file.ts';
import { runDropCli } from '../../packages/local/src/drop-cli.ts';
import { type RunningEmulator, startEmulator } from '../../packages/local/src/emulator.ts';
import { runEventsCli } from '../../packages/local/src/events-cli.ts';
import { createLocalResources, LOCAL_BUCKETS, type LocalQueue } from '../../packages/local/src/resources.ts';

let emulator: RunningEmulator;
let eventQueue: LocalQueue;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, region: 'us-east-1' });
  eventQueue = createLocalResources(emulator.server, emulator.endpoint).queues.events;
  dir = await mkdtemp(join(tmpdir(), 'local-drop-'));
});

afterAll(async () => {
  await emulator?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function stackFile(ingest: StackFacts['ingest']): Promise<string> {
  const path = join(dir, `stack-${Math.random().toString(36).slice(2)}.json`);
  await writeStackFile(path, {
    version: 1,
    pid: process.pid,
    startedAt: new Date().toISOString(),
    aws: { endpoint: emulator.endpoint, region: 'us-east-1', accessKeyId: 'test', secretAccessKey: 'test' },
    buckets: { ...LOCAL_BUCKETS },
    eventQueues: [{ name: eventQueue.name, url: eventQueue.url }],
    api: { url: 'http://127.0.0.1:1', token: 't' },
    pds: { url: 'http://127.0.0.1:1', username: 'demo', simulated: true },
    ...(ingest ? { ingest } : {}),
  });
  return path;
}

function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
}

describe('npm run drop', () => {
  it('warns that a file outside INGEST_PREFIX will not be ingested, and uploads it all the same', async () => {
    const file = join(dir, 'items.csv');
    await writeFile(file, 'primaryKey__\n1\n');
    const drop = captured();

    const code = await runDropCli(
      ['--stack-file', await stackFile({ prefix: 'incoming/', suffixes: [] }), file],
      drop.io,
    );

    expect(code).toBe(0);
    expect(drop.err).toEqual([
      'drop: warning: items.csv is outside INGEST_PREFIX "incoming/": the stack will not ingest it (put it under incoming/: --prefix incoming/)',
    ]);
    expect(drop.out[0]).toMatch(/^uploaded .*items\.csv → s3:\/\/pds-bridge-local-drop\/items\.csv/);
  });

  it('tells that the simulator creates no items from a .pdf, and stays quiet for a .csv under the prefix', async () => {
    const pdf = join(dir, 'sheet.pdf');
    const csv = join(dir, 'more.csv');
    await writeFile(pdf, 'not really a pdf');
    await writeFile(csv, 'primaryKey__\n2\n');
    const drop = captured();

    const code = await runDropCli(['--stack-file', await stackFile(undefined), pdf, csv], drop.io);

    expect(code).toBe(0);
    expect(drop.err).toEqual([
      expect.stringMatching(
        /^drop: warning: sheet\.pdf: the simulator creates items only from \.csv and \.json files/,
      ),
    ]);
    expect(drop.out).toHaveLength(3);
  });

  it('tells that a CSV without the primaryKey__ column creates no items', async () => {
    const csv = join(dir, 'no-key.csv');
    await writeFile(csv, 'gtin,name\n1,Water\n');
    const drop = captured();

    const code = await runDropCli(['--stack-file', await stackFile(undefined), csv], drop.io);

    expect(code).toBe(0);
    expect(drop.err).toEqual([
      expect.stringContaining('no-key.csv has no primaryKey__ column in its header'),
    ]);
  });
});

describe('npm run drop, what the ingest will find', () => {
  it('warns that a JSON file that is not well-formed will fail as unreadable, naming where', async () => {
    const json = join(dir, 'broken.json');
    await writeFile(json, '[{"primaryKey__":"1"},\n{"primaryKey__":"2"]\n');
    const drop = captured();

    const code = await runDropCli(['--stack-file', await stackFile(undefined), json], drop.io);

    expect(code).toBe(0);
    expect(drop.err).toEqual([
      expect.stringMatching(
        /^drop: warning: broken\.json cannot be imported: line 2 \(offset 42\): a "\]" that closes no array; the ingest will fail it \(pds\.ingest\.failed, code unreadable\)/,
      ),
    ]);
  });

  it('puts a file under --prefix incoming as incoming/FILE', async () => {
    const csv = join(dir, 'prefixed.csv');
    await writeFile(csv, 'primaryKey__\n1\n');
    const drop = captured();

    await runDropCli(['--stack-file', await stackFile(undefined), '--prefix', 'incoming', csv], drop.io);

    expect(drop.out[0]).toMatch(/→ s3:\/\/pds-bridge-local-drop\/incoming\/prefixed\.csv /);
  });
});

describe('npm run events -- --count', () => {
  it('takes only the events it prints: the rest can be received at once', async () => {
    const queueUrl = eventQueue.url;
    const sqs = createSqsClient(
      emulatorClientConfig({
        endpoint: emulator.endpoint,
        region: 'us-east-1',
        accessKeyId: 'test',
        secretAccessKey: 'test',
      }),
    );
    try {
      for (const id of ['e1', 'e2', 'e3']) {
        await sqs.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: JSON.stringify({
              specversion: '1.0',
              id,
              type: 'pds.ingest.completed',
              source: 'test',
              data: {},
            }),
          }),
        );
      }
      const events = captured();

      const code = await runEventsCli(
        ['--stack-file', await stackFile(undefined), '--count', '1', '--json'],
        events.io,
        false,
      );

      expect(code).toBe(0);
      expect(events.out).toHaveLength(1);
      const left = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      expect(left.Messages ?? []).toHaveLength(2);
    } finally {
      sqs.destroy();
    }
  });
});
