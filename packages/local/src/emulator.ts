/**
 * The S3 + SQS emulator of the local stack (fauxqs, in this process), with its message spy on (the
 * stack watches S3 uploads through it) and, when a data directory is given, its state on disk: queues
 * and messages in SQLite under `<dir>/fauxqs`, objects as plain files under `<dir>/s3`.
 *
 * Clients reach it through the conditional endpoint (./conditional-endpoint.ts) on the stack's AWS
 * port, which enforces S3's conditional writes that fauxqs ignores; fauxqs itself listens on a free
 * port of 127.0.0.1 (it asks for every interface; ./loopback.ts keeps it on the loopback) that only
 * the endpoint uses.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { type RunningConditionalEndpoint, startConditionalEndpoint } from './conditional-endpoint.ts';
import { isAddressInUse, PortInUseError } from './errors.ts';
import { fixFauxqsListing } from './fauxqs-listing.ts';
import { listenOnLoopback } from './loopback.ts';

export interface EmulatorOptions {
  /** 0 picks a free port. */
  port: number;
  region: string;
  /** Keep state here across restarts; in memory when left out. */
  dataDir?: string;
}

export interface RunningEmulator {
  /** fauxqs itself, for creating resources and its message spy; clients use `endpoint`. */
  server: FauxqsServer;
  /** `http://127.0.0.1:PORT`: the conditional endpoint in front of fauxqs. */
  endpoint: string;
  /** The absolute data directory, when state is kept on disk. */
  dataDir?: string;
  /** Stops the endpoint, then fauxqs. */
  stop(): Promise<void>;
}

/** Upload events the spy keeps; the stack handles each at once, so this only absorbs bursts. */
const SPY_BUFFER_SIZE = 2000;

/**
 * Starts the emulator.
 *
 * @throws PortInUseError when the port is taken
 * @example
 * ```ts
 * const emulator = await startEmulator({ port: 4566, region: 'us-east-1', dataDir: '.local-data' });
 * ```
 */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const storage: { dataDir?: string; s3StorageDir?: string } = {};
  if (dataDir) {
    storage.dataDir = join(dataDir, 'fauxqs');
    storage.s3StorageDir = join(dataDir, 's3');
    await mkdir(storage.dataDir, { recursive: true });
    await mkdir(storage.s3StorageDir, { recursive: true });
  }
  // fauxqs lists in locale order; S3 (and every paged reader of the bridge) needs byte order.
  await fixFauxqsListing();
  // fauxqs listens on every interface and checks no signature: keep it on the loopback (./loopback.ts).
  const server: FauxqsServer = await listenOnLoopback('fauxqs', () =>
    startFauxqs({
      port: 0,
      logger: false,
      defaultRegion: options.region,
      messageSpies: { bufferSize: SPY_BUFFER_SIZE },
      ...storage,
    }),
  );
  let front: RunningConditionalEndpoint;
  try {
    front = await startConditionalEndpoint({
      upstream: `http://127.0.0.1:${server.port}`,
      port: options.port,
    });
  } catch (error) {
    await server.stop();
    if (isAddressInUse(error)) {
      throw new PortInUseError('the S3+SQS emulator', options.port, '--aws-port', { cause: error });
    }
    throw error;
  }
  return {
    server,
    endpoint: front.endpoint,
    ...(dataDir ? { dataDir } : {}),
    async stop() {
      await front.close();
      await server.stop();
    },
  };
}
