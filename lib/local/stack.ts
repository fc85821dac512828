/**
 * The local stack: the whole bridge on one machine without an AWS account. It starts, on 127.0.0.1,
 * the PDS simulator (or uses a real PDS), the S3+SQS emulator with the drop and state buckets and
 * every queue, and a small runtime that delivers events to the real handlers as Lambda would:
 *
 * - objects written to the drop bucket → S3 `ObjectCreated` notifications → ingest queue → λ ingest
 * - schedules → λ poll-messaging-assets and λ poll-supplier-reviews (never overlapping themselves)
 * - review fan-out queue → λ poll-supplier-reviews-worker; publication queue → λ publish-worker
 * - HTTP requests (API Gateway HTTP API payload 2.0) → λ api, with a bearer token
 *
 * @example
 * ```ts
 * const stack = await startLocalStack({ awsPort: 0, pdsPort: 0, apiPort: 0 });
 * await fetch(`${stack.api.url}/health`);
 * await stack.stop();
 * ```
 */
import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSEvent } from 'aws-lambda';
import { createS3Client, createSqsClient, resetAwsClients } from '../aws.ts';
import { localLambdaContext, type RunningHttpAdapter, startHttpAdapter } from '../local-gateway/index.ts';
import { type RunningSimulator, startSimulator } from '../simulator/index.ts';
import { type RunningDropNotifications, startDropNotifications } from './drop-notifications.ts';
import { type RunningEmulator, startEmulator } from './emulator.ts';
import {
  applyEnvironment,
  handlerEnvironment,
  LOCAL_AWS_CREDENTIALS,
  type PdsConnection,
} from './environment.ts';
import { isAddressInUse, LocalStackStartedError, PortInUseError } from './errors.ts';
import { dropWarnings, ingestFiltersOf } from './ingest-hints.ts';
import { invocationStore } from './invocation-scope.ts';
import {
  createLocalResources,
  LOCAL_FUNCTION_TIMEOUTS_MS,
  LOCAL_QUEUES,
  type LocalQueue,
  type LocalQueueRole,
  type LocalQueueSpec,
} from './resources.ts';
import { type RunningSchedule, startSchedule } from './scheduler.ts';
import { type RunningEventSource, type SqsHandler, startSqsEventSource } from './sqs-event-source.ts';

/** Defaults of {@link LocalStackOptions}. */
export const LOCAL_STACK_DEFAULTS = Object.freeze({
  awsPort: 4566,
  pdsPort: 4010,
  apiPort: 3000,
  region: 'us-east-1',
  /** Short, so a demo publication gets its reviews at once. */
  reviewDelayMs: 2000,
  messagingAssetsRateMs: 10_000,
  supplierReviewsRateMs: 15_000,
});

export interface LocalStackOptions {
  /** The S3+SQS emulator's port; 0 picks a free one. */
  awsPort?: number;
  /** The simulator's port (ignored with `pds`); 0 picks a free one. */
  pdsPort?: number;
  /** The HTTP API's port; 0 picks a free one. */
  apiPort?: number;
  /** Keep the emulator's state (buckets, queues, checkpoints, watch list) here; in memory when left out. */
  dataDir?: string;
  /** A real PDS instead of the simulator. */
  pds?: PdsConnection;
  /** How long the simulator waits before the reviews of a channel publication appear. */
  reviewDelayMs?: number;
  messagingAssetsRateMs?: number;
  supplierReviewsRateMs?: number;
  region?: string;
  /** The API's bearer token; random when left out. */
  apiToken?: string;
  /** Handler log level (POWERTOOLS_LOG_LEVEL unless set); default WARN. */
  logLevel?: string;
  /** Receives the stack's activity lines (notifications sent, failed invocations). */
  log?: (line: string) => void;
  /** Also report every successful invocation. */
  verbose?: boolean;
}

/** Where everything runs, and how to stop it. */
export interface RunningLocalStack {
  aws: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };
  buckets: { drop: string; state: string };
  queues: Record<LocalQueueRole, LocalQueue>;
  deadLetterQueues: Partial<Record<LocalQueueRole, LocalQueue>>;
  api: { url: string; token: string };
  pds: { url: string; username: string; password: string; simulated: boolean };
  rates: { messagingAssetsMs: number; supplierReviewsMs: number };
  /** The ingest's key filters, from INGEST_PREFIX and INGEST_SUFFIXES as the stack was started with. */
  ingest: { prefix: string; suffixes: string[] };
  /** Absolute; only when state is kept on disk. */
  dataDir?: string;
  /** Stops everything, waiting for invocations in progress; safe to call more than once. */
  stop(): Promise<void>;
}

let startedInThisProcess = false;

