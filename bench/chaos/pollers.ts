/**
 * The pollers' chaos run (issue 11): the messaging-asset poller and the review poller, run as Lambda
 * runs them, against a PDS that fails a fifth of its requests, with runs that overlap and runs that
 * are killed; then a quiet period; then every asset and review the PDS holds is counted against the
 * events on the queue. Not part of `npm test`; figures in docs/benchmarks.md ("Chaos: pollers").
 *
 *   node bench/chaos/pollers.ts [--assets 3000] [--keys 300] [--fault-rate 0.15] [--reset-rate 0.05]
 *     [--kill-rate 0.05] [--overlap 0.5] [--seed 1] [--deadline-seconds 600] [--quick]
 *
 * What runs where (everything on 127.0.0.1):
 * - moto (test/helpers/moto.ts): the state bucket, behind the atomic proxy (test/helpers/s3-proxy.ts)
 *   so conditional writes of one key are atomic as on S3; the events queue and the review fan-out
 *   queue (with its DLQ after 3 receives).
 * - the PDS simulator in a child process (pollers-simulator.ts), with `--fault-rate` 503/429 answers
 *   and `--reset-rate` connection resets, seeded.
 * - the handlers, bundled as shipped, in container processes (pollers-worker.ts, pollers-fleet.ts):
 *   poll-messaging-assets and poll-supplier-reviews on schedules, poll-supplier-reviews-worker fed by
 *   the fan-out queue as the SQS event source does (batch size 1, partial batch responses). A tick that
 *   finds a run still going starts another one anyway with probability `--overlap`; `--kill-rate` of
 *   the invocations get a SIGKILL at a random moment; Lambda's timeout is enforced.
 *
 * Phases: arrivals (assets, late assets, malformed and hostile XML, bodies SQS refuses, reviews of
 * watched keys arrive while faults and kills go on), then quiet (no faults, no kills) until every
 * record has an event or the quiet period ends. The run stops by itself at `--deadline-seconds`
 * whatever happens, killing every process it started.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { resolveEventBody } from '../../packages/bridge/src/events/sqs/index.ts';
import {
  type MessagingAssetCheckpoint,
  parseCheckpoint,
} from '../../packages/bridge/src/polling/checkpoint.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { readProgress } from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import type { LeaseRecord } from '../../packages/bridge/src/state/lease.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/index.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { parseScriptArgs } from '../../packages/cli/src/command-line.ts';
import { mulberry32, type Random } from '../../packages/simulator/src/random.ts';
import { type MotoServer, startMoto } from '../../test/helpers/moto.ts';
import { type S3Proxy, startS3Proxy } from '../../test/helpers/s3-proxy.ts';
import { bundleForNode, median, printTable, removeQuietly } from '../support.ts';
import {
  type AssetCount,
  countAssets,
  countReviews,
  type ReceivedEvent,
  type ReviewCount,
  type Target,
  targetsOf,
} from './pollers-count.ts';
import { Fleet, type FleetTally, type Outcome } from './pollers-fleet.ts';
import type { AssetKind, Inventory, SimulatorCommand } from './pollers-simulator.ts';
import { type SqsProxy, startSqsProxy } from './pollers-sqs-proxy.ts';
import type { PollerFunction } from './pollers-worker.ts';

export interface PollersChaosOptions {
  /** Messaging assets that arrive over the run (review messages come on top). Default 3000. */
  assets: number;
  /** Watched keys; each gets reviews over the run (two on average). Default 300. */
  keys: number;
  /** Share of PDS requests answered 503 or 429. Default 0.15. */
  faultRate: number;
  /** Share of PDS requests whose connection is reset mid-body. Default 0.05. */
  resetRate: number;
  /** Share of invocations SIGKILLed at a random moment. Default 0.05. */
  killRate: number;
  /** Chance that a schedule tick starts a run while the previous one still works. Default 0.5. */
  overlap: number;
  seed: number;
  /** Hard limit of the whole run, servers included. Default 600. */
  deadlineSeconds: number;
  /** How long assets and reviews keep arriving. Default 150 (quick: 20). */
  arrivalSeconds: number;
  /** Longest quiet period (it ends early once every record has an event). Default 120 (quick: 75). */
  quietSeconds: number;
  /** The functions' timeout; a lease lasts it plus a minute. Default 10 (quick: 6). */
  timeoutSeconds: number;
  /** POLL_PAGE_SIZE. Default 100. */
  pageSize: number;
  /** POLL_REVIEWS_INLINE_MAX: more watched keys than this are fanned out to the worker. Default 200 (quick: 20). */
  inlineMax: number;
  /** Where the containers' logs go; default a new directory under the system's temporary one. */
  logDir?: string;
}

