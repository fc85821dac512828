/**
 * moto (`moto_server`, Python) as a second S3 + SQS backend of the integration tests, reached over real
 * HTTP on 127.0.0.1.
 *
 * Why a second backend: fauxqs (./fauxqs.ts) ignores S3 conditional writes, and the bridge's promise
 * (exactly once, nothing lost) rests on them. moto enforces If-None-Match and If-Match on PutObject
 * and DeleteObject (412 PreconditionFailed), implements versioning, object tagging and S3→SQS
 * notifications in AWS's format. It is NOT atomic under true concurrency: two simultaneous
 * If-None-Match creates of one key can both succeed, so no test may depend on that race.
 *
 * moto is installed with python3 on every machine of ours, CI's included. When it is missing, CI fails
 * with a message naming the fix; elsewhere the suites register one skipped test whose name says why,
 * and a warning is printed, so the gap shows in the test output instead of passing silently.
 *
 * @example
 * ```ts
 * describeOnMoto('ingest on an S3 that enforces conditional writes', () => {
 *   let aws: MotoServer;
 *   beforeAll(async () => { aws = await startMoto({ buckets: ['drops', 'state'], queues: ['events'] }); });
 *   afterAll(() => aws?.close());
 *   it('...', async () => { ... });
 * });
 * ```
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  type EmulatedAws,
  type EmulatedQueue,
  emulatorEnv,
  FAKE_CREDENTIALS,
  queueAttributes,
} from './fauxqs.ts';

export interface MotoOptions {
  buckets?: string[];
  /** Same shape as the fauxqs helper's queues, so a test can run on either backend. */
  queues?: Array<string | EmulatedQueue>;
  /** Defaults to us-east-1. */
  region?: string;
}

export interface MotoServer extends EmulatedAws {
  /** Creates a bucket (used between tests to get a fresh one). */
  createBucket(name: string): Promise<void>;
}

const MOTO_COMMAND = 'moto_server';
const INSTALL_HINT =
  'moto_server is not on PATH: install moto with its server extra for python3 (pip install "moto[server]")';

let availability: boolean | undefined;

/**
 * A path-style S3 client with moto's fake credentials for `endpoint`: moto itself, or a proxy in front
 * of it (./s3-proxy.ts).
 */
export function motoS3Client(endpoint: string, region = 'us-east-1'): S3Client {
  return new S3Client({ endpoint, region, credentials: FAKE_CREDENTIALS, forcePathStyle: true });
}

/** True when `moto_server` can be started on this machine. */
export function motoAvailable(): boolean {
  if (availability === undefined) {
    const probe = spawnSync(MOTO_COMMAND, ['--help'], { stdio: 'ignore', timeout: 20_000 });
    availability = probe.status === 0;
  }
  return availability;
}

/**
 * `describe` that runs only where moto is installed. In CI (`CI` set) a missing moto fails the run;
 * elsewhere it shows as one skipped test naming the fix.
 */
export function describeOnMoto(name: string, body: () => void): void {
  if (motoAvailable()) {
    describe(`${name} [moto]`, body);
    return;
  }
  if (process.env.CI) {
    throw new Error(`${INSTALL_HINT}. CI requires it: these tests prove the conditional-write paths.`);
  }
  console.warn(`[moto] ${INSTALL_HINT}; skipping "${name}"`);
  describe(`${name} [moto]`, () => {
    it.skip(`needs moto: ${INSTALL_HINT}`, () => {});
  });
}

/**
 * One moto server for the enclosing `describeOnMoto` block (started before its tests, stopped after
 * them) and a fresh bucket on it at each `freshBucket()` (`<prefix>-1`, `<prefix>-2`, …): every test
 * of a port's suite gets an empty store without a server of its own.
 */
export function motoForBlock(prefix: string): { aws: () => MotoServer; freshBucket: () => Promise<string> } {
  let server: MotoServer | undefined;
  let buckets = 0;
  beforeAll(async () => {
    server = await startMoto();
  });
  afterAll(async () => {
    await server?.close();
  });
  const aws = (): MotoServer => {
    if (!server) throw new Error('moto is not running: call motoForBlock inside a describeOnMoto block');
    return server;
  };
  const freshBucket = async (): Promise<string> => {
    const bucket = `${prefix}-${++buckets}`;
    await aws().createBucket(bucket);
    return bucket;
  };
  return { aws, freshBucket };
}

/** Starts `moto_server` on an ephemeral loopback port with the given buckets and queues. */
export async function startMoto(options: MotoOptions = {}): Promise<MotoServer> {
  const region = options.region ?? 'us-east-1';
  const child = spawn(MOTO_COMMAND, ['-H', '127.0.0.1', '-p', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  let endpoint: string;
  try {
    endpoint = await waitForAddress(child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const s3 = motoS3Client(endpoint, region);
  const sqs = new SQSClient({ endpoint, region, credentials: FAKE_CREDENTIALS });
  const close = async () => {
    s3.destroy();
    sqs.destroy();
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    const createBucket = async (name: string) => {
      await s3.send(new CreateBucketCommand({ Bucket: name }));
    };
    for (const bucket of options.buckets ?? []) await createBucket(bucket);

    const queueUrls: Record<string, string> = {};
    const queueArns: Record<string, string> = {};
    const create = async (name: string, attributes: Record<string, string>) => {
      if (queueArns[name]) return;
      const created = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
      const url = created.QueueUrl ?? '';
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
      );
      queueUrls[name] = url;
      queueArns[name] = Attributes?.QueueArn ?? '';
    };
    for (const spec of options.queues ?? []) {
      const queue = typeof spec === 'string' ? { name: spec } : spec;
      if (queue.dlq) await create(queue.dlq.name, {});
      await create(queue.name, queueAttributes(queue, queue.dlq && queueArns[queue.dlq.name]));
    }
    return {
      endpoint,
      region,
      s3,
      sqs,
      queueUrls,
      queueArns,
      env: emulatorEnv(endpoint, region),
      createBucket,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Resolves with the address moto prints once it listens ("Running on http://127.0.0.1:PORT"). */
function waitForAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`moto_server did not start within 20 s; it printed:\n${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        child.stderr?.off('data', onData);
        // Keep draining so a chatty server never blocks on a full pipe.
        child.stdout?.resume();
        child.stderr?.resume();
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${INSTALL_HINT} (${error.message})`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`moto_server exited with ${code} before listening; it printed:\n${output}`));
    });
  });
}
