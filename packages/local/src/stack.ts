/**
 * The local stack: the whole bridge on one machine without an AWS account. It starts, on 127.0.0.1,
 * the PDS simulator (or uses a real PDS), the S3+SQS emulator with the drop and state buckets and
 * every queue, and a small runtime that delivers events to the real handlers as Lambda would:
 *
 * - objects written to the drop bucket → S3 `ObjectCreated` notifications → ingest queue → λ ingest
 * - schedules → λ poll-messaging-assets and λ poll-supplier-reviews (never overlapping themselves)
 * - review fan-out queue → λ poll-supplier-reviews-worker; publication queue → λ publish-worker
 * - webhook queue and its slow lane → λ webhook-delivery (signed POSTs to the registered endpoints)
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
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { terminalText } from '@pds-bridge/bridge/core';
import { createS3Client, createSqsClient, resetAwsClients } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { localSecretsDirectory } from '@pds-bridge/bridge/webhooks/files/store.ts';
import { type RunningSimulator, startSimulator } from '@pds-bridge/simulator';
import type { Context, SQSEvent } from 'aws-lambda';
import { type RunningDropNotifications, startDropNotifications } from './drop-notifications.ts';
import { type RunningEmulator, startEmulator } from './emulator.ts';
import {
  applyEnvironment,
  handlerEnvironment,
  LOCAL_AWS_CREDENTIALS,
  type PdsConnection,
} from './environment.ts';
import { isAddressInUse, LocalStackStartedError, PortInUseError, type StackPort } from './errors.ts';
import { ensureLocalEventBus } from './eventbridge.ts';
import {
  localLambdaContext,
  type RunningHttpAdapter,
  sigV4Authorizer,
  startHttpAdapter,
} from './gateway/index.ts';
import type { LocalHandlers } from './handlers.ts';
import { dropWarnings, ingestFiltersOf } from './ingest-hints.ts';
import { invocationStore } from './invocation-scope.ts';
import {
  createLocalResources,
  LOCAL_FUNCTION_TIMEOUTS_MS,
  LOCAL_QUEUES,
  type LocalQueue,
  type LocalQueueRole,
  type LocalQueueSpec,
  type LocalResources,
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
  /**
   * An EventBridge backend (moto_server, `http://127.0.0.1:5000`): the stack creates its bus there and
   * the functions publish to it (EVENT_DESTINATIONS `both` unless set). None by default: no EventBridge output.
   */
  eventBridgeEndpoint?: string;
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
  /** The EventBridge backend the events also go to (--eventbridge), if any. */
  eventBridgeEndpoint?: string;
  /** Absolute; only when state is kept on disk. */
  dataDir?: string;
  /** The folder of the webhook secrets: in the data folder, or a temporary one removed at stop. */
  webhookSecretsDir: string;
  /** Stops everything, waiting for invocations in progress; safe to call more than once. */
  stop(): Promise<void>;
}

let startedInThisProcess = false;

/** {@link LocalStackOptions} with the defaults filled in. */
interface LocalStackSettings extends LocalStackOptions {
  awsPort: number;
  pdsPort: number;
  apiPort: number;
  region: string;
  reviewDelayMs: number;
  messagingAssetsRateMs: number;
  supplierReviewsRateMs: number;
}

/** What stopping undoes, in the order it was started; {@link cleanUp} runs it last first. */
type Cleanups = Array<() => Promise<void> | void>;

type PdsOfStack = PdsConnection & { simulated: boolean };

/** What the event sources, schedules and drop notifications share. */
interface Wiring {
  s3: S3Client;
  sqs: SQSClient;
  region: string;
  log: (line: string) => void;
  verbose: boolean;
  /** Reports a part's failure once while it repeats (see {@link repeatedOnce}). */
  failed: (name: string) => (error: unknown) => void;
  recovered: (name: string) => void;
}

