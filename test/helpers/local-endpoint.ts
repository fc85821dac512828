/**
 * The local stack's S3+SQS endpoint (fauxqs behind the conditional endpoint, as `startEmulator` wires
 * them) for a test file: started before its tests, stopped after them, with an S3 client on it and
 * fresh buckets on demand. Suites run on it by path-style HTTP with the AWS SDK, as the local stack's
 * functions do.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../packages/local/src/emulator.ts';

export interface LocalEndpoint {
  /** The running emulator (valid inside tests and suite factories). */
  readonly emulator: RunningEmulator;
  /** An S3 client on it. */
  readonly s3: S3Client;
  /** A fresh, empty bucket named `<prefix>-<n>`. */
  newBucket(prefix: string): string;
}

/** Registers the hooks that start and stop the endpoint; read its fields inside tests only. */
export function useLocalEndpoint(): LocalEndpoint {
  let emulator: RunningEmulator | undefined;
  let s3: S3Client | undefined;
  let buckets = 0;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, region: 'us-east-1' });
    s3 = new S3Client({
      endpoint: emulator.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      forcePathStyle: true,
    });
  });
  afterAll(async () => {
    s3?.destroy();
    await emulator?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('The local endpoint is used before its beforeAll ran');
    return value;
  };
  return {
    get emulator() {
      return started(emulator);
    },
    get s3() {
      return started(s3);
    },
    newBucket(prefix: string) {
      const bucket = `${prefix}-${++buckets}`;
      started(emulator).server.createBucket(bucket);
      return bucket;
    },
  };
}
