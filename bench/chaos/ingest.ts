/**
 * The ingest chaos run (issue 11): drops of varied size and odd keys, duplicated notifications,
 * several Lambda-like workers, PDS faults, workers killed at random moments, redelivery as SQS does
 * it; then counts what was lost, imported twice, uploaded twice, left stuck. Not part of `npm test`.
 *
 *   node bench/chaos/ingest.ts [--drops 200] [--workers 3] [--duplicate-rate 0.3] [--fault-rate 0.15]
 *     [--reset-rate 0.05] [--kill-rate 0.05] [--seed 1] [--deadline-seconds 420] [--quick] [--keep-logs]
 *
 * Everything runs on 127.0.0.1: moto (drop and state buckets, the ingest queue with a DLQ after 5
 * receives as in deploy/ingest.yml, the events queue) behind the atomic-conditional-write proxy
 * (test/helpers/s3-proxy.ts), the PDS simulator with faults, the workers (bench/chaos/ingest/worker.ts).
 * The run stops by itself at the deadline and kills every process it started.
 *
 * Time scale: the lease cannot go below 30 s (INGEST_LEASE_SECONDS), so the deployed 960 s lease,
 * 900 s timeout and 30 s first back-off become 30 s, 28 s and 1 s (÷ 32). The queue's visibility
 * timeout is 45 s instead of 5400/32: still above the lease, so a killed invocation's messages come back
 * after its claim expired, as on Lambda.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, open, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { ingestProgressKey, isIngestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import {
  S3Sequencer,
  s3NotificationEvent,
  s3NotificationRecord,
} from '../../packages/local/src/s3-notifications.ts';
import { mulberry32, type Random } from '../../packages/simulator/src/random.ts';
import { type MotoServer, startMoto } from '../../test/helpers/moto.ts';
import { type S3Proxy, startS3Proxy } from '../../test/helpers/s3-proxy.ts';
import { printTable, removeQuietly } from '../support.ts';
import { type Drop, dropIndexOfPath, makeDrops } from './ingest/drops.ts';
import type { SimulatorReport } from './ingest/simulator.ts';
import {
  type DropFacts,
  type IngestChaosTally,
  type Kill,
  type ObservedEvent,
  type ProgressRecordFacts,
  tallyRun,
} from './ingest/tally.ts';
import type { WorkerLogLine, WorkerMessage } from './ingest/worker.ts';

export interface IngestChaosOptions {
  drops: number;
  workers: number;
  /** Share of drops whose notification is sent twice (half in the same batch, half later). */
  duplicateRate: number;
  /** Share of PDS requests answered 503 or 429. */
  faultRate: number;
  /** Share of PDS requests reset mid-body. */
  resetRate: number;
  /** Share of invocations whose worker is SIGKILLed at a random moment. */
  killRate: number;
  seed: number;
  /** Hard limit of the chaos phase; counting and clean-up add at most a minute. */
  deadlineSeconds: number;
  /** Keep the workers' and the simulator's logs (the directory is printed) instead of removing them. */
  keepLogs?: boolean;
}

export interface IngestChaosReport extends IngestChaosTally {
  options: IngestChaosOptions;
  pass: boolean;
}

export const DEFAULT_OPTIONS: IngestChaosOptions = Object.freeze({
  drops: 200,
  workers: 3,
  duplicateRate: 0.3,
  faultRate: 0.15,
  resetRate: 0.05,
  killRate: 0.05,
  seed: 1,
  deadlineSeconds: 420,
});

/** `--quick`: a smoke run of well under a minute of load. */
export const QUICK_OPTIONS: Partial<IngestChaosOptions> = Object.freeze({ drops: 30, deadlineSeconds: 120 });

const DROPS = 'chaos-drops';
const STATE = 'chaos-state';
const INGEST_QUEUE = 'chaos-ingest';
const DLQ = 'chaos-ingest-dlq';
const EVENTS_QUEUE = 'chaos-events';
const TIME_SCALE = 32;
const LEASE_SECONDS = 30;
const FUNCTION_TIMEOUT_MS = 28_000;
const VISIBILITY_TIMEOUT_SECONDS = 45;
const MAX_RECEIVE_COUNT = 5;
/** Notifications sent per step while the drops arrive, so load builds up instead of arriving at once. */
const ENQUEUE_STEP = { messages: 10, pauseMs: 300 };
/** Late duplicates go out after the first copies, when most of them are being (or were) ingested. */
const LATE_DUPLICATE_DELAY_MS = 8_000;

