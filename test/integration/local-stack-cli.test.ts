/**
 * `npm start` as a command (packages/local/bin/local-stack.mjs in a child process): the demo passes end to end,
 * SIGINT stops everything and exits 0, a data directory keeps the state across a restart, and a port
 * that is taken is named. Every port is 0 (free ones), found through the connection file the command writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StackFacts } from '../../packages/cli/src/stack-file.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FREE_PORTS = ['--aws-port', '0', '--pds-port', '0', '--api-port', '0'];

let dir: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'local-stack-cli-'));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** A running `npm start` with everything it printed so far. */
interface StackProcess {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function startCommand(args: string[]): StackProcess {
  const child = spawn(process.execPath, [join(ROOT, 'packages/local/bin/local-stack.mjs'), ...args], {
    cwd: ROOT,
  });
  children.add(child);
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exit = once(child, 'exit').then(([code]) => {
    children.delete(child);
    return code as number | null;
  });
  return { child, output: () => output, exit };
}

/** Waits (polling) for the connection file of a stack that is starting; fails if the command ends first. */
async function factsOf(stack: StackProcess, stackFile: string): Promise<StackFacts> {
  const deadline = Date.now() + 60_000;
  let ended = false;
  void stack.exit.then(() => {
    ended = true;
  });
  while (Date.now() < deadline && !ended) {
    const text = await readFile(stackFile, 'utf8').catch(() => undefined);
    if (text && stack.output().includes('local stack is running')) return JSON.parse(text) as StackFacts;
    await sleep(100);
  }
  throw new Error(`the stack did not start: ${stack.output()}`);
}

function clientsFor(facts: StackFacts) {
  const config = {
    endpoint: facts.aws.endpoint,
    region: facts.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
  };
  return { s3: new S3Client({ ...config, forcePathStyle: true }), sqs: new SQSClient(config) };
}

/** Looks at the events queue without taking anything: received messages become visible again at once. */
async function peekIngestEvent(sqs: SQSClient, facts: StackFacts, key: string) {
  const queueUrl = facts.eventQueues.find((queue) => queue.name === 'pds-bridge-local-events')?.url;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 1,
      }),
    );
    const event = (answer.Messages ?? [])
      .map(
        (message) => JSON.parse(message.Body ?? '{}') as { id: string; type: string; data: { key?: string } },
      )
      .find((candidate) => candidate.type === 'pds.ingest.completed' && candidate.data.key === key);
    if (event) return event;
  }
  throw new Error(`no pds.ingest.completed for ${key}`);
}

describe('npm start', { timeout: 180_000 }, () => {
  it('--demo runs the whole pass and exits 0 with every step ticked off', async () => {
    // act
    const demo = startCommand(['--demo', ...FREE_PORTS, '--stack-file', join(dir, 'demo.json')]);
    const timer = setTimeout(() => demo.child.kill('SIGKILL'), 150_000);
    const code = await demo.exit;
    clearTimeout(timer);

    // assess
    const output = demo.output();
    expect(code, output).toBe(0);
    expect(output).not.toContain('✗');
    for (const step of [
      /✓ drop demo-items-\d+\.csv and demo-items-\d+\.zip into s3:\/\/pds-bridge-local-drop/,
      /✓ ingest completed for both files/,
      /✓ the 6 imported items exist in the PDS/,
      /✓ the API refuses a request without the token \(401\)/,
      /✓ communication channels listed through the API/,
      /✓ publication of 6 items to \S+, \S+ and \S+ accepted \(202\)/,
      /✓ publication completed/,
      /✓ supplier reviews received for all 6 items/,
      /✓ messaging assets of the reviews received/,
      /✓ confirmations through the API: \S+ SYNCHRONISED, \S+ REVIEW with its corrective action, \S+ REFUSED_BY_DATA_POOL with its reason/,
      /✓ the same through pds bridge confirmations/,
    ]) {
      expect(output).toMatch(step);
    }
    expect(output).toMatch(/pds\.supplier-review\.received {2}item\/0614141\d{6}/);
    expect(output).toMatch(/at gdsn-pl: REFUSED_BY_DATA_POOL because GDSN\.1091: GTIN \d{14} already exists/);
    expect(output).toMatch(/Demo passed: every step happened in [\d.]+ s\./);
    // readable: events under their steps (a few of each type, the rest counted), the confirmations once
    expect(output.trim().split('\n').length).toBeLessThan(90);
    expect(output.match(/SYNCHRONISED":6/g)).toHaveLength(2);
    expect(output).toMatch(/the same 18 entries and states as the API/);
    expect(output).toMatch(/ {4}… and \d+ more pds\.[a-z.-]+/);
  });

  it('stops cleanly on SIGINT (exit 0) and keeps objects and events in --data-dir across a restart', async () => {
    // prepare
    const dataDir = join(dir, 'data');
    const stackFile = join(dir, 'restart.json');
    const key = 'kept/items.csv';
    const first = startCommand([...FREE_PORTS, '--data-dir', dataDir, '--stack-file', stackFile]);
    const before = await factsOf(first, stackFile);
    const beforeClients = clientsFor(before);
    await beforeClients.s3.send(
      new PutObjectCommand({
        Bucket: before.buckets.drop,
        Key: key,
        Body: 'primaryKey__,name\r\n0614141888881,Kept Item\r\n',
      }),
    );
    const ingested = await peekIngestEvent(beforeClients.sqs, before, key);
    beforeClients.s3.destroy();
    beforeClients.sqs.destroy();

    // act
    first.child.kill('SIGINT');
    const firstExit = await first.exit;
    const fileAfterStop = await stat(stackFile).then(
      () => 'still there',
      () => 'removed',
    );
    const second = startCommand([...FREE_PORTS, '--data-dir', dataDir, '--stack-file', stackFile]);
    const after = await factsOf(second, stackFile);
    const afterClients = clientsFor(after);
    const listed = await afterClients.s3.send(new ListObjectsV2Command({ Bucket: after.buckets.drop }));
    const keptEvent = await peekIngestEvent(afterClients.sqs, after, key);
    afterClients.s3.destroy();
    afterClients.sqs.destroy();
    second.child.kill('SIGTERM');
    const secondExit = await second.exit;

    // assess
    expect(firstExit, first.output()).toBe(0);
    expect(first.output()).toContain('Stopped.');
    // The handlers log at WARN and print no metrics: the terminal shows the stack's own lines.
    expect(first.output()).not.toMatch(/"level":"INFO"|"_aws":/);
    expect(fileAfterStop).toBe('removed');
    expect((listed.Contents ?? []).map((object) => object.Key)).toContain(key);
    expect(keptEvent.id).toBe(ingested.id);
    expect(secondExit, second.output()).toBe(0);
  });

  it('names the port that is taken and exits 1', async () => {
    // prepare
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as { port: number }).port;

    // act
    const taken = startCommand([
      '--aws-port',
      '0',
      '--pds-port',
      '0',
      '--api-port',
      String(port),
      '--stack-file',
      join(dir, 'taken.json'),
    ]);
    const code = await taken.exit;
    blocker.close();

    // assess
    expect(code).toBe(1);
    expect(taken.output()).toContain(
      `local-stack: could not start: port ${port} for the HTTP API is already in use; stop whatever listens there or choose another port with --api-port`,
    );
  });
});
