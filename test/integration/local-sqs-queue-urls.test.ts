/**
 * Every queue URL an SQS answer carries through the local stack's endpoint points at that endpoint,
 * so a client that looks its queue up by name (GetQueueUrl, ListQueues, CreateQueue) and then follows
 * the URL, as the AWS SDK for JavaScript v3 does, reaches the queue. Checked with the SDK v3, boto3
 * and the AWS CLI (the last two where installed).
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import {
  CreateQueueCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../packages/local/src/emulator.ts';
import { createLocalResources, LOCAL_QUEUES } from '../../packages/local/src/resources.ts';
import { describeWithPython } from '../helpers/python.ts';

// The emulator runs in this process: the clients run beside it, never blocking it (no spawnSync).
const runFile = promisify(execFile);

let emulator: RunningEmulator;
let sqs: SQSClient;
const queueName = LOCAL_QUEUES.events.name;

const credentials = {
  AWS_ACCESS_KEY_ID: 'test',
  AWS_SECRET_ACCESS_KEY: 'test',
  AWS_DEFAULT_REGION: 'us-east-1',
};

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, region: 'us-east-1' });
  createLocalResources(emulator.server, emulator.endpoint);
  sqs = new SQSClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
});

afterAll(async () => {
  sqs?.destroy();
  await emulator?.stop();
});

describe('queue URLs through the local stack endpoint, SDK v3', () => {
  it('GetQueueUrl answers the endpoint address, and a message sent to it is received', async () => {
    // act
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'found by name' }));
    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));

    // assess
    expect(QueueUrl).toBe(`${emulator.endpoint}/000000000000/${queueName}`);
    expect(received.Messages?.map((message) => message.Body)).toEqual(['found by name']);
  });

  it('ListQueues answers only endpoint addresses', async () => {
    const { QueueUrls } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'pds-bridge-local' }));

    expect(QueueUrls?.length).toBeGreaterThan(3);
    for (const url of QueueUrls ?? [])
      expect(url.startsWith(`${emulator.endpoint}/000000000000/`)).toBe(true);
  });

  it('CreateQueue answers the endpoint address, for a new queue and for an existing one', async () => {
    const created = await sqs.send(new CreateQueueCommand({ QueueName: 'consumer-own-queue' }));
    const again = await sqs.send(new CreateQueueCommand({ QueueName: 'consumer-own-queue' }));

    expect(created.QueueUrl).toBe(`${emulator.endpoint}/000000000000/consumer-own-queue`);
    expect(again.QueueUrl).toBe(created.QueueUrl);
  });

  it('passes message bodies that hold a queue URL through unchanged', async () => {
    const inner = 'http://sqs.us-east-1.localhost:1234/000000000000/elsewhere';
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'consumer-own-queue' }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ QueueUrl: inner }) }));

    const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));

    expect(received.Messages?.[0]?.Body).toBe(JSON.stringify({ QueueUrl: inner }));
  });
});

describeWithPython('queue URLs through the local stack endpoint, boto3', () => {
  it('get_queue_url and list_queues answer the endpoint address, and the URL reaches the queue', async () => {
    const script = `
import json, sys, boto3
sqs = boto3.client('sqs', endpoint_url=sys.argv[1])
url = sqs.get_queue_url(QueueName=sys.argv[2])['QueueUrl']
urls = sqs.list_queues(QueueNamePrefix='pds-bridge-local')['QueueUrls']
sqs.send_message(QueueUrl=url, MessageBody='from boto3')
print(json.dumps({'url': url, 'urls': urls}))
`;
    const run = await runFile('python3', ['-c', script, emulator.endpoint, queueName], {
      env: { ...process.env, ...credentials },
      timeout: 30_000,
    });

    const answer = JSON.parse(run.stdout) as { url: string; urls: string[] };
    expect(answer.url).toBe(`${emulator.endpoint}/000000000000/${queueName}`);
    for (const url of answer.urls) expect(url.startsWith(`${emulator.endpoint}/`)).toBe(true);
  });
});

const awsCli = spawnSync('aws', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!awsCli)('queue URLs through the local stack endpoint, AWS CLI', () => {
  const aws = (...args: string[]) =>
    runFile('aws', [...args, '--endpoint-url', emulator.endpoint, '--output', 'json'], {
      env: { ...process.env, ...credentials },
      timeout: 30_000,
    });

  it('get-queue-url and list-queues answer the endpoint address', async () => {
    const byName = await aws('sqs', 'get-queue-url', '--queue-name', queueName);
    const listed = await aws('sqs', 'list-queues', '--queue-name-prefix', 'pds-bridge-local');

    expect(JSON.parse(byName.stdout).QueueUrl).toBe(`${emulator.endpoint}/000000000000/${queueName}`);
    const urls = JSON.parse(listed.stdout).QueueUrls as string[];
    for (const url of urls) expect(url.startsWith(`${emulator.endpoint}/`)).toBe(true);
  });
});
