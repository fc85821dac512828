/**
 * One transfer of a dropped object to the PDS simulator, in a process of its own, bundled as Lambda
 * runs it; prints the time taken and this process's peak RSS as one JSON line. Spawned by bench/ingest.ts
 * with the environment of the ingest function (emulator endpoints, PDS_*, STATE_BUCKET, EVENTS_QUEUE_URL).
 *
 *   node worker.mjs ingest BUCKET KEY ETAG SIZE SEQUENCER   the ingest handler, fed one SQS record
 *   node worker.mjs reference BUCKET KEY                     a plain GetObject piped into the same client upload
 */
import type { Readable } from 'node:stream';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handler } from '../../packages/bridge/functions/ingest.ts';
import { createS3Client } from '../../packages/bridge/src/lambda/aws-clients.ts';
import { createPdsClient } from '../../packages/bridge/src/pds/index.ts';

const [mode, bucket, key, etag, size, sequencer] = process.argv.slice(2);
if (!bucket || !key || (mode !== 'ingest' && mode !== 'reference')) {
  throw new Error('usage: worker ingest|reference BUCKET KEY [ETAG SIZE SEQUENCER]');
}

async function viaHandler(): Promise<void> {
  const notification = {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        eventName: 'ObjectCreated:CompleteMultipartUpload',
        s3: { bucket: { name: bucket }, object: { key, size: Number(size), eTag: etag, sequencer } },
      },
    ],
  };
  const event = {
    Records: [
      { messageId: `bench-${sequencer}`, body: JSON.stringify(notification), eventSource: 'aws:sqs' },
    ],
  } as unknown as SQSEvent;
  const context = {
    awsRequestId: `bench-${sequencer}`,
    functionName: 'bench-ingest',
    getRemainingTimeInMillis: () => 900_000,
  } as unknown as Context;
  const response = (await handler(event, context)) as SQSBatchResponse;
  if (response.batchItemFailures.length > 0) throw new Error('the ingest handler reported a failure');
}

async function viaPlainGet(): Promise<void> {
  const s3 = createS3Client();
  const pds = createPdsClient({
    baseUrl: process.env.PDS_BASE_URL ?? '',
    credentials: { username: process.env.PDS_USERNAME ?? '', password: process.env.PDS_PASSWORD ?? '' },
  });
  const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  await pds.uploadGathering({
    stream: object.Body as Readable,
    size: object.ContentLength ?? 0,
    fileName: key?.slice(key.lastIndexOf('/') + 1) ?? 'object',
    contentType: 'application/octet-stream',
  });
  await pds.close();
  s3.destroy();
}

const baselineRssMiB = process.memoryUsage().rss / 1024 / 1024;
const started = process.hrtime.bigint();
await (mode === 'ingest' ? viaHandler() : viaPlainGet());
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(
  `${JSON.stringify({ seconds, baselineRssMiB, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`,
);
process.exit(0);