export interface PollersChaosReport {
  options: PollersChaosOptions;
  seconds: { total: number; arrivals: number; quiet: number };
  /** True when every record had an event before the quiet period ended. */
  caughtUp: boolean;
  pds: { requests: number; faulted: number; resets: number };
  /** Per function; `medianSeconds` over the invocations that ran to their end. */
  runs: Record<PollerFunction, FleetTally & { medianSeconds: number }>;
  assets: AssetCount;
  reviews: ReviewCount;
  leasesHeld: string[];
  /** Fan-out chunks that failed three deliveries (informational: every scheduled run sends all keys). */
  reviewChunksDeadLettered: number;
  /** Event bodies SQS refused (characters outside its allowed set). */
  sqsRefused: number;
  /** Events whose type neither family knows. */
  unknownEvents: number;
  targets: Target[];
  pass: boolean;
  logDir: string;
}

const QUICK: Partial<PollersChaosOptions> = {
  assets: 400,
  keys: 60,
  arrivalSeconds: 20,
  quietSeconds: 75,
  timeoutSeconds: 6,
  inlineMax: 20,
  deadlineSeconds: 180,
};

/** The options from command-line arguments; `--quick` changes the defaults to a short smoke run. */
export function parsePollersChaosArgs(argv: string[]): PollersChaosOptions {
  const { values } = parseScriptArgs(
    {
      command: 'node bench/chaos/pollers.ts',
      summary:
        'The pollers under chaos (on 127.0.0.1): assets and reviews arriving while PDS faults, resets, kills and overlapping runs hit them; checks every asset and review ends in exactly one event. Exits 1 when a target is missed.',
      options: {
        assets: { type: 'string', value: 'n', description: 'messaging assets (default 3000; --quick 400)' },
        keys: { type: 'string', value: 'n', description: 'watched keys (default 300; --quick 60)' },
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
          description: 'invocations SIGKILLed at a random moment (default 0.05)',
        },
        overlap: {
          type: 'string',
          value: 'share',
          description: 'chance a schedule tick starts a run while the previous one works (default 0.5)',
        },
        seed: { type: 'string', value: 'n', description: 'random seed (default 1)' },
        'deadline-seconds': {
          type: 'string',
          value: 's',
          description: 'give up after (default 600; --quick 180)',
        },
        'arrival-seconds': {
          type: 'string',
          value: 's',
          description: 'how long new data keeps arriving (default 150; --quick 20)',
        },
        'quiet-seconds': {
          type: 'string',
          value: 's',
          description: 'longest quiet period after the arrivals (default 120; --quick 75)',
        },
        'timeout-seconds': {
          type: 'string',
          value: 's',
          description: "the functions' timeout (default 10; --quick 6)",
        },
        'page-size': { type: 'string', value: 'n', description: 'POLL_PAGE_SIZE (default 100)' },
        'inline-max': {
          type: 'string',
          value: 'n',
          description: 'POLL_REVIEWS_INLINE_MAX: more watched keys are fanned out (default 200; --quick 20)',
        },
        'log-dir': { type: 'string', value: 'dir', description: "keep the workers' logs here" },
        quick: { type: 'boolean', description: 'a short smoke run' },
      },
    },
    argv,
  );
  const base = { ...defaults(), ...(values.quick ? QUICK : {}) };
  const number = (flag: string, fallback: number, min: number, max: number): number => {
    const raw = values[flag as keyof typeof values];
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!(Number.isFinite(value) && value >= min && value <= max)) {
      throw new RangeError(`--${flag} must be a number from ${min} to ${max}, got '${String(raw)}'`);
    }
    return value;
  };
  return {
    assets: number('assets', base.assets, 0, 100_000),
    keys: number('keys', base.keys, 0, 10_000),
    faultRate: number('fault-rate', base.faultRate, 0, 1),
    resetRate: number('reset-rate', base.resetRate, 0, 1),
    killRate: number('kill-rate', base.killRate, 0, 1),
    overlap: number('overlap', base.overlap, 0, 1),
    seed: number('seed', base.seed, -(2 ** 31), 2 ** 31 - 1),
    deadlineSeconds: number('deadline-seconds', base.deadlineSeconds, 30, 7200),
    arrivalSeconds: number('arrival-seconds', base.arrivalSeconds, 1, 3600),
    quietSeconds: number('quiet-seconds', base.quietSeconds, 1, 3600),
    timeoutSeconds: number('timeout-seconds', base.timeoutSeconds, 2, 900),
    pageSize: number('page-size', base.pageSize, 1, 1000),
    inlineMax: number('inline-max', base.inlineMax, 0, 100_000),
    ...(values['log-dir'] ? { logDir: values['log-dir'] } : {}),
  };
}

