/**
 * What one AWS SDK request costs the pollers in CPU, beside one PDS request: GetObject and PutObject
 * of a 2 KB state document and SendMessageBatch of ten 3 KB events against fauxqs, through the
 * bridge's own client factories (packages/bridge/src/lambda/aws-clients.ts), with their middleware
 * resolved once per command class (as shipped) and on every request (`cacheMiddleware: false`), in
 * turns; and the PDS client's GET of a messaging asset from the simulator. fauxqs and the simulator
 * run in child processes, so the CPU time is this process's: the client's work per request.
 *
 *   node bench/sdk.ts [--requests 1000] [--rounds 3] [--concurrency 8]
 */
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { mapLimit } from '../packages/bridge/src/core/index.ts';
import { createS3Client, createSqsClient } from '../packages/bridge/src/lambda/aws-clients.ts';
import { createPdsClient } from '../packages/bridge/src/pds/index.ts';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import { median, printTable, startFauxqsProcess, startSimulatorProcess } from './support.ts';

const { values } = parseScriptArgs({
  command: 'node bench/sdk.ts',
  summary:
    "CPU per request of the AWS SDK's GetObject, PutObject and SendMessageBatch against fauxqs (middleware cached or not), beside a PDS GET.",
  options: {
    requests: { type: 'string', default: '1000', value: 'n', description: 'requests per kind and round' },
    rounds: { type: 'string', default: '3', value: 'n', description: 'rounds, each variant once per round' },
    concurrency: { type: 'string', default: '8', value: 'n', description: 'requests in flight' },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const CONCURRENCY = Number(values.concurrency);
const BUCKET = 'bench-sdk';
const DOCUMENT = JSON.stringify({ version: 1, keys: { a: 'x'.repeat(2000) } });
const EVENT = JSON.stringify({ specversion: '1.0', data: 'z'.repeat(3000) });
const KEYS = Array.from({ length: 200 }, (_, index) => `state/${index}.json`);

/** CPU milliseconds of this process per call of `call`, `REQUESTS` calls at `CONCURRENCY`, after 200 unmeasured. */
async function cpuPerCall(call: (index: number) => Promise<unknown>): Promise<number> {
  await mapLimit(
    Array.from({ length: 200 }, (_, index) => index),
    CONCURRENCY,
    call,
  );
  const before = process.cpuUsage();
  await mapLimit(
    Array.from({ length: REQUESTS }, (_, index) => index),
    CONCURRENCY,
    call,
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / REQUESTS;
}

function sdkCalls(
  s3: S3Client,
  sqs: SQSClient,
  queueUrl: string,
): Record<string, (index: number) => Promise<unknown>> {
  return {
    'S3 GetObject (2 KB)': async (index) => {
      const answer = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: KEYS[index % KEYS.length] }));
      return answer.Body?.transformToString();
    },
    'S3 PutObject (2 KB)': (index) =>
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: KEYS[index % KEYS.length], Body: DOCUMENT })),
    'SQS SendMessageBatch (10 × 3 KB)': () =>
      sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: Array.from({ length: 10 }, (_, id) => ({ Id: String(id), MessageBody: EVENT })),
        }),
      ),
  };
}

async function main(): Promise<void> {
  const [fauxqs, simulator] = await Promise.all([startFauxqsProcess(), startSimulatorProcess()]);
  const credentials = { accessKeyId: 'bench', secretAccessKey: 'bench' };
  const clients = (cacheMiddleware: boolean) => {
    const config = { endpoint: fauxqs.url, region: 'us-east-1', credentials, cacheMiddleware };
    return { s3: createS3Client(config), sqs: createSqsClient(config) };
  };
  const variants = { cached: clients(true), 'not cached': clients(false) };
  const pds = createPdsClient({
    baseUrl: simulator.url,
    credentials: { username: 'demo', password: 'demo' },
  });
  try {
    const { s3, sqs } = variants.cached;
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-sdk' }))).QueueUrl as string;
    await mapLimit(KEYS, CONCURRENCY, (Key) =>
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: DOCUMENT })),
    );
    const [asset] = await pds.listMessagingAssets();
    if (!asset) throw new Error('the simulator lists no messaging asset: its demo data is missing');

    const figures = new Map<string, number[]>();
    const record = (name: string, value: number) => figures.set(name, [...(figures.get(name) ?? []), value]);
    for (let round = 0; round < ROUNDS; round++) {
      // Each round swaps which variant goes first, so a machine slowing down slows both alike.
      const order =
        round % 2 === 0 ? (['cached', 'not cached'] as const) : (['not cached', 'cached'] as const);
      for (const variant of order) {
        const { s3: s3Of, sqs: sqsOf } = variants[variant];
        for (const [name, call] of Object.entries(sdkCalls(s3Of, sqsOf, queueUrl))) {
          record(`${name}|${variant}`, await cpuPerCall(call));
        }
      }
      record('PDS GET messaging asset|-', await cpuPerCall(() => pds.getMessagingAsset(asset.id)));
    }
    const pdsGet = median(figures.get('PDS GET messaging asset|-') ?? []);
    const rows = [...figures].map(([key, values]) => {
      const [name, variant] = key.split('|') as [string, string];
      const ms = median(values);
      return [name, variant, ms.toFixed(3), (ms / pdsGet).toFixed(2)];
    });
    process.stdout.write(
      `\nCPU of this process per request, median of ${ROUNDS} rounds of ${REQUESTS} at ${CONCURRENCY} in flight (node ${process.version})\n\n`,
    );
    printTable(['request', 'middleware', 'CPU ms per request', '× a PDS GET'], rows);
  } finally {
    await pds.close();
    for (const { s3, sqs } of Object.values(variants)) {
      s3.destroy();
      sqs.destroy();
    }
    await Promise.all([simulator.stop(), fauxqs.stop()]);
  }
}

await main();
