/**
 * A local S3 + SQS emulator (fauxqs) for integration tests, reached over real HTTP on 127.0.0.1.
 *
 * What fauxqs 2.4 does and does not do, as far as this project is concerned:
 * - S3 PutObject bodies are limited to 11 MiB (413 above); larger objects need a multipart upload
 *   (CreateMultipartUpload / UploadPart / CompleteMultipartUpload work). GetObject streams to the
 *   client, but the emulator keeps every body in memory: in-process, a large object counts towards
 *   the test process's RSS. Range GETs, ListObjectsV2 paging and user metadata work.
 * - S3 conditional writes (If-None-Match / If-Match on PutObject) are NOT enforced, there is no
 *   versioning (no VersionId), no bucket notifications, and object tagging is not implemented: a
 *   PutObjectTagging request overwrites the object's body with the tagging XML. Cover those paths with
 *   aws-sdk-client-mock.
 * - SQS: message attributes, visibility timeout, redrive to a dead-letter queue after
 *   maxReceiveCount, batches and FIFO queues work.
 *
 * @example
 * ```ts
 * const aws = await startAwsEmulator({ buckets: ['drops'], queues: [{ name: 'ingest', dlq: { name: 'ingest-dlq', maxReceiveCount: 3 } }] });
 * const restore = setEnv(aws.env);
 * // ... exercise code that uses packages/bridge/src/lambda/aws-clients.ts clients ...
 * restore();
 * await aws.close();
 * ```
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { fixFauxqsListing } from '../../packages/local/src/fauxqs-listing.ts';
import { listenOnLoopback } from '../../packages/local/src/loopback.ts';

/** A queue to create; `dlq` is created too and wired with a redrive policy. */
export interface EmulatedQueue {
  name: string;
  dlq?: { name: string; maxReceiveCount: number };
  /** Seconds; fauxqs defaults to 30. */
  visibilityTimeout?: number;
  /** Further SQS attributes as strings, e.g. `{ DelaySeconds: '1' }`. */
  attributes?: Record<string, string>;
}

export interface AwsEmulatorOptions {
  buckets?: string[];
  queues?: Array<string | EmulatedQueue>;
  /** Defaults to us-east-1. */
  region?: string;
  /** Turns on fauxqs's message spy (`emulator.server.spy`). */
  messageSpies?: boolean;
}

/** What every S3+SQS emulator helper hands a test (fauxqs here, moto in ./moto.ts). */
export interface EmulatedAws {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  region: string;
  /** Path-style S3 client with fake static credentials. */
  s3: S3Client;
  sqs: SQSClient;
  /** Queue URLs by name (dead-letter queues included). */
  queueUrls: Record<string, string>;
  /** Queue ARNs by name. */
  queueArns: Record<string, string>;
  /** Variables that point the AWS SDK (and packages/bridge/src/lambda/aws-clients.ts) at the emulator. */
  env: Record<string, string>;
  /** Destroys the clients and stops the server. */
  close(): Promise<void>;
}

export interface AwsEmulator extends EmulatedAws {
  /** The fauxqs server itself, for `spy`, `inspectQueue`, `reset`. */
  server: FauxqsServer;
}

const ACCOUNT_ID = '000000000000';
/** Static credentials every local emulator accepts. */
export const FAKE_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };

/** The variables that point the AWS SDK (and packages/bridge/src/lambda/aws-clients.ts) at an emulator on `endpoint`. */
export function emulatorEnv(endpoint: string, region: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: FAKE_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: FAKE_CREDENTIALS.secretAccessKey,
  };
}

/** A queue's attributes as strings, with the redrive policy to `dlqArn` when it has a dead-letter queue. */
export function queueAttributes(queue: EmulatedQueue, dlqArn: string | undefined): Record<string, string> {
  const attributes: Record<string, string> = { ...queue.attributes };
  if (queue.visibilityTimeout !== undefined) attributes.VisibilityTimeout = String(queue.visibilityTimeout);
  if (queue.dlq && dlqArn) {
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: dlqArn,
      maxReceiveCount: String(queue.dlq.maxReceiveCount),
    });
  }
  return attributes;
}

/** Starts fauxqs on an ephemeral port with the given buckets and queues. */
export async function startAwsEmulator(options: AwsEmulatorOptions = {}): Promise<AwsEmulator> {
  const region = options.region ?? 'us-east-1';
  // The same byte-order listing as the local stack (packages/local/src/fauxqs-listing.ts).
  await fixFauxqsListing();
  // fauxqs listens on every interface unless kept on the loopback (packages/local/src/loopback.ts).
  const server = await listenOnLoopback('fauxqs', () =>
    startFauxqs({
      port: 0,
      logger: false,
      defaultRegion: region,
      messageSpies: options.messageSpies ?? false,
    }),
  );
  const endpoint = `http://127.0.0.1:${server.port}`;
  try {
    for (const bucket of options.buckets ?? []) server.createBucket(bucket);

    const queueUrls: Record<string, string> = {};
    const queueArns: Record<string, string> = {};
    const create = (name: string, attributes: Record<string, string>) => {
      if (queueArns[name]) return;
      const { queueArn } = server.createQueue(name, { attributes });
      queueArns[name] = queueArn;
      // fauxqs finds a queue by the last path segment when the host names no region, so a URL on the
      // endpoint's own host works for any SDK client, whatever it does with the queue URL's host.
      queueUrls[name] = `${endpoint}/${ACCOUNT_ID}/${name}`;
    };
    for (const spec of options.queues ?? []) {
      const queue = typeof spec === 'string' ? { name: spec } : spec;
      if (queue.dlq) create(queue.dlq.name, {});
      create(queue.name, queueAttributes(queue, queue.dlq && queueArns[queue.dlq.name]));
    }

    const s3 = new S3Client({ endpoint, region, credentials: FAKE_CREDENTIALS, forcePathStyle: true });
    const sqs = new SQSClient({ endpoint, region, credentials: FAKE_CREDENTIALS });
    return {
      endpoint,
      region,
      s3,
      sqs,
      queueUrls,
      queueArns,
      env: emulatorEnv(endpoint, region),
      server,
      async close() {
        s3.destroy();
        sqs.destroy();
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