function defaults(): PollersChaosOptions {
  return {
    assets: 3000,
    keys: 300,
    faultRate: 0.15,
    resetRate: 0.05,
    killRate: 0.05,
    overlap: 0.5,
    seed: 1,
    deadlineSeconds: 600,
    arrivalSeconds: 150,
    quietSeconds: 120,
    timeoutSeconds: 10,
    pageSize: 100,
    inlineMax: 200,
  };
}

/** Shares of the assets that arrive with each kind of XML; the rest are well-formed. */
const ASSET_MIX = { malformed: 0.03, hostile: 0.01, unsendable: 0.003 };
/** Share of the assets that arrive late: their id is taken, they are stored 3 to 10 seconds later. */
const LATE_SHARE = 0.05;
/** How often the schedules fire: the messaging-asset poller and the scheduled review run. */
const ASSET_SCHEDULE_MS = 2000;
const REVIEW_SCHEDULE_MS = 8000;
/** Fan-out workers at once (the worker's event-source maximum concurrency in deploy/pollers.yml). */
const REVIEW_WORKERS = 4;

/** Sends commands to the simulator child and waits for their answers. */
class SimulatorControl {
  readonly #child: ReturnType<typeof fork>;
  readonly #pending = new Map<number, (answer: { result?: unknown; error?: string }) => void>();
  #seq = 0;

  constructor(child: ReturnType<typeof fork>) {
    this.#child = child;
    child.on('message', (message: { seq?: number; result?: unknown; error?: string }) => {
      if (message.seq !== undefined) this.#pending.get(message.seq)?.(message);
    });
  }

  async send<T>(command: SimulatorCommand): Promise<T> {
    const seq = ++this.#seq;
    const answer = await new Promise<{ result?: unknown; error?: string }>((resolve) => {
      this.#pending.set(seq, resolve);
      this.#child.send({ seq, command });
    });
    this.#pending.delete(seq);
    if (answer.error) throw new Error(`simulator: ${answer.error}`);
    return answer.result as T;
  }
}

/** Everything the run started, so that one place stops it all, whatever happened. */
class Processes {
  moto: MotoServer | undefined;
  proxy: S3Proxy | undefined;
  sqsProxy: SqsProxy | undefined;
  simulator: ReturnType<typeof fork> | undefined;
  fleets: Fleet[] = [];

  async stopAll(): Promise<void> {
    await Promise.allSettled(this.fleets.map((fleet) => fleet.stop()));
    const simulator = this.simulator;
    if (simulator && simulator.exitCode === null && simulator.signalCode === null) {
      const exited = once(simulator, 'exit');
      simulator.kill('SIGKILL');
      await exited;
    }
    await this.proxy?.close().catch(() => {});
    await this.sqsProxy?.close().catch(() => {});
    await this.moto?.close().catch(() => {});
  }
}

/**
 * Runs the chaos run and returns its report (it also prints the table and the JSON line). Every
 * process it started is stopped before it returns or throws; the hard deadline is enforced here.
 *
 * @example
 * const report = await runPollersChaos(parsePollersChaosArgs(['--quick']));
 * if (!report.pass) process.exitCode = 1;
 */
