/**
 * Ingest of a dropped object: the ingest handler (SQS record → GetObject → streamed gathering upload →
 * import → event) against a plain S3 GetObject piped into the same client upload, in the same run.
 * The emulator (fauxqs, which keeps bodies in memory), the PDS simulator and each transfer run in
 * processes of their own, so the transfer's peak RSS is its own.
 *
 *   node bench/ingest.ts [--size 1024] [--compare 256] [--runs 3]      sizes in MiB; --compare 0 skips
 *
 * Prints throughput (MiB/s) of both, their ratio (target ≥ 0.8), and the handler's peak RSS at each
 * size (target: under 200 MiB, and flat with size).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseScriptArgs } from '../packages/cli/src/command-line.ts';
import {
  bundleForNode,
  MiB,
  median,
  printTable,
  removeQuietly,
  startFauxqsProcess,
  startSimulatorProcess,
} from './support.ts';

const DROPS = 'bench-drops';
const STATE = 'bench-state';
// The emulator refuses request bodies above 11 MiB, parts included.
const PART_BYTES = 8 * MiB;
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };

interface Measurement {
  seconds: number;
  baselineRssMiB: number;
  maxRssMiB: number;
}

/** Multipart-uploads `bytes` of a repeating pattern (the emulator refuses single PUTs above 11 MiB). */
async function putObject(s3: S3Client, key: string, bytes: number): Promise<string> {
  const block = Buffer.alloc(PART_BYTES);
  for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24;
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: DROPS, Key: key }));
  const parts: Array<{ ETag: string; PartNumber: number }> = [];
  for (let offset = 0, number = 1; offset < bytes; offset += PART_BYTES, number++) {
    const body = offset + PART_BYTES <= bytes ? block : block.subarray(0, bytes - offset);
    const { ETag } = await s3.send(
      new UploadPartCommand({ Bucket: DROPS, Key: key, UploadId, PartNumber: number, Body: body }),
    );
    parts.push({ ETag: ETag ?? '', PartNumber: number });
  }
  const done = await s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: DROPS,
      Key: key,
      UploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
  return (done.ETag ?? '').replaceAll('"', '');
}

