/**
 * Nothing raw on a terminal, and the delivery log as an operator reads it, against a running local
 * stack: a webhook endpoint (a real server on 127.0.0.1) that answers with escape sequences, and a ZIP
 * whose member name carries them, pass through `pds bridge deliveries` and `pds bridge why` in text
 * mode shown as escapes; `--status failed` lists the endpoint's failed attempts while they are retried;
 * an unknown endpoint is an error, not an empty log.
 */
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../packages/cli/src/main.ts';
import { writeStackFile } from '../../packages/cli/src/stack-file.ts';
import { zipOf } from '../../packages/local/src/demo-files.ts';
import { type RunningLocalStack, startLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { capturingIo } from '../helpers/cli-io.ts';

/** A window-title change with a bell, a colour change, a C1 CSI clear-screen and a bidi override. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[31mRED\u009b2J\u202eevil';
/** What a terminal would act on: C0 (but line feed and tab), DEL, C1, bidi overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const ZIP_KEY = 'terminal/hostile-members.zip';

let stack: RunningLocalStack;
let endpoint: Server;
let endpointUrl = '';
let dir = '';
let stackFile = '';
let endpointId = '';

/** Runs `pds ARGS --stack-file …` in-process; a terminal's text unless `json`. */
async function pds(args: string[], json = false) {
  const run = capturingIo({ tty: !json });
  const code = await runCli([...args, '--stack-file', stackFile], run.io);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(500, { 'content-type': 'text/plain' }).end(HOSTILE));
  });
  endpoint.listen(0, '127.0.0.1');
  await once(endpoint, 'listening');
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hook`;
  stack = await startLocalStack({
    awsPort: 0,
    pdsPort: 0,
    apiPort: 0,
    messagingAssetsRateMs: 60_000,
    supplierReviewsRateMs: 60_000,
    logLevel: 'ERROR',
  });
  dir = await mkdtemp(join(tmpdir(), 'cli-terminal-'));
  stackFile = join(dir, 'stack.json');
  await writeStackFile(stackFile, stackFactsOf(stack));
  const created = await pds(['bridge', 'webhooks', 'create', endpointUrl, '--json'], true);
  expect(created.stderr).toBe('');
  endpointId = (JSON.parse(created.stdout) as { endpoint: { id: string } }).endpoint.id;
  // A ZIP whose member name carries the escape sequences: ingested, answered by an event the endpoint refuses.
  const zip = await zipOf([
    {
      name: `items${HOSTILE}.csv`,
      body: Buffer.from('primaryKey__,name\r\n0614141999972,Terminal Tea\r\n'),
    },
  ]);
  const s3 = new S3Client({
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
    forcePathStyle: true,
  });
  await s3.send(new PutObjectCommand({ Bucket: stack.buckets.drop, Key: ZIP_KEY, Body: zip }));
  s3.destroy();
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  endpoint?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Polls `pds bridge deliveries ENDPOINT --status failed --json` until it lists something. */
async function failedDeliveries(): Promise<Array<{ status: string; attempts: unknown[] }>> {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const run = await pds(['bridge', 'deliveries', endpointId, '--status', 'failed', '--json'], true);
    expect(run.stderr).toBe('');
    const records = JSON.parse(run.stdout) as Array<{ status: string; attempts: unknown[] }>;
    if (records.length > 0 || Date.now() > deadline) return records;
    await sleep(500);
  }
}

describe('pds text output against the local stack', { timeout: 90_000 }, () => {
  it("deliveries --status failed lists an endpoint's failed attempts while they are retried", async () => {
    // act
    const records = await failedDeliveries();

    // assess: the delivery is still being retried (pending), and the filter shows it
    expect(records.length).toBeGreaterThan(0);
    expect(records[0]?.status).toBe('pending');
    expect(records[0]?.attempts.length).toBeGreaterThan(0);
  });

  it("shows the endpoint's answer escaped in the delivery log, never raw", async () => {
    // prepare
    await failedDeliveries();

    // act
    const run = await pds(['bridge', 'deliveries', endpointId, '--status', 'failed']);

    // assess
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('\\u001b]0;owned\\u0007\\u001b[31mRED\\u009b2J\\u202eevil');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
  });

  it('shows ZIP member names escaped in why', async () => {
    // prepare: wait until the ingest recorded the entry
    const deadline = Date.now() + 45_000;
    let run = await pds(['bridge', 'why', `s3://${stack.buckets.drop}/${ZIP_KEY}`]);
    while (!run.stdout.includes('entry') && Date.now() < deadline) {
      await sleep(500);
      run = await pds(['bridge', 'why', `s3://${stack.buckets.drop}/${ZIP_KEY}`]);
    }

    // act + assess
    expect(run.stdout).toContain('items\\u001b]0;owned\\u0007');
    expect(run.stdout).not.toMatch(RAW_CONTROL);
  });

  it('JSON output keeps the same value, with every control character escaped', async () => {
    // act
    const run = await pds(['bridge', 'deliveries', endpointId, '--json'], true);

    // assess
    const records = JSON.parse(run.stdout) as Array<{ attempts: Array<{ response: string }> }>;
    expect(records.some((record) => record.attempts.some((a) => a.response.includes(HOSTILE)))).toBe(true);
    expect(run.stdout.replaceAll('\n', '')).not.toMatch(RAW_CONTROL);
  });

  it('an unknown endpoint is an error naming it, as for webhooks show', async () => {
    // act
    const deliveries = await pds(['bridge', 'deliveries', 'ep_nope']);
    const show = await pds(['bridge', 'webhooks', 'show', 'ep_nope']);

    // assess
    expect(deliveries.code).toBe(2);
    expect(deliveries.stderr).toContain('No webhook endpoint "ep_nope"');
    expect(deliveries.stdout).toBe('');
    expect(deliveries.code).toBe(show.code);
  });
});