/**
 * Starts the stack; resolves once every part is ready. One stack per process.
 *
 * @throws PortInUseError when a port is taken (nothing is left running)
 * @throws LocalStackStartedError when this process started a stack before
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<RunningLocalStack> {
  if (startedInThisProcess) throw new LocalStackStartedError();
  startedInThisProcess = true;
  const settings: LocalStackSettings = { ...LOCAL_STACK_DEFAULTS, ...definedOnly(options) };
  const log = settings.log ?? (() => undefined);
  const cleanups: Cleanups = [];
  try {
    await refuseTakenPorts(settings);
    const pds = await startPds(settings, cleanups);
    const emulator = await startAwsEmulator(settings, cleanups);
    const resources = createLocalResources(emulator.server, emulator.endpoint);
    const apiToken = settings.apiToken ?? randomBytes(24).toString('base64url');
    const webhookSecretsDir = await localWebhookSecretsDir(settings, cleanups);
    const handlers = await handlersOnEmulator(
      { settings, emulator, resources, pds, apiToken, webhookSecretsDir },
      cleanups,
    );
    const clients = emulatorClients(emulator.endpoint, settings.region, cleanups);
    const api = await startApi(
      handlers.api,
      { port: settings.apiPort, region: settings.region, token: apiToken },
      log,
    );
    cleanups.push(() => api.close());
    const wiring: Wiring = {
      ...clients,
      region: settings.region,
      log,
      verbose: settings.verbose ?? false,
      ...repeatedOnce(log),
    };
    startQueueFunctions(wiring, resources, handlers, cleanups);
    startScheduledFunctions(wiring, settings, handlers, cleanups);
    startDropNotificationsToIngest(wiring, { emulator, resources, simulated: pds.simulated }, cleanups);
    return runningStack(
      { settings, emulator, resources, pds, api: { url: api.url, token: apiToken }, webhookSecretsDir },
      cleanups,
    );
  } catch (error) {
    await cleanUp(cleanups);
    throw error;
  }
}

/**
 * Every requested port that is taken, in one error before anything starts (each part would otherwise
 * report only its own, one start at a time). A port taken between this look and the start is still
 * reported by the part that cannot listen.
 */
async function refuseTakenPorts(settings: LocalStackSettings): Promise<void> {
  const requested: StackPort[] = [
    ...(settings.pds ? [] : [{ what: 'the PDS simulator', port: settings.pdsPort, flag: '--pds-port' }]),
    { what: 'the S3+SQS emulator', port: settings.awsPort, flag: '--aws-port' },
    { what: 'the HTTP API', port: settings.apiPort, flag: '--api-port' },
  ];
  const taken: StackPort[] = [];
  for (const port of requested) if (port.port !== 0 && (await portTaken(port.port))) taken.push(port);
  const [first, ...more] = taken;
  if (first) throw new PortInUseError(first.what, first.port, first.flag, { alsoTaken: more });
}

/** True when something listens on 127.0.0.1:port (a listen there fails with EADDRINUSE). */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => resolve(isAddressInUse(error)));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

/** Runs every cleanup, last first; one that fails does not keep the others from running. */
async function cleanUp(cleanups: Cleanups): Promise<void> {
  for (const cleanup of cleanups.reverse()) {
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined);
  }
  cleanups.length = 0;
}

