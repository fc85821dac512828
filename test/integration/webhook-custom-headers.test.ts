/**
 * Custom headers per endpoint against a running local stack (docs/webhooks.md, "Custom headers"): set
 * through the API and through `pds bridge webhooks`, sent on every delivery to a receiver on
 * 127.0.0.1, and never shown: the views of the API and the CLI name the headers only, and no object
 * of the state bucket (endpoint records, kept events, the delivery log) holds a value. Headers the
 * bridge owns or that would break the request are refused (422) with an answer naming them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3StateStore } from '../../packages/bridge/src/state/s3/index.ts';
import { runCli } from '../../packages/cli/src/main.ts';
import { writeStackFile } from '../../packages/cli/src/stack-file.ts';
import type { RunningLocalStack } from '../../packages/local/src/stack.ts';
import { stackFactsOf } from '../../packages/local/src/stack-facts.ts';
import { capturingIo } from '../helpers/cli-io.ts';
import { startTestStack } from '../helpers/test-stack.ts';
import { startTestReceiver, type TestReceiver } from '../helpers/webhook-receiver.ts';

const API_KEY = 'api-key-value-7f3c9a';
const BEARER = 'Bearer cli-token-41d2e8';

let stack: RunningLocalStack;
let receiver: TestReceiver;
let s3: S3Client;
let dir = '';
let stackFile = '';

async function pds(args: string[], json = false) {
  const run = capturingIo({ tty: !json });
  const code = await runCli([...args, '--stack-file', stackFile], run.io);
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

async function api(method: string, path: string, body?: unknown) {
  const answer = await fetch(`${stack.api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.api.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, text: await answer.text() };
}

/** Every object of the state bucket as text, keys included. */
async function everyStateObject(): Promise<string> {
  const store = new S3StateStore({ client: s3, bucket: stack.buckets.state });
  const texts: string[] = [];
  for await (const key of store.list('')) texts.push(key, JSON.stringify((await store.get(key))?.value));
  return texts.join('\n');
}

beforeAll(async () => {
  receiver = await startTestReceiver();
  stack = await startTestStack({ messagingAssetsRateMs: 60_000, supplierReviewsRateMs: 60_000 });
  dir = await mkdtemp(join(tmpdir(), 'webhook-headers-'));
  stackFile = join(dir, 'stack.json');
  await writeStackFile(stackFile, stackFactsOf(stack));
  s3 = new S3Client({
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
    forcePathStyle: true,
  });
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  await stack?.stop();
  await receiver?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('custom webhook headers', { timeout: 90_000 }, () => {
  it('sends the headers set through the API and the CLI on every delivery, and shows only their names', async () => {
    // prepare: one endpoint through the API, one through the CLI
    const byApi = await api('POST', '/webhooks/endpoints', {
      url: `${receiver.url}/api`,
      headers: { 'X-Api-Key': API_KEY },
    });
    const byCli = await pds(
      [
        'bridge',
        'webhooks',
        'create',
        `${receiver.url}/cli`,
        '--header',
        `Authorization: ${BEARER}`,
        '--json',
      ],
      true,
    );

    // act: a drop, whose pds.ingest.completed goes to both endpoints
    await s3.send(
      new PutObjectCommand({
        Bucket: stack.buckets.drop,
        Key: 'headers/items.csv',
        Body: 'primaryKey__,name\r\n0614141999972,Header Tea\r\n',
      }),
    );
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline && new Set(receiver.received.map((each) => each.url)).size < 2)
      await sleep(250);

    // assess: each receiver path saw its own header, and only its own
    expect(byApi.status, byApi.text).toBe(201);
    expect(byCli.code, byCli.stderr).toBe(0);
    const apiRequest = receiver.received.find((each) => each.url === '/hook/api');
    const cliRequest = receiver.received.find((each) => each.url === '/hook/cli');
    expect(apiRequest?.headers['x-api-key']).toBe(API_KEY);
    expect(apiRequest?.headers.authorization).toBeUndefined();
    expect(cliRequest?.headers.authorization).toBe(BEARER);
    expect(cliRequest?.headers['x-api-key']).toBeUndefined();
    expect(cliRequest?.headers['webhook-signature']).toMatch(/^v1,/);
    // the views name the headers, never their values
    const listed = await api('GET', '/webhooks/endpoints');
    const cliList = await pds(['bridge', 'webhooks', 'list']);
    const views = [byApi.text, byCli.stdout, listed.text, cliList.stdout].join('\n');
    expect(listed.text).toContain('"headerNames":["x-api-key"]');
    expect(cliList.stdout).toContain('headers authorization');
    expect(views).not.toContain(API_KEY);
    expect(views).not.toContain(BEARER);
    // nothing in the state bucket (records, kept events, the delivery log) holds a value
    const state = await everyStateObject();
    expect(state).toContain('webhooks/deliveries/');
    expect(state).not.toContain(API_KEY);
    expect(state).not.toContain('cli-token-41d2e8');
  });

  it('refuses headers the bridge sets, that break HTTP or carry a line break, naming the problem', async () => {
    // act
    const owned = await api('POST', '/webhooks/endpoints', {
      url: `${receiver.url}/x`,
      headers: { 'Webhook-Signature': 'v1,forged' },
    });
    const framing = await api('POST', '/webhooks/endpoints', {
      url: `${receiver.url}/x`,
      headers: { 'Content-Length': '1' },
    });
    const split = await api('POST', '/webhooks/endpoints', {
      url: `${receiver.url}/x`,
      headers: { 'X-Api-Key': 'a\r\nX-Injected: yes' },
    });
    const badName = await pds([
      'bridge',
      'webhooks',
      'create',
      `${receiver.url}/x`,
      '--header',
      'Bad Name: v',
    ]);

    // assess
    expect(owned.status, owned.text).toBe(422);
    expect(owned.text).toContain('is set by the bridge or by HTTP itself');
    expect(framing.status).toBe(422);
    expect(framing.text).toContain('Content-Length');
    expect(split.status).toBe(422);
    expect(split.text).toContain('no line breaks');
    expect(split.text).not.toContain('X-Injected');
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('is not a valid HTTP header name');
  });
});