export async function runPollersChaos(options: PollersChaosOptions): Promise<PollersChaosReport> {
  const processes = new Processes();
  const deadlineAt = Date.now() + options.deadlineSeconds * 1000;
  let watchdog: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    watchdog = setTimeout(
      () => reject(new Error(`the hard deadline of ${options.deadlineSeconds} s passed`)),
      options.deadlineSeconds * 1000,
    );
  });
  const chaos: Chaos = { killing: true, running: true };
  const running = run(options, processes, chaos, deadlineAt);
  running.catch(() => {}); // after the deadline, its late failures (servers gone) are of no interest
  try {
    return await Promise.race([running, deadline]);
  } finally {
    chaos.running = false;
    clearTimeout(watchdog);
    await processes.stopAll();
  }
}

/** Switches of the run: kills stop for the quiet period; everything stops at the end. */
interface Chaos {
  killing: boolean;
  running: boolean;
}

async function run(
  options: PollersChaosOptions,
  processes: Processes,
  chaos: Chaos,
  deadlineAt: number,
): Promise<PollersChaosReport> {
  const started = Date.now();
  const random = mulberry32(options.seed);
  const logDir = options.logDir ?? (await mkdtemp(path.join(tmpdir(), 'chaos-pollers-')));
  progress(`logs of the containers in ${logDir}`);

  // Servers: moto behind the atomic proxy, the simulator, the bundled handlers.
  const moto = await startMoto({
    buckets: ['chaos-state'],
    queues: [
      'events',
      {
        name: 'review-poll',
        visibilityTimeout: options.timeoutSeconds + 5,
        dlq: { name: 'review-poll-dlq', maxReceiveCount: 3 },
      },
    ],
  });
  processes.moto = moto;
  processes.proxy = await startS3Proxy(moto.endpoint);
  processes.sqsProxy = await startSqsProxy(moto.endpoint);
  const simulatorChild = fork(path.join(import.meta.dirname, 'pollers-simulator.ts'), [], {
    env: {
      ...process.env,
      CHAOS_SEED: String(options.seed),
      CHAOS_FAULT_RATE: String(options.faultRate),
      CHAOS_RESET_RATE: String(options.resetRate),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  processes.simulator = simulatorChild;
  const pdsUrl = await new Promise<string>((resolve, reject) => {
    simulatorChild.once('message', (message: { ready?: string }) =>
      message.ready ? resolve(message.ready) : reject(new Error('simulator did not start')),
    );
    simulatorChild.once('exit', (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const simulator = new SimulatorControl(simulatorChild);
  const bundle = await bundleForNode(path.join(import.meta.dirname, 'pollers-worker.ts'), logDir);

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...moto.env,
    AWS_ENDPOINT_URL_S3: processes.proxy.endpoint,
    AWS_ENDPOINT_URL_SQS: processes.sqsProxy.endpoint,
    PDS_BASE_URL: pdsUrl,
    PDS_USERNAME: 'demo',
    PDS_PASSWORD: 'demo',
    STATE_BUCKET: 'chaos-state',
    EVENTS_QUEUE_URL: moto.queueUrls.events as string,
    REVIEW_POLL_QUEUE_URL: moto.queueUrls['review-poll'] as string,
    POLL_FIRST_RUN: 'backlog',
    POLL_PAGE_SIZE: String(options.pageSize),
    POLL_REVIEWS_INLINE_MAX: String(options.inlineMax),
  };
  const log = createWriteStream(path.join(logDir, 'containers.log'));
  const fleetOf = (fn: PollerFunction) => {
    const fleet = new Fleet({ fn, bundle, env, timeoutMs: options.timeoutSeconds * 1000, log });
    processes.fleets.push(fleet);
    return fleet;
  };
  const fleets = {
    'poll-messaging-assets': fleetOf('poll-messaging-assets'),
    'poll-supplier-reviews': fleetOf('poll-supplier-reviews'),
    'poll-supplier-reviews-worker': fleetOf('poll-supplier-reviews-worker'),
  } satisfies Record<PollerFunction, Fleet>;

  // The watched keys exist in the PDS and are on the watch list before the first run.
  const store = new S3StateStore({ client: moto.s3, bucket: 'chaos-state' });
  const keys = Array.from({ length: options.keys }, (_, index) => `CHAOS-${String(index).padStart(5, '0')}`);
  await simulator.send({ op: 'items', primaryKeys: keys });
  for (const key of keys) await watch(store, [key], { ttlMs: 86_400_000, source: 'chaos' });

  const events = new EventCollector(moto);
  // A kill lands at a random moment within about twice the function's median run so far: runs here
  // last from tens of milliseconds (the scheduled review run) to seconds (a fan-out chunk).
  const killAfter = (fleet: Fleet) => (): number | undefined => {
    if (!(chaos.killing && random() < options.killRate)) return undefined;
    const typical = fleet.durations.length > 0 ? median(fleet.durations) * 1000 : 1000;
    return 5 + random() * 2 * typical;
  };
  const loops = [
    events.drain(() => chaos.running),
    schedule(
      fleets['poll-messaging-assets'],
      ASSET_SCHEDULE_MS,
      options.overlap,
      random,
      killAfter(fleets['poll-messaging-assets']),
      chaos,
    ),
    schedule(
      fleets['poll-supplier-reviews'],
      REVIEW_SCHEDULE_MS,
      options.overlap,
      random,
      killAfter(fleets['poll-supplier-reviews']),
      chaos,
    ),
    ...Array.from({ length: REVIEW_WORKERS }, () =>
      feedFanOut(
        fleets['poll-supplier-reviews-worker'],
        moto,
        killAfter(fleets['poll-supplier-reviews-worker']),
        chaos,
      ),
    ),
  ];

  progress(`arrivals for ${options.arrivalSeconds} s with faults and kills`);
  await arrive(simulator, options, keys, random, chaos);
  const arrivalsEnded = Date.now();

  progress(`quiet: no faults, no kills, up to ${options.quietSeconds} s`);
  chaos.killing = false;
  await simulator.send({ op: 'faults', on: false });
  const quietEnd = Math.min(Date.now() + options.quietSeconds * 1000, deadlineAt - 30_000);
  let inventory = await simulator.send<Inventory>({ op: 'inventory' });
  let caughtUp = false;
  while (Date.now() < quietEnd) {
    await sleep(3000);
    inventory = await simulator.send<Inventory>({ op: 'inventory' });
    caughtUp = events.covers(inventory);
    if (caughtUp) break;
  }
  // One more asset run and review round after the last record was seen, so the state settles.
  if (caughtUp) await sleep(Math.max(ASSET_SCHEDULE_MS, options.timeoutSeconds * 1000));
  const quietEnded = Date.now();
  chaos.running = false;
  await Promise.all(loops);
  await events.drainUntilEmpty();

  progress('counting');
  inventory = await simulator.send<Inventory>({ op: 'inventory' });
  const stored = await store.get<unknown>(MESSAGING_ASSETS_CHECKPOINT);
  const checkpoint: MessagingAssetCheckpoint | undefined = stored
    ? parseCheckpoint(stored.value, MESSAGING_ASSETS_CHECKPOINT)
    : undefined;
  const reviewProgress = await readProgress(store, keys);
  const seenByKey = new Map<string, string[]>();
  for (const key of keys) seenByKey.set(key, reviewProgress.get(key)?.seen ?? []);
  const leases = await moto.s3.send(new ListObjectsV2Command({ Bucket: 'chaos-state', Prefix: 'leases/' }));
  // A finished run leaves its lease record behind, expired, with how it ended: only live ones are held.
  const leasesHeld: string[] = [];
  for (const object of leases.Contents ?? []) {
    const lease = (await store.get<LeaseRecord>(object.Key ?? ''))?.value;
    if (lease && lease.expiresAt > Date.now()) leasesHeld.push(object.Key ?? '');
  }
  const dlq = await moto.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: moto.queueUrls['review-poll-dlq'],
      AttributeNames: ['ApproximateNumberOfMessages'],
    }),
  );

  const assets = countAssets(inventory.assets, events.received, checkpoint);
  const kinds = new Map(inventory.assets.map((asset) => [asset.id, asset.kind]));
  const reviews = countReviews(inventory.reviews, kinds, events.received, seenByKey);
  const assetRuns = fleets['poll-messaging-assets'].tally;
  // Runs that may have ended between a publish and its checkpoint write. A PollIncompleteError is not
  // one: the run saved what SQS accepted before it stopped.
  const interrupted =
    assetRuns.killed +
    assetRuns.timedOut +
    assetRuns.crashed +
    Object.entries(assetRuns.errors)
      .filter(([error]) => !error.startsWith('PollIncompleteError'))
      .reduce((sum, [, count]) => sum + count, 0);
  const targets = targetsOf(assets, reviews, leasesHeld.length, interrupted * options.pageSize);
  return {
    options,
    seconds: {
      total: (Date.now() - started) / 1000,
      arrivals: (arrivalsEnded - started) / 1000,
      quiet: (quietEnded - arrivalsEnded) / 1000,
    },
    caughtUp,
    pds: { requests: inventory.requests, faulted: inventory.faulted, resets: inventory.resets },
    runs: {
      'poll-messaging-assets': figuresOf(fleets['poll-messaging-assets']),
      'poll-supplier-reviews': figuresOf(fleets['poll-supplier-reviews']),
      'poll-supplier-reviews-worker': figuresOf(fleets['poll-supplier-reviews-worker']),
    },
    assets,
    reviews,
    leasesHeld,
    reviewChunksDeadLettered: Number(dlq.Attributes?.ApproximateNumberOfMessages ?? 0),
    sqsRefused: processes.sqsProxy.refused,
    unknownEvents: events.unknown,
    targets,
    pass: targets.every((target) => target.pass),
    logDir,
  };
}

/**
 * Assets and reviews arriving over `arrivalSeconds`, in ticks of half a second: a seeded mix of
 * kinds, late assets (id taken now, stored 3 to 10 s later), and about two reviews per watched key.
 */
async function arrive(
  simulator: SimulatorControl,
  options: PollersChaosOptions,
  keys: string[],
  random: Random,
  chaos: Chaos,
): Promise<void> {
  const ticks = Math.max(1, Math.round((options.arrivalSeconds * 1000) / 500));
  const late: Array<{ id: number; at: number }> = [];
  const kindOf = (): AssetKind => {
    const roll = random();
    if (roll < ASSET_MIX.unsendable) return 'unsendable';
    if (roll < ASSET_MIX.unsendable + ASSET_MIX.hostile) return 'hostile';
    if (roll < ASSET_MIX.unsendable + ASSET_MIX.hostile + ASSET_MIX.malformed) return 'malformed';
    return 'good';
  };
  // At least one of each kind, so every rule is exercised even in a short run.
  const forced: AssetKind[] = ['unsendable', 'hostile', 'malformed'];
  let assetsLeft = options.assets;
  let reviewsLeft = keys.length * 2;
  for (let tick = 0; tick < ticks && chaos.running; tick++) {
    const tickStart = Date.now();
    const assetsNow = Math.round(assetsLeft / (ticks - tick));
    assetsLeft -= assetsNow;
    const lateNow = Array.from({ length: assetsNow }, () => random() < LATE_SHARE).filter(Boolean).length;
    const kinds = Array.from({ length: assetsNow - lateNow }, () => forced.pop() ?? kindOf());
    if (lateNow > 0) {
      const ids = await simulator.send<number[]>({ op: 'reserve', count: lateNow });
      for (const id of ids) late.push({ id, at: Date.now() + 3000 + random() * 7000 });
    }
    if (kinds.length > 0) await simulator.send({ op: 'assets', kinds });
    const due = late.filter((entry) => entry.at <= Date.now() || tick === ticks - 1);
    if (due.length > 0) {
      await simulator.send({ op: 'release', ids: due.map((entry) => entry.id) });
      for (const entry of due) late.splice(late.indexOf(entry), 1);
    }
    const reviewsNow = Math.round(reviewsLeft / (ticks - tick));
    reviewsLeft -= reviewsNow;
    if (reviewsNow > 0 && keys.length > 0) {
      const reviews = Array.from({ length: reviewsNow }, () => ({
        primaryKey: keys[Math.floor(random() * keys.length)] as string,
        kind: tick === 1 ? 'unsendable' : random() < 0.04 ? 'malformed' : ('good' as AssetKind),
      }));
      await simulator.send({ op: 'reviews', reviews });
    }
    await sleep(Math.max(0, 500 - (Date.now() - tickStart)));
  }
}

/**
 * A schedule: every `everyMs` an invocation, unless one is still running; then another one starts
 * anyway with probability `overlap` (a retried invocation, an operator's manual run).
 */
async function schedule(
  fleet: Fleet,
  everyMs: number,
  overlap: number,
  random: Random,
  killAfter: () => number | undefined,
  chaos: { running: boolean },
): Promise<void> {
  const inFlight = new Set<Promise<Outcome>>();
  while (chaos.running) {
    if (fleet.busy === 0 || (random() < overlap && fleet.busy < 3)) {
      const invocation = fleet.invoke({ source: 'aws.scheduler' }, killAfter());
      inFlight.add(invocation);
      void invocation.finally(() => inFlight.delete(invocation));
    }
    await sleep(everyMs);
  }
  await Promise.all(inFlight);
}

/** The SQS event source of the fan-out worker: one chunk per invocation, deleted when it fully succeeded. */
async function feedFanOut(
  fleet: Fleet,
  moto: MotoServer,
  killAfter: () => number | undefined,
  chaos: { running: boolean },
): Promise<void> {
  const queueUrl = moto.queueUrls['review-poll'] as string;
  while (chaos.running) {
    const answer = await moto.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const [message] = answer.Messages ?? [];
    if (!message) continue;
    const outcome = await fleet.invoke({ Records: [sqsRecordOf(message, moto)] }, killAfter());
    const failures = outcome.kind === 'ok' ? (outcome.value as SQSBatchResponse).batchItemFailures : [];
    if (outcome.kind === 'ok' && failures.length === 0) {
      await moto.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
}

function sqsRecordOf(message: Message, moto: MotoServer) {
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    attributes: message.Attributes ?? {},
    messageAttributes: {},
    md5OfBody: message.MD5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: moto.queueArns['review-poll'],
    awsRegion: moto.region,
  };
}

/** Takes every event off the events queue as it arrives and keeps what the counting needs. */
class EventCollector {
  readonly received: ReceivedEvent[] = [];
  unknown = 0;
  readonly #moto: MotoServer;

  constructor(moto: MotoServer) {
    this.#moto = moto;
  }

  /** Receives until `running()` turns false. */
  async drain(running: () => boolean): Promise<void> {
    while (running()) {
      if ((await this.#receiveOnce()) === 0) await sleep(500);
    }
  }

  /** Receives until the queue answers empty twice in a row. */
  async drainUntilEmpty(): Promise<void> {
    for (let empty = 0; empty < 2; ) empty = (await this.#receiveOnce()) === 0 ? empty + 1 : 0;
  }

  /** True when every asset and every review of the inventory has at least one event. */
  covers(inventory: Inventory): boolean {
    const assets = new Set<number>();
    const reviews = new Set<number>();
    for (const event of this.received) {
      if (event.messagingAssetId === undefined) continue;
      (event.type.startsWith('pds.supplier-review.') ? reviews : assets).add(event.messagingAssetId);
    }
    return (
      inventory.assets.every((asset) => assets.has(asset.id)) &&
      inventory.reviews.every((review) => reviews.has(review.messagingAssetId))
    );
  }

  async #receiveOnce(): Promise<number> {
    const { sqs, s3 } = this.#moto;
    const queueUrl = this.#moto.queueUrls.events as string;
    const answer = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = answer.Messages ?? [];
    for (const message of messages) {
      const body = await resolveEventBody(message.Body ?? '', message.MessageAttributes, s3);
      this.#record(JSON.parse(body));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
    }
    return messages.length;
  }

  #record(event: {
    id: string;
    type: string;
    subject?: string;
    data?: { messagingAssetId?: number; parseError?: unknown; review?: { messagingAssetId?: number } };
  }): void {
    const fromSubject = /^messaging-asset\/(\d+)$/.exec(event.subject ?? '')?.[1];
    const messagingAssetId =
      event.data?.messagingAssetId ??
      event.data?.review?.messagingAssetId ??
      (fromSubject === undefined ? undefined : Number(fromSubject));
    if (messagingAssetId === undefined) this.unknown++;
    this.received.push({
      id: event.id,
      type: event.type,
      messagingAssetId,
      parseError: event.data?.parseError !== undefined,
    });
  }
}

function figuresOf(fleet: Fleet): FleetTally & { medianSeconds: number } {
  return { ...fleet.tally, medianSeconds: fleet.durations.length > 0 ? median(fleet.durations) : 0 };
}

function progress(line: string): void {
  process.stderr.write(`[chaos:pollers] ${line}\n`);
}

/** Prints the report: the figures, the targets with PASS/FAIL, and one JSON line for machines. */
export function printPollersChaosReport(report: PollersChaosReport): void {
  const { assets, reviews, options } = report;
  process.stdout.write(
    `\nChaos: pollers. ${options.assets} assets (+${reviews.total} review messages), ${options.keys} watched keys, faults ${options.faultRate} + resets ${options.resetRate}, kill rate ${options.killRate}, overlap ${options.overlap}, seed ${options.seed}\n`,
  );
  process.stdout.write(
    `${report.seconds.total.toFixed(0)} s (arrivals ${report.seconds.arrivals.toFixed(0)} s, quiet ${report.seconds.quiet.toFixed(0)} s, caught up: ${report.caughtUp ? 'yes' : 'no'}); PDS requests ${report.pds.requests}, of them ${report.pds.faulted} answered 503/429 and ${report.pds.resets} reset\n\n`,
  );
  printTable(
    [
      'function',
      'invocations',
      'ran',
      'skipped (lease)',
      'failed',
      'killed (of scheduled)',
      'timed out',
      'cold starts',
      'median s',
    ],
    Object.entries(report.runs).map(([fn, tally]) => [
      fn,
      tally.invocations,
      tally.ok,
      tally.skipped,
      Object.values(tally.errors).reduce((sum, count) => sum + count, 0),
      `${tally.killed} of ${tally.killsScheduled}`,
      tally.timedOut + tally.crashed,
      tally.coldStarts,
      tally.medianSeconds.toFixed(2),
    ]),
  );
  process.stdout.write('\n');
  const family = (count: AssetCount | ReviewCount) => [
    count.total,
    count.emitted,
    count.lost,
    `${count.duplicatedSameId} / ${count.duplicatedOtherId}`,
    count.extraMessages,
    `${count.malformedAsParseError} of ${count.malformed}`,
    `${count.unsendableEmitted} of ${count.unsendable}`,
    count.failedEvents,
    count.stuck,
  ];
  printTable(
    [
      'family',
      'records',
      'emitted',
      'lost',
      'dup same id / other id',
      'extra msgs',
      'malformed as parse error',
      'unsendable emitted',
      'failed events',
      'stuck',
    ],
    [
      ['messaging assets', ...family(assets)],
      ['supplier reviews', ...family(reviews)],
    ],
  );
  process.stdout.write(
    `\ncheckpoint: ${assets.emittedRanges} emitted ranges, highest ${assets.highestId}, retry ${assets.retryLeft}; late assets ${assets.lateEmitted} of ${assets.late} emitted; stuck keys ${reviews.stuckKeys}; leases held ${report.leasesHeld.join(', ') || 'none'}; fan-out chunks dead-lettered ${report.reviewChunksDeadLettered}; event bodies SQS refused ${report.sqsRefused}\n`,
  );
  if (assets.lostIds.length > 0)
    process.stdout.write(`lost asset ids (first 20): ${assets.lostIds.join(', ')}\n`);
  if (reviews.lostIds.length > 0) {
    process.stdout.write(`lost review message ids (first 20): ${reviews.lostIds.join(', ')}\n`);
  }
  for (const [fn, tally] of Object.entries(report.runs)) {
    for (const [error, count] of Object.entries(tally.errors))
      process.stdout.write(`${fn} failed ${count}x: ${error}\n`);
  }
  process.stdout.write('\n');
  printTable(
    ['target', 'value', 'target', 'result'],
    report.targets.map((target) => [target.name, target.value, target.target, target.pass ? 'PASS' : 'FAIL']),
  );
  process.stdout.write(`\nresult: ${report.pass ? 'PASS' : 'FAIL'} (container logs: ${report.logDir})\n`);
  process.stdout.write(`${JSON.stringify({ bench: 'chaos-pollers', ...report })}\n`);
}

if (import.meta.filename === process.argv[1]) {
  const options = parsePollersChaosArgs(process.argv.slice(2));
  const report = await runPollersChaos(options);
  printPollersChaosReport(report);
  // A failed run keeps its logs to be read; a passing one leaves nothing behind unless asked to.
  if (report.pass && options.logDir === undefined) {
    await removeQuietly(report.logDir);
    process.stdout.write('container logs removed (--log-dir DIR keeps them)\n');
  }
  process.exitCode = report.pass ? 0 : 1;
}