interface Servers {
  moto: MotoServer;
  proxy: S3Proxy;
  simulator: ChildProcess;
  simulatorUrl: string;
}

async function startServers(options: IngestChaosOptions, dir: string): Promise<Servers> {
  const moto = await startMoto({
    buckets: [DROPS, STATE],
    queues: [
      EVENTS_QUEUE,
      {
        name: INGEST_QUEUE,
        visibilityTimeout: VISIBILITY_TIMEOUT_SECONDS,
        dlq: { name: DLQ, maxReceiveCount: MAX_RECEIVE_COUNT },
      },
    ],
  });
  const proxy = await startS3Proxy(moto.endpoint);
  const simulatorOut = await open(path.join(dir, 'simulator.log'), 'w');
  const simulator = fork(
    path.join(import.meta.dirname, 'ingest/simulator.ts'),
    [String(options.seed), String(options.faultRate), String(options.resetRate)],
    { stdio: ['ignore', 'pipe', simulatorOut.fd, 'ipc'] },
  );
  // The child holds its own copy of the descriptor.
  await simulatorOut.close();
  const [line] = (await once(simulator.stdout ?? simulator, 'data')) as [Buffer];
  simulator.stdout?.resume();
  const { url } = JSON.parse(line.toString()) as { url: string };
  return { moto, proxy, simulator, simulatorUrl: url };
}

/** Puts every drop into the drop bucket; returns what each write's notification says about it. */
async function putDrops(s3: S3Client, drops: Drop[]): Promise<Array<{ facts: DropFacts; body: string }>> {
  const sequencer = new S3Sequencer();
  const written: Array<{ facts: DropFacts; body: string }> = [];
  for (const drop of drops) {
    const { ETag = '' } = await s3.send(
      new PutObjectCommand({ Bucket: DROPS, Key: drop.key, Body: drop.body }),
    );
    const write = {
      bucket: DROPS,
      key: drop.key,
      etag: ETag.replaceAll('"', ''),
      sequencer: sequencer.next(),
    };
    const record = s3NotificationRecord({ ...write, size: drop.body.length });
    written.push({
      facts: {
        index: drop.index,
        key: drop.key,
        entryPaths: drop.entryPaths,
        progressKey: ingestProgressKey(write),
      },
      body: JSON.stringify(s3NotificationEvent([record])),
    });
  }
  return written;
}

/** The order notifications go out in: some duplicates right behind the original, some much later. */
function notificationPlan(bodies: string[], duplicateRate: number, random: Random) {
  const first: string[] = [];
  const late: string[] = [];
  for (const body of bodies) {
    first.push(body);
    if (random() >= duplicateRate) continue;
    if (random() < 0.5) first.push(body);
    else late.push(body);
  }
  return { first, late };
}

async function send(sqs: SQSClient, queueUrl: string, bodies: string[]): Promise<void> {
  for (let start = 0; start < bodies.length; start += ENQUEUE_STEP.messages) {
    const batch = bodies.slice(start, start + ENQUEUE_STEP.messages);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    await sleep(ENQUEUE_STEP.pauseMs);
  }
}

/**
 * Runs the workers, restarts the ones that die, kills one now and then in the middle of an invocation
 * (and any whose invocation outlives the function timeout, as Lambda does).
 */
class WorkerPool {
  readonly kills: Kill[] = [];
  invocations = 0;
  readonly #env: NodeJS.ProcessEnv;
  readonly #dir: string;
  readonly #killRate: number;
  readonly #random: Random;
  readonly #workers = new Set<ChildProcess>();
  #stopping = false;
  #started = 0;
  /** Recent invocation durations, to aim kills at a random moment inside one. */
  #durations: number[] = [500];
  /** A kill drawn for an invocation that ended before it fired moves on to the next invocation. */
  #killOwed = false;

