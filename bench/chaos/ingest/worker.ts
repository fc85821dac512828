/**
 * One Lambda-like container of the ingest function for the chaos run: polls the ingest queue as the SQS
 * event source does (batches of 4, like deploy/ingest.yml), calls the real handler with a Lambda-like
 * context, deletes the records that succeeded and leaves the failed ones to come back. Spawned by
 * bench/chaos/ingest.ts with the function's environment plus the CHAOS_* variables below; the supervisor
 * may SIGKILL it at any moment, as a crash or a timeout would end a Lambda container.
 *
 * It tells the supervisor over IPC when an invocation starts (with the object keys of its batch) and
 * ends, and appends to CHAOS_LOG_FILE, synchronously so a kill loses nothing already written, one JSON
 * line per import the PDS answered and per conditional write of an ingest progress record. The tally
 * pairs them to measure the crash window.
 */
import { randomUUID } from 'node:crypto';
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import http, { type ClientRequest, type IncomingMessage } from 'node:http';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { toSqsRecord } from '../../../packages/local/src/sqs-event-source.ts';

/** What a worker tells the supervisor. */
export type WorkerMessage =
  | { type: 'invoke-start'; invocation: string; keys: string[] }
  | { type: 'invoke-end'; invocation: string; failed: number; records: number };

/** One line of CHAOS_LOG_FILE. */
export type WorkerLogLine =
  | { t: number; ev: 'import'; status: number; gatheringKey: string; path: string }
  | { t: number; ev: 'put'; key: string; status: number };

const BATCH_SIZE = 4;
const env = {
  queueUrl: required('CHAOS_QUEUE_URL'),
  queueArn: required('CHAOS_QUEUE_ARN'),
  logFile: required('CHAOS_LOG_FILE'),
  stateBucket: required('STATE_BUCKET'),
  functionTimeoutMs: Number(required('CHAOS_FUNCTION_TIMEOUT_MS')),
};

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set (bench/chaos/ingest.ts sets it)`);
  return value;
}

function log(line: WorkerLogLine): void {
  appendFileSync(env.logFile, `${JSON.stringify(line)}\n`);
}

/** Bodies of the import requests, as the PDS client hands them to node:http. */
const importBodies = new WeakMap<ClientRequest, string>();

const isImport = (request: ClientRequest) =>
  request.method === 'POST' && request.path.startsWith('/api/v1/imports');

/**
 * Imports as the PDS client sees them answered. node:http publishes every answer it reads, but not
 * the bodies sent: those are taken as the transport passes them to `end` (one buffer for a JSON body),
 * from a wrapper of `http.request`, the property the transport calls (as X-Ray's tracing does).
 */
function watchImports(): void {
  const request = http.request.bind(http) as (...args: unknown[]) => ClientRequest;
  http.request = ((...args: unknown[]) => {
    const sent = request(...args);
    if (isImport(sent)) {
      const end = sent.end.bind(sent) as (...endArgs: unknown[]) => ClientRequest;
      sent.end = ((...endArgs: unknown[]) => {
        const [chunk] = endArgs;
        if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
          importBodies.set(sent, Buffer.from(chunk).toString());
        }
        return end(...endArgs);
      }) as ClientRequest['end'];
    }
    return sent;
  }) as typeof http.request;
  subscribe('http.client.response.finish', (message) => {
    const { request: answered, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (!isImport(answered)) return;
    const text = importBodies.get(answered) ?? '';
    const { gatheringKey = '', path = '' } = (text ? JSON.parse(text) : {}) as Record<string, string>;
    log({ t: Date.now(), ev: 'import', status: response.statusCode ?? 0, gatheringKey, path });
  });
}

/** Conditional writes of progress records as the AWS SDK (node:http) sees them answered. */
function watchProgressWrites(): void {
  const prefix = `/${env.stateBucket}/ingest/`;
  subscribe('http.client.response.finish', (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (request.method !== 'PUT' || !request.path.startsWith(prefix)) return;
    if (request.getHeader('if-match') === undefined && request.getHeader('if-none-match') === undefined)
      return;
    const key = decodeURIComponent(request.path.slice(prefix.length - 'ingest/'.length).split('?')[0] ?? '');
    log({ t: Date.now(), ev: 'put', key, status: response.statusCode ?? 0 });
  });
}

function lambdaContext(invocation: string): Context {
  const deadline = Date.now() + env.functionTimeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'pds-bridge-chaos-ingest',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:pds-bridge-chaos-ingest',
    memoryLimitInMB: '1024',
    awsRequestId: invocation,
    logGroupName: '/aws/lambda/pds-bridge-chaos-ingest',
    logStreamName: `chaos/${process.pid}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The decoded object keys a notification body names (for the supervisor's kill log). */
function keysOf(body: string): string[] {
  try {
    const records = (JSON.parse(body) as { Records?: Array<{ s3?: { object?: { key?: string } } }> }).Records;
    return (records ?? []).map((r) => decodeURIComponent((r.s3?.object?.key ?? '').replaceAll('+', ' ')));
  } catch {
    return [];
  }
}

/**
 * After the handler, as Lambda's event source does: delete what succeeded. Failed records are left
 * alone: the handler already set when each comes back (its back-off, or the end of a live claim).
 */
async function settle(sqs: SQSClient, records: SQSRecord[], response: SQSBatchResponse): Promise<void> {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  const succeeded = records.filter((record) => !failed.has(record.messageId));
  if (succeeded.length === 0) return;
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: env.queueUrl,
      Entries: succeeded.map((record, i) => ({ Id: String(i), ReceiptHandle: record.receiptHandle })),
    }),
  );
}

async function poll(): Promise<void> {
  // Loaded after the channels are subscribed, with the environment the supervisor gave this process.
  const { handler } = await import('../../../packages/bridge/functions/ingest.ts');
  const sqs = new SQSClient({});
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: env.queueUrl,
        MaxNumberOfMessages: BATCH_SIZE,
        WaitTimeSeconds: 1,
        AttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) continue;
    const records = Messages.map((message) =>
      toSqsRecord(message, env.queueArn, process.env.AWS_REGION ?? 'us-east-1'),
    );
    const invocation = randomUUID();
    const keys = records.flatMap((record) => keysOf(record.body));
    process.send?.({ type: 'invoke-start', invocation, keys } satisfies WorkerMessage);
    let response: SQSBatchResponse;
    try {
      response = (await handler(
        { Records: records } as SQSEvent,
        lambdaContext(invocation),
      )) as SQSBatchResponse;
    } catch {
      // Lambda retries the whole batch when the function throws.
      response = { batchItemFailures: records.map((record) => ({ itemIdentifier: record.messageId })) };
    }
    await settle(sqs, records, response);
    process.send?.({
      type: 'invoke-end',
      invocation,
      failed: response.batchItemFailures.length,
      records: records.length,
    } satisfies WorkerMessage);
  }
}

// The supervisor going away closes the IPC channel: never outlive it.
process.on('disconnect', () => process.exit(0));
watchImports();
watchProgressWrites();
await poll();