async function transfer(bundle: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Measurement> {
  const child = spawn(process.execPath, [bundle, ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the ${args[0]} transfer exited with ${code}`);
  const line = out.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Measurement;
}

async function main(): Promise<void> {
  const { values } = parseScriptArgs({
    command: 'node bench/ingest.ts',
    summary:
      'Ingest of a dropped object (the ingest handler: GetObject, streamed upload, import, event) against a plain GetObject piped into the same upload, in the same run: MiB/s of both, their ratio and the peak RSS.',
    options: {
      size: { type: 'string', default: '1024', value: 'MiB', description: 'object size' },
      compare: {
        type: 'string',
        default: '256',
        value: 'MiB',
        description: 'a second, smaller size (0 skips it)',
      },
      runs: { type: 'string', default: '3', value: 'n', description: 'runs per size' },
    },
  });
  const sizes = [Number(values.size), Number(values.compare)].filter((s) => s > 0);
  const runs = Number(values.runs);
  const emulator = await startFauxqsProcess();
  const simulator = await startSimulatorProcess();
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-ingest-'));
  const client = { endpoint: emulator.url, region: 'us-east-1', credentials: CREDENTIALS };
  const s3 = new S3Client({ ...client, forcePathStyle: true });
  const sqs = new SQSClient(client);
  const rows: Array<Array<string | number>> = [];
  const peaks: Record<number, number> = {};
  try {
    await s3.send(new CreateBucketCommand({ Bucket: DROPS }));
    await s3.send(new CreateBucketCommand({ Bucket: STATE }));
    const { QueueUrl: eventsQueue = '' } = await sqs.send(
      new CreateQueueCommand({ QueueName: 'bench-events' }),
    );
    // Bundled as the build bundles the Lambda (Node's TypeScript stripping alone costs ~40 MiB of RSS).
    const bundle = await bundleForNode(path.join(import.meta.dirname, 'ingest/worker.ts'), dir);
    const env = {
      PATH: process.env.PATH,
      AWS_ENDPOINT_URL: emulator.url,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      PDS_BASE_URL: simulator.url,
      PDS_USERNAME: 'demo',
      PDS_PASSWORD: 'demo',
      STATE_BUCKET: STATE,
      // The ingest serves only the drop buckets it is told of (required since the function checks it).
      INGEST_BUCKETS: DROPS,
      EVENTS_QUEUE_URL: eventsQueue.replace(/^https?:\/\/[^/]+/, emulator.url),
      INGEST_TAG_OBJECTS: 'false',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    let sequencer = 0;
    for (const sizeMiB of sizes) {
      const key = `bench/object-${sizeMiB}MiB.bin`;
      const etag = await putObject(s3, key, sizeMiB * MiB);
      const ingest: Measurement[] = [];
      const reference: Measurement[] = [];
      // Alternate which goes first (ABBA…): the simulator writes every upload to disk, and the page
      // cache flushing one upload slows the next, so a fixed order would favour one side.
      for (let run = 0; run < runs; run++) {
        sequencer += 1;
        const seq = sequencer.toString(16).padStart(16, '0');
        const order = run % 2 === 0 ? ['reference', 'ingest'] : ['ingest', 'reference'];
        for (const mode of order) {
          if (mode === 'ingest') {
            ingest.push(
              await transfer(bundle, env, ['ingest', DROPS, key, etag, String(sizeMiB * MiB), seq]),
            );
          } else {
            reference.push(await transfer(bundle, env, ['reference', DROPS, key]));
          }
        }
      }
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: env.EVENTS_QUEUE_URL, MaxNumberOfMessages: 10 }),
      );
      const sizesReported = Messages.map(
        (m) => (JSON.parse(m.Body ?? '{}') as { data: { size: number } }).data.size,
      );
      if (sizesReported.length === 0 || sizesReported.some((s) => s !== sizeMiB * MiB)) {
        throw new Error(
          `expected completed events of ${sizeMiB * MiB} bytes, got ${sizesReported.join(', ')}`,
        );
      }
      const ingestRate = sizeMiB / median(ingest.map((m) => m.seconds));
      const referenceRate = sizeMiB / median(reference.map((m) => m.seconds));
      peaks[sizeMiB] = Math.max(...ingest.map((m) => m.maxRssMiB));
      rows.push([
        `${sizeMiB} MiB`,
        ingestRate.toFixed(1),
        referenceRate.toFixed(1),
        (ingestRate / referenceRate).toFixed(2),
        (peaks[sizeMiB] ?? 0).toFixed(0),
        Math.max(...reference.map((m) => m.maxRssMiB)).toFixed(0),
        median(ingest.map((m) => m.baselineRssMiB)).toFixed(0),
      ]);
    }
  } finally {
    s3.destroy();
    sqs.destroy();
    await simulator.stop();
    await emulator.stop();
    await removeQuietly(dir);
  }
  process.stdout.write(
    `\nIngest of one dropped object, median of ${runs} run(s) each (node ${process.version})\n\n`,
  );
  printTable(
    [
      'size',
      'ingest handler MiB/s',
      'plain GET→upload MiB/s',
      'ratio',
      'handler peak RSS MiB',
      'plain peak RSS MiB',
      'RSS before transfer MiB',
    ],
    rows,
  );
  if (sizes.length === 2) {
    const [large, small] = sizes as [number, number];
    process.stdout.write(
      `\nPeak RSS of the handler: ${(peaks[large] ?? 0).toFixed(0)} MiB at ${large} MiB vs ${(peaks[small] ?? 0).toFixed(0)} MiB at ${small} MiB (difference ${((peaks[large] ?? 0) - (peaks[small] ?? 0)).toFixed(0)} MiB)\n`,
    );
  }
}

await main();