async function startPds(settings: LocalStackSettings, cleanups: Cleanups): Promise<PdsOfStack> {
  if (settings.pds) return { ...settings.pds, simulated: false };
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator({
      port: settings.pdsPort,
      reviewDelayMs: settings.reviewDelayMs,
      // With --data-dir the imported items survive a restart, as the bridge's records of them do.
      ...(settings.dataDir !== undefined
        ? { itemsFile: join(resolve(settings.dataDir), 'simulator', 'items.json') }
        : {}),
    });
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

async function startAwsEmulator(settings: LocalStackSettings, cleanups: Cleanups): Promise<RunningEmulator> {
  const emulator = await startEmulator({
    port: settings.awsPort,
    region: settings.region,
    ...(settings.dataDir !== undefined ? { dataDir: settings.dataDir } : {}),
  });
  cleanups.push(() => emulator.stop());
  return emulator;
}

/**
 * Points the process environment at the emulator, its resources and the PDS, as a deployment
 * configures its functions, and builds every handler from it.
 */
async function handlersOnEmulator(
  parts: {
    settings: LocalStackSettings;
    emulator: RunningEmulator;
    resources: LocalResources;
    pds: PdsOfStack;
    apiToken: string;
    webhookSecretsDir: string;
  },
  cleanups: Cleanups,
): Promise<LocalHandlers> {
  const { settings, emulator, pds, webhookSecretsDir } = parts;
  // Before AWS_LAMBDA_MAX_CONCURRENCY is in the environment (./invocation-scope.ts).
  await invocationStore();
  const eventBridge = settings.eventBridgeEndpoint
    ? {
        endpoint: settings.eventBridgeEndpoint,
        busName: await ensureLocalEventBus(settings.eventBridgeEndpoint, settings.region),
      }
    : undefined;
  const restoreEnvironment = applyEnvironment(
    handlerEnvironment({
      ...(eventBridge ? { eventBridge } : {}),
      awsEndpoint: emulator.endpoint,
      region: settings.region,
      resources: parts.resources,
      pds,
      apiToken: parts.apiToken,
      pollFirstRun: pds.simulated ? 'backlog' : 'now',
      webhookSecretsDir,
      ...(settings.logLevel ? { logLevel: settings.logLevel } : {}),
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
  return createLocalHandlers(process.env);
}

/**
 * Where the local stack keeps the webhook secrets: beside the emulator's state with --data-dir (they
 * survive a restart as the endpoints do), else a temporary folder removed when the stack stops.
 */
async function localWebhookSecretsDir(settings: LocalStackSettings, cleanups: Cleanups): Promise<string> {
  if (settings.dataDir !== undefined) return localSecretsDirectory(resolve(settings.dataDir));
  const directory = await mkdtemp(join(tmpdir(), 'pds-webhook-secrets-'));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

/** The stack's own S3 and SQS clients (event sources, drop notifications). */
function emulatorClients(
  endpoint: string,
  region: string,
  cleanups: Cleanups,
): { s3: S3Client; sqs: SQSClient } {
  const clientConfig = {
    endpoint,
    region,
    // A copy: the SDK records where credentials came from on the object itself.
    credentials: { ...LOCAL_AWS_CREDENTIALS },
  };
  const s3 = createS3Client({ ...clientConfig, forcePathStyle: true });
  const sqs = createSqsClient(clientConfig);
  cleanups.push(() => {
    s3.destroy();
    sqs.destroy();
  });
  return { s3, sqs };
}

/** Each queue and the function it drives, with the batch size of its event source mapping. */
const QUEUE_FUNCTIONS = [
  {
    role: 'ingest',
    name: 'ingest',
    handler: 'ingest',
    batchSize: 4,
    timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.ingest,
  },
  {
    role: 'publications',
    name: 'publish-worker',
    handler: 'publishWorker',
    batchSize: 5,
    timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.publishWorker,
  },
  {
    role: 'webhooks',
    name: 'webhook-delivery',
    handler: 'webhookDelivery',
    batchSize: 10,
    timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.webhookDelivery,
  },
  // The slow lane: the same function, its own event source (docs/webhooks.md).
  {
    role: 'webhooksSlow',
    name: 'webhook-delivery',
    handler: 'webhookDelivery',
    batchSize: 10,
    timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.webhookDelivery,
  },
  {
    role: 'reviewPoll',
    name: 'poll-supplier-reviews-worker',
    handler: 'pollSupplierReviewsWorker',
    batchSize: 1,
    timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.reviewWorker,
  },
] as const satisfies ReadonlyArray<{
  role: LocalQueueRole;
  name: string;
  handler: keyof LocalHandlers;
  batchSize: number;
  timeoutMs: number;
}>;

/** A list of what a start step runs, all of it stopped (together) when the stack is cleaned up. */
function stoppedAtCleanUp<T extends { stop(): Promise<unknown> }>(cleanups: Cleanups): T[] {
  const running: T[] = [];
  cleanups.push(() => Promise.all(running.map((each) => each.stop())).then(() => undefined));
  return running;
}

/** An SQS event source per queue-driven function, as Lambda's event source mappings deliver. */
function startQueueFunctions(
  wiring: Wiring,
  resources: LocalResources,
  handlers: LocalHandlers,
  cleanups: Cleanups,
): void {
  const sources = stoppedAtCleanUp<RunningEventSource>(cleanups);
  for (const { role, name, handler, batchSize, timeoutMs } of QUEUE_FUNCTIONS) {
    const queue = resources.queues[role];
    sources.push(
      startSqsEventSource({
        sqs: wiring.sqs,
        queueUrl: queue.url,
        queueArn: queue.arn,
        handler: observed(name, handlers[handler], LOCAL_QUEUES[role], {
          log: wiring.log,
          verbose: wiring.verbose,
          recovered: () => wiring.recovered(name),
        }),
        context: () => localLambdaContext({ functionName: `pds-bridge-local-${name}`, timeoutMs }),
        batchSize,
        region: wiring.region,
        onError: wiring.failed(name),
      }),
    );
  }
}

/** The scheduled pollers, each on its rate and never overlapping itself. */
function startScheduledFunctions(
  wiring: Wiring,
  settings: LocalStackSettings,
  handlers: LocalHandlers,
  cleanups: Cleanups,
): void {
  const schedules = stoppedAtCleanUp<RunningSchedule>(cleanups);
  const schedule = (name: string, rateMs: number, handler: (event: unknown, context: Context) => unknown) => {
    schedules.push(
      startSchedule({
        name: `pds-bridge-local-${name}`,
        rateMs,
        handler: async (event, context) => {
          const report = await handler(event, context);
          wiring.recovered(name);
          if (wiring.verbose) wiring.log(`· ${name}: ${JSON.stringify(report)}`);
          return report;
        },
        context: () =>
          localLambdaContext({
            functionName: `pds-bridge-local-${name}`,
            timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.poller,
          }),
        region: wiring.region,
        onError: wiring.failed(name),
      }),
    );
  };
  schedule('poll-messaging-assets', settings.messagingAssetsRateMs, handlers.pollMessagingAssets);
  schedule('poll-supplier-reviews', settings.supplierReviewsRateMs, handlers.pollSupplierReviews);
}

/**
 * S3 `ObjectCreated` notifications from the drop bucket to the ingest queue, each reported with
 * what will keep the file from creating anything.
 */
function startDropNotificationsToIngest(
  wiring: Wiring,
  parts: { emulator: RunningEmulator; resources: LocalResources; simulated: boolean },
  cleanups: Cleanups,
): void {
  const { log } = wiring;
  const { buckets, queues } = parts.resources;
  const notifications: RunningDropNotifications = startDropNotifications({
    spy: parts.emulator.server.spy,
    s3: wiring.s3,
    sqs: wiring.sqs,
    bucket: buckets.drop,
    queueUrl: queues.ingest.url,
    region: wiring.region,
    onNotified: (notification) => {
      log(
        terminalText(
          `→ s3://${notification.bucket}/${notification.key} (${notification.size} bytes): ${notification.eventName} sent to the ingest queue`,
        ),
      );
      // Whatever uploaded it (npm run drop, the AWS CLI): a file that will create nothing is named.
      const filters = ingestFiltersOf(process.env);
      for (const warning of dropWarnings(notification.key, { filters, simulated: parts.simulated })) {
        log(terminalText(`  ! ${warning}`));
      }
    },
    onError: (error, key) => log(`✗ no notification for s3://${buckets.drop}/${key}: ${messageOf(error)}`),
  });
  cleanups.push(() => notifications.stop());
}

/** The running stack's facts, and its stop. */
function runningStack(
  parts: {
    settings: LocalStackSettings;
    emulator: RunningEmulator;
    resources: LocalResources;
    pds: PdsOfStack;
    api: { url: string; token: string };
    webhookSecretsDir: string;
  },
  cleanups: Cleanups,
): RunningLocalStack {
  const { settings, emulator, resources, pds } = parts;
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
    api: parts.api,
    pds: { url: pds.baseUrl, username: pds.username, password: pds.password, simulated: pds.simulated },
    rates: {
      messagingAssetsMs: settings.messagingAssetsRateMs,
      supplierReviewsMs: settings.supplierReviewsRateMs,
    },
    ingest: ingestFiltersOf(process.env),
    ...(emulator.dataDir ? { dataDir: emulator.dataDir } : {}),
    webhookSecretsDir: parts.webhookSecretsDir,
    ...(settings.eventBridgeEndpoint ? { eventBridgeEndpoint: settings.eventBridgeEndpoint } : {}),
    stop() {
      stopped ??= cleanUp(cleanups);
      return stopped;
    },
  };
}

async function startApi(
  handler: (event: never, context: Context) => unknown,
  { port, region, token }: { port: number; region: string; token: string },
  log: (line: string) => void,
): Promise<RunningHttpAdapter> {
  try {
    return await startHttpAdapter({
      handler: handler as Parameters<typeof startHttpAdapter>[0]['handler'],
      port,
      functionName: 'pds-bridge-local-api',
      timeoutMs: LOCAL_FUNCTION_TIMEOUTS_MS.api,
      // Like API Gateway's IAM authorisation, beside the bearer token (./gateway/sigv4.ts).
      decorateEvent: sigV4Authorizer({ credentials: LOCAL_AWS_CREDENTIALS, region, token, log }),
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