  constructor(env: NodeJS.ProcessEnv, dir: string, killRate: number, random: Random) {
    this.#env = env;
    this.#dir = dir;
    this.#killRate = killRate;
    this.#random = random;
  }

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.#spawn();
  }

  async #spawn(): Promise<void> {
    const number = this.#started++;
    const logFile = path.join(this.#dir, `worker-${number}.jsonl`);
    const out = await open(path.join(this.#dir, `worker-${number}.out`), 'w');
    const worker = fork(path.join(import.meta.dirname, 'ingest/worker.ts'), [], {
      env: { ...this.#env, CHAOS_LOG_FILE: logFile },
      stdio: ['ignore', out.fd, out.fd, 'ipc'],
    });
    // The child holds its own copy of the descriptor.
    await out.close();
    this.#workers.add(worker);
    let current:
      | { invocation: string; keys: string[]; startedAt: number; timers: NodeJS.Timeout[] }
      | undefined;
    const kill = (reason: Kill['reason']) => {
      if (!current || worker.exitCode !== null || worker.signalCode !== null) return;
      if (reason === 'chaos') this.#killOwed = false;
      this.kills.push({ t: Date.now(), keys: current.keys, reason });
      worker.kill('SIGKILL');
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'invoke-start') {
        this.invocations += 1;
        current = { invocation: message.invocation, keys: message.keys, startedAt: Date.now(), timers: [] };
        current.timers.push(setTimeout(() => kill('timeout'), FUNCTION_TIMEOUT_MS));
        if (this.#killOwed || this.#random() < this.#killRate) {
          this.#killOwed = true;
          current.timers.push(setTimeout(() => kill('chaos'), this.#random() * this.#typicalDurationMs()));
        }
      } else if (current?.invocation === message.invocation) {
        this.#durations = [...this.#durations.slice(-49), Date.now() - current.startedAt];
        for (const timer of current.timers) clearTimeout(timer);
        current = undefined;
      }
    });
    worker.once('exit', () => {
      for (const timer of current?.timers ?? []) clearTimeout(timer);
      this.#workers.delete(worker);
      // A dead container is replaced, as Lambda starts a new one for the next batch.
      if (!this.#stopping) void this.#spawn();
    });
  }

  #typicalDurationMs(): number {
    const sorted = [...this.#durations].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? 500;
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    const exits = [...this.#workers].map((worker) => once(worker, 'exit'));
    for (const worker of this.#workers) worker.kill('SIGKILL');
    await Promise.all(exits);
  }
}

async function queueDepth(sqs: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).reduce((sum, value) => sum + Number(value), 0);
}

/** Resolves when the queue stayed empty for a few checks in a row, or at the deadline. */
async function waitForDrain(sqs: SQSClient, queueUrl: string, deadline: number): Promise<void> {
  let emptyChecks = 0;
  while (Date.now() < deadline && emptyChecks < 3) {
    await sleep(1_000);
    emptyChecks = (await queueDepth(sqs, queueUrl)) === 0 ? emptyChecks + 1 : 0;
  }
}

/** Every message of a queue (nobody else reads it any more), deleted as read. */
async function drainQueue(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 60 }),
    );
    if (Messages.length === 0) return bodies;
    bodies.push(...Messages.map((message) => message.Body ?? ''));
    await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, i) => ({
          Id: String(i),
          ReceiptHandle: message.ReceiptHandle ?? '',
        })),
      }),
    );
  }
}

function eventOf(body: string): ObservedEvent {
  const event = JSON.parse(body) as { type: string; id: string; data: { key: string } };
  return { type: event.type, id: event.id, key: event.data.key };
}

function keysOfNotification(body: string): string[] {
  const { Records = [] } = JSON.parse(body) as { Records?: Array<{ s3: { object: { key: string } } }> };
  return Records.map((record) => decodeURIComponent(record.s3.object.key.replaceAll('+', ' ')));
}