/**
 * Starts the stack; resolves once every part is ready. One stack per process.
 *
 * @throws PortInUseError when a port is taken (nothing is left running)
 * @throws LocalStackStartedError when this process started a stack before
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<RunningLocalStack> {
  if (startedInThisProcess) throw new LocalStackStartedError();
  startedInThisProcess = true;
  const settings = { ...LOCAL_STACK_DEFAULTS, ...definedOnly(options) };
  const log = options.log ?? (() => undefined);
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch(() => undefined);
    }
    cleanups.length = 0;
  };

  try {
    const pds = await startPds(options, settings, cleanups);
    const emulator: RunningEmulator = await startEmulator({
      port: settings.awsPort,
      region: settings.region,
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    });
    cleanups.push(() => emulator.stop());
    const resources = createLocalResources(emulator.server, emulator.endpoint);

    const apiToken = options.apiToken ?? randomBytes(24).toString('base64url');
    // Before AWS_LAMBDA_MAX_CONCURRENCY is in the environment (./invocation-scope.ts).
    await invocationStore();
    const restoreEnvironment = applyEnvironment(
      handlerEnvironment({
        awsEndpoint: emulator.endpoint,
        region: settings.region,
        resources,
        pds,
        apiToken,
        pollFirstRun: pds.simulated ? 'backlog' : 'now',
        ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      }),
    );
    cleanups.push(restoreEnvironment);
    // Clients cached before the environment pointed at the emulator would talk to AWS.
    resetAwsClients();
    cleanups.push(resetAwsClients);
    // Imported only now: each handler module builds its logger and metrics from the environment when it
    // is first imported, and the log level and disabled metrics above must already be in it.
    const { createLocalHandlers } = await import('./handlers.ts');
    // Each invocation logs with its own function name and request id, as deployed functions do.
    const handlers = createLocalHandlers(process.env);

    const clientConfig = {
      endpoint: emulator.endpoint,
      region: settings.region,
      // A copy: the SDK records where credentials came from on the object itself.
      credentials: { ...LOCAL_AWS_CREDENTIALS },
    };
    const s3: S3Client = createS3Client({ ...clientConfig, forcePathStyle: true });
    const sqs: SQSClient = createSqsClient(clientConfig);
    cleanups.push(() => {
      s3.destroy();
      sqs.destroy();
    });

    const api = await startApi(handlers.api, settings.apiPort, log);
    cleanups.push(() => api.close());

    const { failed, recovered } = repeatedOnce(log);
    const sources: RunningEventSource[] = [];
    const source = (
      role: LocalQueueRole,
      name: string,
      handler: SqsHandler,
      batchSize: number,
      timeoutMs: number,
    ) => {
      const queue = resources.queues[role];
      sources.push(
        startSqsEventSource({
          sqs,
          queueUrl: queue.url,
          queueArn: queue.arn,
          handler: observed(name, handler, LOCAL_QUEUES[role], {
            log,
            verbose: options.verbose ?? false,
            recovered: () => recovered(name),
          }),
          context: () => localLambdaContext({ functionName: `pds-bridge-local-${name}`, timeoutMs }),
          batchSize,
          region: settings.region,
          onError: failed(name),
        }),
      );
    };
    cleanups.push(() => Promise.all(sources.map((running) => running.stop())).then(() => undefined));
    source('ingest', 'ingest', handlers.ingest, 4, LOCAL_FUNCTION_TIMEOUTS_MS.ingest);
    source(
      'publications',
      'publish-worker',
      handlers.publishWorker,
      5,
      LOCAL_FUNCTION_TIMEOUTS_MS.publishWorker,
    );
    source(
      'reviewPoll',
      'poll-supplier-reviews-worker',
      handlers.pollSupplierReviewsWorker,
      1,
      LOCAL_FUNCTION_TIMEOUTS_MS.reviewWorker,
    );

    const schedules: RunningSchedule[] = [];
    cleanups.push(() => Promise.all(schedules.map((running) => running.stop())).then(() => undefined));
    const schedule = (
      name: string,
      rateMs: number,
      handler: (event: unknown, context: Context) => unknown,
    ) => {
      schedules.push(
        startSchedule({
          name: `pds-bridge-local-${name}`,
          rateMs,
          handler: async (event, context) => {
            const report = await handler(event, context);
            recovered(name);
            if (options.verbose) log(`· ${name}: ${JSON.stringify(report)}`);
            return report;
          },
          context: () =>
            localLambdaContext({
              functionName: `pds-bridge-local-${name}`,
              timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.poller,
            }),
          region: settings.region,
          onError: failed(name),
        }),
      );
    };
    schedule('poll-messaging-assets', settings.messagingAssetsRateMs, handlers.pollMessagingAssets);
    schedule('poll-supplier-reviews', settings.supplierReviewsRateMs, handlers.pollSupplierReviews);

    const notifications: RunningDropNotifications = startDropNotifications({
      spy: emulator.server.spy,
      s3,
      sqs,
      bucket: resources.buckets.drop,
      queueUrl: resources.queues.ingest.url,
      region: settings.region,
      onNotified: (notification) => {
        log(
          `→ s3://${notification.bucket}/${notification.key} (${notification.size} bytes): ${notification.eventName} sent to the ingest queue`,
        );
        // Whatever uploaded it (npm run drop, the AWS CLI): a file that will create nothing is named.
        const filters = ingestFiltersOf(process.env);
        for (const warning of dropWarnings(notification.key, { filters, simulated: pds.simulated })) {
          log(`  ! ${warning}`);
        }
      },
      onError: (error, key) =>
        log(`✗ no notification for s3://${resources.buckets.drop}/${key}: ${messageOf(error)}`),
    });
    cleanups.push(() => notifications.stop());

    let stopped: Promise<void> | undefined;
    return {
      aws: {
        endpoint: emulator.endpoint,
        region: settings.region,
        accessKeyId: LOCAL_AWS_CREDENTIALS.accessKeyId,
        secretAccessKey: LOCAL_AWS_CREDENTIALS.secretAccessKey,
      },
      buckets: { ...resources.buckets },
      queues: resources.queues,
      deadLetterQueues: resources.deadLetterQueues,
      api: { url: api.url, token: apiToken },
      pds: { url: pds.baseUrl, username: pds.username, password: pds.password, simulated: pds.simulated },
      rates: {
        messagingAssetsMs: settings.messagingAssetsRateMs,
        supplierReviewsMs: settings.supplierReviewsRateMs,
      },
      ingest: ingestFiltersOf(process.env),
      ...(emulator.dataDir ? { dataDir: emulator.dataDir } : {}),
      stop() {
        stopped ??= cleanUp();
        return stopped;
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

async function startPds(
  options: LocalStackOptions,
  settings: { pdsPort: number; reviewDelayMs: number },
  cleanups: Array<() => Promise<void> | void>,
): Promise<PdsConnection & { simulated: boolean }> {
  if (options.pds) return { ...options.pds, simulated: false };
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator({ port: settings.pdsPort, reviewDelayMs: settings.reviewDelayMs });
  } catch (error) {
    if (isAddressInUse(error)) {
      throw new PortInUseError('the PDS simulator', settings.pdsPort, '--pds-port', { cause: error });
    }
    throw error;
  }
  cleanups.push(() => simulator.close());
  return {
    baseUrl: simulator.url,
    username: simulator.username,
    password: simulator.password,
    simulated: true,
  };
}

async function startApi(
  handler: (event: never, context: Context) => unknown,
  port: number,
  log: (line: string) => void,
): Promise<RunningHttpAdapter> {
  try {
    return await startHttpAdapter({
      handler: handler as Parameters<typeof startHttpAdapter>[0]['handler'],
      port,
      functionName: 'pds-bridge-local-api',
      timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.api,
      onError: (error, event) =>
        log(`✗ api ${event.requestContext.http.method} ${event.rawPath}: ${messageOf(error)}`),
    });
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError('the HTTP API', port, '--api-port', { cause: error });
    throw error;
  }
}

/** Reports batches with failed messages (and, verbose, every batch) on the stack's activity log. */
function observed(
  name: string,
  handler: SqsHandler,
  queue: LocalQueueSpec,
  report: { log: (line: string) => void; verbose: boolean; recovered: () => void },
): SqsHandler {
  const { log, verbose } = report;
  return async (event: SQSEvent, context: Context) => {
    const result = await handler(event, context);
    report.recovered();
    const failures =
      (result as { batchItemFailures?: unknown[] } | undefined)?.batchItemFailures?.length ?? 0;
    if (failures > 0) {
      const dlq = queue.dlq ? `, to ${queue.dlq.name} after ${queue.dlq.maxReceiveCount} receives` : '';
      log(
        `✗ ${name}: ${failures} of ${event.Records.length} message(s) failed; SQS delivers them again after ${queue.visibilityTimeout} s${dlq}`,
      );
    } else if (verbose) {
      log(`· ${name}: ${event.Records.length} message(s) handled`);
    }
    return result;
  };
}

/**
 * Reports a failure once while it repeats (an event source retries an unreachable queue every half
 * second); after the part recovered, the same failure is reported again.
 */
function repeatedOnce(log: (line: string) => void) {
  const last = new Map<string, string>();
  return {
    failed: (name: string) => (error: unknown) => {
      const line = `✗ ${name}: ${messageOf(error)}`;
      if (last.get(name) === line) return;
      last.set(name, line);
      log(line);
    },
    recovered: (name: string) => {
      last.delete(name);
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
