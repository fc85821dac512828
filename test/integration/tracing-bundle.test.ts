/**
 * X-Ray tracing as Lambda runs it: the bundled api function in a plain Node process with the
 * environment Lambda gives a function with active tracing, its X-Ray daemon a UDP socket of this
 * test, its PDS the simulator and its S3 and SQS the emulator. Outside Lambda (every other test, the
 * local stack) the tracer is not even loaded.
 */
import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../packages/simulator/src/index.ts';
import { functionBuildOptions } from '../../scripts/build.ts';
import { apiEvent, bodyOf, postPublicationEvent, publicationBody } from '../helpers/apigw.ts';
import { startAwsEmulator } from '../helpers/fauxqs.ts';

const run = promisify(execFile);

const ROOT = '1-6760a2b1-5f3c9e8d7a6b5c4d3e2f1a0b';
const PARENT = '53995c3f42cd8ad8';
/** The W3C form of the invocation's X-Ray header. */
const TRACEPARENT = '00-6760a2b15f3c9e8d7a6b5c4d3e2f1a0b-53995c3f42cd8ad8-01';

interface Subsegment {
  name: string;
  trace_id?: string;
  namespace?: string;
  annotations?: Record<string, unknown>;
  http?: { request?: { method?: string; url?: string }; response?: { status?: number } };
  aws?: { operation?: string };
  subsegments?: Subsegment[];
}

let bundleDir = '';

beforeAll(async () => {
  // Built here, not in dist/: other test files rebuild dist/ concurrently.
  bundleDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-tracing-bundle-'));
  await build({ ...functionBuildOptions('api'), outdir: bundleDir, logLevel: 'error' });
}, 120_000);

afterAll(async () => {
  if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
});

/** A UDP socket standing in for the X-Ray daemon; collects every (sub)segment document sent to it. */
async function startDaemon(): Promise<{ socket: Socket; address: string; documents: Subsegment[] }> {
  const socket = createSocket('udp4');
  const documents: Subsegment[] = [];
  socket.on('message', (message) => {
    // `{"format":"json","version":1}\n{…document…}`
    const [, document] = message.toString('utf8').split('\n', 2);
    if (document) documents.push(JSON.parse(document) as Subsegment);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return { socket, address: `127.0.0.1:${socket.address().port}`, documents };
}

/** Runs the api bundle, as Lambda would, with one invocation per event; returns their results. */
async function invokeBundle(
  events: APIGatewayProxyEventV2[],
  env: Record<string, string>,
): Promise<Array<{ statusCode: number; body: string }>> {
  const script = [
    `const { handler } = await import(${JSON.stringify(pathToFileURL(path.join(bundleDir, 'index.mjs')).href)});`,
    'const results = [];',
    `for (const event of ${JSON.stringify(events)}) results.push(await handler(event, { functionName: 'api', awsRequestId: 'r1' }));`,
    'process.stdout.write(JSON.stringify(results));',
    // Subsegments go out over UDP as they close; give the last sends a moment before exiting.
    'setTimeout(() => process.exit(0), 300);',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      STATE_BUCKET: 'state',
      AWS_REGION: 'eu-central-1',
      API_AUTH_MODE: 'iam',
      PDS_USERNAME: 'demo',
      PDS_PASSWORD: 'demo',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      ...env,
    },
  });
  return JSON.parse(stdout) as Array<{ statusCode: number; body: string }>;
}

const flatten = (documents: Subsegment[]): Subsegment[] =>
  documents.flatMap((document) => [document, ...flatten(document.subsegments ?? [])]);

describe('X-Ray tracing of a bundled function', () => {
  it('records the invocation, its S3, SQS and PDS calls, and hands its trace to the queued work', async () => {
    // prepare
    const simulator = await startSimulator();
    const aws = await startAwsEmulator({ buckets: ['state'], queues: ['publications'] });
    const daemon = await startDaemon();
    try {
      // act
      const [result, channels] = await invokeBundle(
        [postPublicationEvent(publicationBody()), apiEvent({ path: '/communication-channels', iam: true })],
        {
          ...aws.env,
          PDS_BASE_URL: simulator.url,
          PUBLICATION_QUEUE_URL: aws.queueUrls.publications as string,
          // What Lambda sets for a function with active tracing.
          AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
          AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
          LAMBDA_TASK_ROOT: bundleDir,
          _HANDLER: 'index.handler',
          _X_AMZN_TRACE_ID: `Root=${ROOT};Parent=${PARENT};Sampled=1`,
          AWS_XRAY_DAEMON_ADDRESS: daemon.address,
          AWS_XRAY_CONTEXT_MISSING: 'LOG_ERROR',
        },
      );
      const received = await aws.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: aws.queueUrls.publications,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );
      await expect.poll(() => flatten(daemon.documents).map((one) => one.name)).toContain('S3');

      // assess
      expect(result?.statusCode).toBe(202);
      expect(channels?.statusCode).toBe(200);
      const segments = flatten(daemon.documents);
      const invocations = segments.filter((one) => one.name === '## index.handler');
      expect(invocations.map((one) => one.trace_id)).toEqual([ROOT, ROOT]);
      expect(invocations.map((one) => one.annotations)).toEqual([
        { ColdStart: true, Service: 'pds-bridge' },
        { ColdStart: false, Service: 'pds-bridge' },
      ]);
      expect(segments.filter((one) => one.namespace === 'aws').map((one) => one.name)).toEqual(
        expect.arrayContaining(['S3', 'SQS']),
      );
      const sqs = segments.find((one) => one.name === 'SQS');
      expect(sqs?.aws?.operation).toBe('SendMessage');
      const pds = segments.filter((one) => one.name === '127.0.0.1' && one.http?.request?.method);
      expect(pds.length).toBeGreaterThan(0);
      // Tracer names a request by its host and keeps method, URL (without the port) and status.
      expect(pds[0]?.http?.request).toEqual({
        method: 'GET',
        url: 'http://127.0.0.1/api/v1/communicationchannels',
      });
      expect(pds[0]?.http?.response?.status).toBe(200);
      // The worker continues this trace: the publication message carries its traceparent.
      const [message] = received.Messages ?? [];
      expect(message?.MessageAttributes?.traceparent?.StringValue).toBe(TRACEPARENT);
      expect(message?.Body).toContain(
        (bodyOf(result as { statusCode: number; body: string }) as { publicationId: string }).publicationId,
      );
    } finally {
      daemon.socket.close();
      await aws.close();
      await simulator.close();
    }
  }, 60_000);

  it('loads no tracer outside Lambda: nothing reaches the daemon, the work is done', async () => {
    // prepare
    const simulator = await startSimulator();
    const aws = await startAwsEmulator({ buckets: ['state'], queues: ['publications'] });
    const daemon = await startDaemon();
    try {
      // act
      const [result] = await invokeBundle([postPublicationEvent(publicationBody())], {
        ...aws.env,
        PDS_BASE_URL: simulator.url,
        PUBLICATION_QUEUE_URL: aws.queueUrls.publications as string,
        AWS_XRAY_DAEMON_ADDRESS: daemon.address,
      });
      const received = await aws.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: aws.queueUrls.publications,
          WaitTimeSeconds: 1,
          MessageAttributeNames: ['All'],
        }),
      );

      // assess
      expect(result?.statusCode).toBe(202);
      expect(daemon.documents).toEqual([]);
      const traceparent = received.Messages?.[0]?.MessageAttributes?.traceparent?.StringValue;
      expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    } finally {
      daemon.socket.close();
      await aws.close();
      await simulator.close();
    }
  }, 60_000);
});