async function progressRecords(s3: S3Client): Promise<ProgressRecordFacts[]> {
  const records: ProgressRecordFacts[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: STATE, Prefix: 'ingest/', ContinuationToken: token }),
    );
    for (const { Key } of page.Contents ?? []) {
      // The entries stored beside a record are not records.
      if (!Key || !isIngestProgressKey(Key)) continue;
      const object = await s3.send(new GetObjectCommand({ Bucket: STATE, Key }));
      const record = JSON.parse((await object.Body?.transformToString()) ?? '{}') as {
        key: string;
        status: string;
        lastError?: string;
      };
      records.push({
        objectKey: record.key,
        status: record.status,
        ...(record.lastError ? { lastError: record.lastError } : {}),
      });
    }
    token = page.NextContinuationToken;
  } while (token);
  return records;
}

function simulatorReport(simulator: ChildProcess): Promise<SimulatorReport> {
  const answer = once(simulator, 'message') as Promise<[SimulatorReport]>;
  simulator.send('report');
  return answer.then(([report]) => report);
}

async function workerLog(dir: string): Promise<WorkerLogLine[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.jsonl'));
  const lines: WorkerLogLine[] = [];
  for (const file of files) {
    for (const line of (await readFile(path.join(dir, file), 'utf8')).split('\n')) {
      // A kill can cut the last line short.
      if (line.trim()) lines.push(...tryParse(line));
    }
  }
  return lines.sort((a, b) => a.t - b.t);
}

function tryParse(line: string): WorkerLogLine[] {
  try {
    return [JSON.parse(line) as WorkerLogLine];
  } catch {
    return [];
  }
}

function workerEnv(servers: Servers): NodeJS.ProcessEnv {
  const { moto, proxy } = servers;
  return {
    PATH: process.env.PATH,
    ...moto.env,
    // S3 through the proxy, so conditional writes of one key are atomic as on S3; SQS straight to moto.
    AWS_ENDPOINT_URL_S3: proxy.endpoint,
    PDS_BASE_URL: servers.simulatorUrl,
    PDS_USERNAME: 'demo',
    PDS_PASSWORD: 'demo',
    STATE_BUCKET: STATE,
    EVENTS_QUEUE_URL: moto.queueUrls[EVENTS_QUEUE],
    INGEST_TAG_OBJECTS: 'true',
    INGEST_LEASE_SECONDS: String(LEASE_SECONDS),
    // The deployed 30 s first back-off on the run's time scale; the handler sets it itself.
    INGEST_RETRY_DELAY_SECONDS: String(Math.max(1, Math.round(30 / TIME_SCALE))),
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
    CHAOS_QUEUE_URL: moto.queueUrls[INGEST_QUEUE],
    CHAOS_QUEUE_ARN: moto.queueArns[INGEST_QUEUE],
    CHAOS_STATE_BUCKET: STATE,
    CHAOS_FUNCTION_TIMEOUT_MS: String(FUNCTION_TIMEOUT_MS),
  };
}

/**
 * Runs the ingest chaos and returns its figures; prints nothing (see {@link printReport}).
 *
 * @example
 * ```ts
 * const report = await runIngestChaos({ ...DEFAULT_OPTIONS, ...QUICK_OPTIONS });
 * if (!report.pass) process.exitCode = 1;
 * ```
 */
