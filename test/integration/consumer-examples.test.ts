/**
 * The consumer examples of docs/consumers.md, run as a consumer runs them, against the local
 * emulator (fauxqs): the bridge's own publisher writes events to the queue, one of them too large to
 * send inline (claim-checked into S3), plus a message no bridge wrote. Each example reads the same
 * queue and must print exactly the bridge's events, the large one whole, and report the stranger.
 *
 * - TypeScript (examples/consumer-ts/poll.ts): copied into a consumer project where pds-bridge is
 *   installed from its build, so `pds-bridge/consumer` resolves through package.json exports.
 * - Python (examples/consumer-python/consumer.py): python3 and boto3 only, following the pointer by
 *   hand as the AWS extended client does.
 *
 * And the other direction: a message sent the way the Python extended client sends it, read by the kit.
 */
import { spawn } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { DeleteMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { createEventReader, s3PayloadFetcher } from '../../packages/consumer/src/index.ts';
import { consumerTestEvents, publishAsBridge, receiveMessages } from '../helpers/consumer-events.ts';
import { type ConsumerProject, createConsumerProject } from '../helpers/consumer-package.ts';
import { type AwsEmulator, startAwsEmulator } from '../helpers/fauxqs.ts';
import { describeWithPython } from '../helpers/python.ts';

const root = path.resolve(import.meta.dirname, '../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What both examples print for an event: one JSON line. */
function expectedLine(event: CloudEvent): Record<string, unknown> {
  return {
    id: event.id,
    type: event.type,
    subject: event.subject,
    known: true,
    dataBytes: Buffer.byteLength(JSON.stringify(event.data)),
    ...(event.type === 'pds.ingest.failed' ? { code: event.data.code } : {}),
  };
}

/**
 * What amazon-sqs-python-extended-client's send_message does with `large_payload_support` and
 * `always_through_s3`: the body stored under a random UUID key, the message body the json.dumps of
 * [pointer class, {s3BucketName, s3Key}], ExtendedPayloadSize (Number) holding the body's UTF-8 size.
 */
const PYTHON_EXTENDED_CLIENT_SEND = `
import json, os, uuid, boto3
from botocore.config import Config
body = os.environ["BODY"]
encoded = body.encode("utf-8")
key = str(uuid.uuid4())
boto3.client("s3", config=Config(s3={"addressing_style": "path"})).put_object(Body=encoded, Bucket=os.environ["BUCKET"], Key=key)
pointer = json.dumps(["software.amazon.payloadoffloading.PayloadS3Pointer", {"s3BucketName": os.environ["BUCKET"], "s3Key": key}])
boto3.client("sqs").send_message(
    QueueUrl=os.environ["QUEUE_URL"],
    MessageBody=pointer,
    MessageAttributes={"ExtendedPayloadSize": {"DataType": "Number", "StringValue": str(len(encoded))}},
)
`;

function printedEvents(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

describe('the consumer examples, reading the queue the bridge writes to', () => {
  let aws: AwsEmulator;
  let queueUrl: string;
  const { small, large } = consumerTestEvents();
  const events = [...small, large];
  const expected = events.map(expectedLine).sort((a, b) => String(a.id).localeCompare(String(b.id)));

  /** The bridge publishes the events (the large one claim-checked) and a stranger writes a message. */
  async function fillQueue(): Promise<void> {
    await publishAsBridge(aws, queueUrl, 'bridge-state', events);
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'hello from elsewhere' }));
  }

  function consumerEnv(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      ...aws.env,
      AWS_DEFAULT_REGION: aws.region,
      QUEUE_URL: queueUrl,
      STATE_BUCKET: 'bridge-state',
      MAX_EMPTY_RECEIVES: '1',
    };
  }

  beforeAll(async () => {
    // The stranger's message must not come back within one example's run.
    aws = await startAwsEmulator({
      buckets: ['bridge-state'],
      queues: [{ name: 'events', visibilityTimeout: 600 }],
    });
    queueUrl = aws.queueUrls.events ?? '';
  });

  afterAll(async () => {
    await aws?.close();
  });

  describe('TypeScript, with the built pds-bridge/consumer', () => {
    let project: ConsumerProject;

    beforeAll(async () => {
      project = await createConsumerProject();
      await copyFile(
        path.join(root, 'examples', 'consumer-ts', 'poll.ts'),
        path.join(project.dir, 'poll.ts'),
      );
    }, 180_000);

    afterAll(async () => {
      await project?.remove();
    });

    it('prints every event the bridge sent, the claim-checked one whole, and reports the stranger', async () => {
      // prepare
      await fillQueue();

      // act: Node strips the types of a file outside node_modules
      const result = await run(process.execPath, ['poll.ts'], { cwd: project.dir, env: consumerEnv() });

      // assess
      expect(result.code).toBe(0);
      expect(printedEvents(result.stdout)).toEqual(expected);
      expect(result.stderr).toMatch(/not-json: SQS message .*: the body is not JSON/);
    }, 90_000);
  });

  describeWithPython('a message written by a Python extended client, read by the kit', () => {
    it('follows the pointer the way amazon-sqs-python-extended-client writes it', async () => {
      // prepare: its send path, step by step (the package itself is not installable here)
      const [event] = small;
      if (!event) throw new Error('no small event');
      const result = await run('python3', ['-c', PYTHON_EXTENDED_CLIENT_SEND], {
        cwd: root,
        env: { ...consumerEnv(), QUEUE_URL: queueUrl, BUCKET: 'bridge-state', BODY: JSON.stringify(event) },
      });
      expect(result.stderr).toBe('');
      const [message] = await receiveMessages(aws, queueUrl, 1);
      const reader = createEventReader({
        payloads: s3PayloadFetcher(aws.s3),
        // The extended client stores bodies at the bucket's root: this reader trusts that prefix.
        claimCheck: { buckets: ['bridge-state'], prefix: '' },
      });

      // act
      const read = await reader.read(message ?? {});

      // assess
      expect(message?.Body).toMatch(
        /^\["software\.amazon\.payloadoffloading\.PayloadS3Pointer", \{"s3BucketName": "bridge-state", "s3Key": "[0-9a-f-]{36}"\}\]$/,
      );
      expect(read).toMatchObject({ id: event.id, type: event.type, data: event.data });
      await aws.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message?.ReceiptHandle }),
      );
    }, 90_000);
  });

  describeWithPython('Python, with boto3 only', () => {
    it('prints every event the bridge sent, the claim-checked one whole, and reports the stranger', async () => {
      // prepare
      await fillQueue();

      // act
      const result = await run('python3', [path.join(root, 'examples', 'consumer-python', 'consumer.py')], {
        cwd: root,
        env: consumerEnv(),
      });

      // assess
      expect(result.stderr).toMatch(/is not a pds-bridge event: body is not JSON/);
      expect(result.code).toBe(0);
      expect(printedEvents(result.stdout)).toEqual(expected);
    }, 90_000);

    it('without a region says which variable to set instead of a NoRegionError stack trace', async () => {
      const { AWS_REGION: _region, AWS_DEFAULT_REGION: _default, ...env } = consumerEnv();

      const result = await run('python3', [path.join(root, 'examples', 'consumer-python', 'consumer.py')], {
        cwd: root,
        env: { ...env, AWS_CONFIG_FILE: '/nonexistent' },
      });

      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        "Set AWS_DEFAULT_REGION (or a region in your AWS profile): the queue's region, us-east-1 for the local stack (docs/consumers.md shows both commands).",
      );
    });
  });
});
