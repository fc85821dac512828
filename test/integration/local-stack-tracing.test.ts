/**
 * The trace context of the events the local stack emits: driven through its public interfaces (the S3
 * API for a drop, the HTTP API for a publication), the events received from its queues each carry a
 * valid W3C `traceparent`, one trace per unit of work, unsampled (nothing records traces locally).
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTraceparent } from '../../packages/bridge/src/core/index.ts';
import type { CloudEvent } from '../../packages/bridge/src/events/index.ts';
import { type RunningLocalStack, startLocalStack } from '../../packages/local/src/stack.ts';

const KEY = '0614141777799';
const CSV = `primaryKey__,name,category,netContent,netContentUnit\r\n${KEY},Traced Tea,BEVERAGE,1,LTR\r\n`;

let stack: RunningLocalStack;
let s3: S3Client;
let sqs: SQSClient;

beforeAll(async () => {
  stack = await startLocalStack({
    awsPort: 0,
    pdsPort: 0,
    apiPort: 0,
    messagingAssetsRateMs: 60_000,
    supplierReviewsRateMs: 60_000,
    log: () => {},
  });
  const config = {
    endpoint: stack.aws.endpoint,
    region: stack.aws.region,
    credentials: { accessKeyId: 'any', secretAccessKey: 'any' },
  };
  s3 = new S3Client({ ...config, forcePathStyle: true });
  sqs = new SQSClient(config);
}, 60_000);

afterAll(async () => {
  s3?.destroy();
  sqs?.destroy();
  await stack?.stop();
});

/** Receives (and deletes) from the events queue until an event matches. */
async function waitForEvent(matches: (event: CloudEvent) => boolean): Promise<CloudEvent> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.queues.events.url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
      }),
    );
    const messages = answer.Messages ?? [];
    if (messages.length === 0) continue;
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: stack.queues.events.url,
        Entries: messages.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle,
        })),
      }),
    );
    const found = messages.map((message) => JSON.parse(message.Body ?? '{}') as CloudEvent).find(matches);
    if (found) return found;
  }
  throw new Error('the expected event did not arrive within 60 s');
}

describe('the trace context of the events of the local stack', { timeout: 90_000 }, () => {
  it('gives the events of a drop and of a publication each a valid traceparent of its own trace', async () => {
    // act
    await s3.send(new PutObjectCommand({ Bucket: stack.buckets.drop, Key: 'traced/items.csv', Body: CSV }));
    const ingested = await waitForEvent((event) => event.type === 'pds.ingest.completed');
    const channels = (await (
      await fetch(`${stack.api.url}/communication-channels`, {
        headers: { authorization: `Bearer ${stack.api.token}` },
      })
    ).json()) as { channels: Array<{ id: string }> };
    const accepted = await fetch(`${stack.api.url}/publications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.api.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        primaryKeys: [KEY],
        destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channels.channels[0]?.id }],
      }),
    });
    const { publicationId } = (await accepted.json()) as { publicationId: string };
    const published = await waitForEvent(
      (event) => event.type === 'pds.publication.completed' && event.data.publicationId === publicationId,
    );

    // assess
    const traces = [ingested, published].map((event) => parseTraceparent(event.traceparent));
    expect(traces).toEqual([
      { traceId: expect.any(String), parentId: expect.any(String), sampled: false },
      { traceId: expect.any(String), parentId: expect.any(String), sampled: false },
    ]);
    expect(traces[0]?.traceId).not.toBe(traces[1]?.traceId);
  });
});