export async function runIngestChaos(options: IngestChaosOptions): Promise<IngestChaosReport> {
  const began = Date.now();
  const deadline = began + options.deadlineSeconds * 1000;
  const random = mulberry32(options.seed);
  const dir = await mkdtemp(path.join(tmpdir(), 'chaos-ingest-'));
  let servers: Servers | undefined;
  let pool: WorkerPool | undefined;
  // The last resort: whatever hangs, nothing outlives the deadline by more than two minutes.
  const watchdog = setTimeout(
    () => {
      servers?.simulator.kill('SIGKILL');
      void pool?.stop();
      process.stderr.write('chaos ingest: hard deadline passed, stopping\n');
      process.exit(3);
    },
    (options.deadlineSeconds + 120) * 1000,
  );
  watchdog.unref();
  try {
    servers = await startServers(options, dir);
    const { moto } = servers;
    const ingestQueue = moto.queueUrls[INGEST_QUEUE] ?? '';
    const drops = await putDrops(moto.s3, await makeDrops(options.drops, random));
    const plan = notificationPlan(
      drops.map((drop) => drop.body),
      options.duplicateRate,
      random,
    );

    pool = new WorkerPool(workerEnv(servers), dir, options.killRate, random);
    await pool.start(options.workers);
    await send(moto.sqs, ingestQueue, plan.first);
    await sleep(Math.min(LATE_DUPLICATE_DELAY_MS, Math.max(0, deadline - Date.now())));
    await send(moto.sqs, ingestQueue, plan.late);
    await waitForDrain(moto.sqs, ingestQueue, deadline);
    await pool.stop();

    const leftInQueue = await queueDepth(moto.sqs, ingestQueue);
    const facts = {
      drops: drops.map((drop) => drop.facts),
      notifications: plan.first.length + plan.late.length,
      duplicateNotifications: plan.first.length + plan.late.length - drops.length,
      invocations: pool.invocations,
      kills: pool.kills,
      simulator: await simulatorReport(servers.simulator),
      events: (await drainQueue(moto.sqs, moto.queueUrls[EVENTS_QUEUE] ?? '')).map(eventOf),
      deadLetters: (await drainQueue(moto.sqs, moto.queueUrls[DLQ] ?? '')).map(keysOfNotification),
      records: await progressRecords(moto.s3),
      workerLog: await workerLog(dir),
      leftInQueue,
      seconds: (Date.now() - began) / 1000,
    };
    const tally = tallyRun(facts, dropIndexOfPath);
    return { ...tally, options, pass: tally.targets.every((target) => target.pass) };
  } finally {
    clearTimeout(watchdog);
    await pool?.stop();
    if (servers) {
      servers.simulator.kill('SIGTERM');
      await servers.proxy.close();
      await servers.moto.close();
    }
    if (options.keepLogs) process.stderr.write(`chaos ingest: logs kept in ${dir}\n`);
    else await removeQuietly(dir);
  }
}

/** Prints the report as a table with targets, the crash window, and one JSON line. */
export function printReport(report: IngestChaosReport): void {
  const o = report.options;
  const w = report.crashWindowFromPdsMs;
  const a = report.crashWindowFromAnswerMs;
  process.stdout.write(
    `\nIngest chaos: ${o.drops} drops, ${o.workers} workers, duplicates ${o.duplicateRate}, PDS faults ${o.faultRate} + resets ${o.resetRate}, kills ${o.killRate}, seed ${o.seed} (${report.seconds.toFixed(0)} s, node ${process.version})\n\n`,
  );
  printTable(
    ['measure', 'value'],
    [
      ['drops (objects)', report.drops],
      ['notifications (duplicates)', `${report.notifications} (${report.duplicateNotifications})`],
      ['invocations', report.invocations],
      ['workers killed at random / at the timeout', `${report.kills} / ${report.timeouts}`],
      [
        'PDS requests / injected 503-429 / resets',
        `${report.pdsFaults.requests} / ${report.pdsFaults.statuses} / ${report.pdsFaults.resets}`,
      ],
      ['objects completed / failed (events)', `${report.completed} / ${report.failed}`],
      ['uploads (repeated objects)', `${report.uploads} (${report.uploadsRepeated})`],
      ['imports taken by the PDS', report.importsTotal],
      ['entries imported twice or more', report.entriesImportedTwice],
      [
        'repeated imports: in the crash window / outside',
        `${report.repeatedImportsInWindow} / ${report.repeatedImportsOutsideWindow}`,
      ],
      [
        'duplicate events: same id / different id',
        `${report.duplicateEventsSameId} / ${report.duplicateEventsDifferentId}`,
      ],
      ['objects in the DLQ / DLQ messages of ingested objects', `${report.inDlq} / ${report.dlqOfFinished}`],
      ['stuck records (of which in the DLQ)', `${report.stuck} (${report.stuckInDlq})`],
    ],
  );
  process.stdout.write('\n');
  printTable(
    ['target', 'value', 'target value', 'result'],
    report.targets.map((t) => [t.name, t.value, t.target, t.pass ? 'PASS' : 'FAIL']),
  );
  process.stdout.write(
    `\nCrash window (import accepted → next progress write of its record answered), ms:\n` +
      `  from the PDS taking it:      p50 ${w.p50}, p90 ${w.p90}, p99 ${w.p99}, max ${w.max} (${w.count} imports)\n` +
      `  from the worker's 202:       p50 ${a.p50}, p90 ${a.p90}, p99 ${a.p99}, max ${a.max} (${a.count} imports)\n`,
  );
  if (Object.keys(report.dlqReasons).length > 0) {
    process.stdout.write('\nLast error of the objects in the DLQ:\n');
    for (const [reason, count] of Object.entries(report.dlqReasons).sort((x, y) => y[1] - x[1])) {
      process.stdout.write(`  ${count} × ${reason}\n`);
    }
  }
  if (report.lostKeys.length > 0)
    process.stdout.write(`\nLost: ${JSON.stringify(report.lostKeys.slice(0, 10))}\n`);
  process.stdout.write(`\n${JSON.stringify({ bench: 'chaos-ingest', ...report, lostKeys: undefined })}\n`);
}

function parseOptions(argv: string[]): IngestChaosOptions {
  const { values } = parseScriptArgs(
    {
      command: 'node bench/chaos/ingest.ts',
      summary:
        'Ingest under chaos (on 127.0.0.1): drops notified with duplicates, PDS faults, connection resets and killed workers, against moto; checks every drop ends in exactly one event and nothing is lost. Exits 1 when a target is missed.',
      options: {
        drops: { type: 'string', value: 'n', description: 'files dropped (default 200; --quick 30)' },
        workers: { type: 'string', value: 'n', description: 'ingest worker processes (default 3)' },
        'duplicate-rate': {
          type: 'string',
          value: 'share',
          description: 'notifications sent twice (default 0.3)',
        },
        'fault-rate': {
          type: 'string',
          value: 'share',
          description: 'PDS requests answered 503 or 429 (default 0.15)',
        },
        'reset-rate': {
          type: 'string',
          value: 'share',
          description: 'PDS requests reset mid-body (default 0.05)',
        },
        'kill-rate': {
          type: 'string',
          value: 'share',
          description: 'invocations whose worker is SIGKILLed (default 0.05)',
        },
        seed: { type: 'string', value: 'n', description: 'random seed (default 1)' },
        'deadline-seconds': {
          type: 'string',
          value: 's',
          description: 'give up after (default 420; --quick 120)',
        },
        quick: { type: 'boolean', description: 'a smoke run of well under a minute of load' },
        'keep-logs': {
          type: 'boolean',
          description: "keep the workers' and the simulator's logs (the directory is printed)",
        },
      },
    },
    argv,
  );
  const base = { ...DEFAULT_OPTIONS, ...(values.quick ? QUICK_OPTIONS : {}) };
  const number = (raw: string | undefined, fallback: number, name: string, max: number) => {
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!(Number.isFinite(value) && value >= 0 && value <= max)) {
      throw new Error(`--${name} must be a number from 0 to ${max}, got '${raw}'`);
    }
    return value;
  };
  return {
    drops: number(values.drops, base.drops, 'drops', 5_000),
    workers: Math.max(1, number(values.workers, base.workers, 'workers', 16)),
    duplicateRate: number(values['duplicate-rate'], base.duplicateRate, 'duplicate-rate', 1),
    faultRate: number(values['fault-rate'], base.faultRate, 'fault-rate', 1),
    resetRate: number(values['reset-rate'], base.resetRate, 'reset-rate', 1),
    killRate: number(values['kill-rate'], base.killRate, 'kill-rate', 1),
    seed: number(values.seed, base.seed, 'seed', 2 ** 31),
    deadlineSeconds: number(values['deadline-seconds'], base.deadlineSeconds, 'deadline-seconds', 3_600),
    keepLogs: values['keep-logs'] ?? false,
  };
}

if (import.meta.main) {
  const report = await runIngestChaos(parseOptions(process.argv.slice(2)));
  printReport(report);
  process.exitCode = report.pass ? 0 : 1;
}
