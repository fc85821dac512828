/**
 * `npm start` (packages/local/bin/local-stack.mjs): starts the local stack, prints how to use it, writes the
 * connection facts for `npm run drop` / `npm run events`, and stops everything on SIGINT / SIGTERM.
 * With `--demo` it runs one scripted pass end to end instead and exits with its outcome.
 *
 * Exit codes: 0 stopped cleanly (or the demo passed), 1 failed to start (or the demo failed),
 * 2 invalid flags or environment.
 */
import type { ParseArgsConfig } from 'node:util';
import { setting } from '@pds-bridge/bridge/config';
import { UsageError } from '@pds-bridge/bridge/core';
import { type LineIo, parsedOrExitCode, parseFlags, processLineIo } from '@pds-bridge/cli/command-line.ts';
import { startConsoleOn } from '@pds-bridge/cli/console/start.ts';
import {
  DEFAULT_STACK_FILE,
  emulatorClientConfig,
  refuseIfRunning,
  removeStackFile,
  writeStackFile,
} from '@pds-bridge/cli/stack-file.ts';
import { bannerLines } from './banner.ts';
import { runDemo } from './demo.ts';
import type { PdsConnection } from './environment.ts';
import { eventBridgeRequested, LOCAL_EVENTBRIDGE_FIX } from './eventbridge.ts';
import { showHandlerLogsAsLines } from './handler-logs.ts';
import {
  LOCAL_STACK_DEFAULTS,
  type LocalStackOptions,
  type RunningLocalStack,
  startLocalStack,
} from './stack.ts';
import { stackFactsOf } from './stack-facts.ts';

/** The `--help` text. */
export const START_USAGE = `Usage: npm start -- [options]

Runs pds-bridge on this machine: the PDS simulator (or the PDS named by PDS_BASE_URL), an S3+SQS
emulator with the drop and state buckets and every queue, and the real handlers fed by S3
notifications, schedules, queues and a local HTTP API. Ctrl-C stops it.

Options:
  --aws-port <n>                  S3+SQS emulator port (default 4566; 0 picks a free one)
  --pds-port <n>                  PDS simulator port (default 4010)
  --api-port <n>                  HTTP API port (default 3000)
                                  (with --demo every port defaults to 0, a free one)
  --data-dir <dir>                keep the emulator's state (objects, queues, checkpoints, watch list) and the webhook secrets
                                  in <dir> across restarts (default: in memory)
  --messaging-assets-rate <time>  how often poll-messaging-assets runs (default 10s; 2s with --demo)
  --supplier-reviews-rate <time>  how often poll-supplier-reviews runs (default 15s; 2s with --demo)
  --review-delay <time>           simulator: reviews appear this long after a publication (default 2s)
  --stack-file <path>             where to write the connection facts (default ${DEFAULT_STACK_FILE};
                                  with --demo none is written unless this is given)
  --eventbridge <url>             an EventBridge backend (moto_server, e.g. http://127.0.0.1:5000): the
                                  stack creates its bus there and events go to the queues and the bus
                                  (also LOCAL_EVENTBRIDGE_ENDPOINT; none: no EventBridge output)
  --demo                          run one scripted pass end to end, then stop; exit 0 only if every
                                  step happened (simulator only)
  --verbose                       log every invocation and the handlers' INFO logs
  --help                          print this text

Times: 500ms, 10s, 2m. Environment: PDS_BASE_URL with PDS_USERNAME and PDS_PASSWORD use a real PDS
instead of the simulator; tuning variables such as POLL_CONCURRENCY or INGEST_SUFFIXES are passed on.
`;

/** Demo runs poll faster so the whole pass takes seconds. */
const DEMO_RATES = { messagingAssetsRateMs: 2000, supplierReviewsRateMs: 2000, reviewDelayMs: 1000 };

/** What the command line asks for. */
export interface StartCommand {
  options: LocalStackOptions;
  demo: boolean;
  /** Where to write the connection facts; none for a demo unless asked. */
  stackFile?: string;
}

/** Where the command writes; replaced in tests. */
export type CliIo = LineIo;

/** The flags of `npm start`. */
const START_FLAGS = {
  'aws-port': { type: 'string' },
  'pds-port': { type: 'string' },
  'api-port': { type: 'string' },
  'data-dir': { type: 'string' },
  'messaging-assets-rate': { type: 'string' },
  'supplier-reviews-rate': { type: 'string' },
  'review-delay': { type: 'string' },
  'stack-file': { type: 'string' },
  eventbridge: { type: 'string' },
  demo: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

/** A string flag's value; undefined when it was not given. */
type Flag = (name: string) => string | undefined;

/**
 * Turns the arguments and the environment into what to start, or `'help'`.
 *
 * @throws UsageError naming the bad flag or variable
 * @example
 * ```ts
 * parseStartArgs(['--api-port', '0', '--demo'], {}); // { options: { apiPort: 0, ... }, demo: true, ... }
 * ```
 */
export function parseStartArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): StartCommand | 'help' {
  const { values } = parseFlags(argv, START_FLAGS, (message) => new UsageError(message));
  if (values.help) return 'help';
  const demo = values.demo === true;
  const flag: Flag = (name) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const port = (name: string, fallback: number) => portFlag(flag, name, fallback);
  const duration = (name: string, fallback: number, min: number) => durationFlag(flag, name, fallback, min);
  const pds = pdsFromEnvironment(env);
  if (demo && pds) {
    throw new UsageError(
      '--demo runs against the simulator only (a real PDS answers with reviews much later, and the demo would import test items into it); unset PDS_BASE_URL',
    );
  }
  const verbose = values.verbose === true;
  const dataDir = flag('data-dir');
  if (dataDir === '') throw new UsageError('--data-dir must name a directory');
  const options: LocalStackOptions = {
    // A demo must not collide with (or take the connection file of) a stack already running.
    awsPort: port('aws-port', demo ? 0 : LOCAL_STACK_DEFAULTS.awsPort),
    pdsPort: port('pds-port', demo ? 0 : LOCAL_STACK_DEFAULTS.pdsPort),
    apiPort: port('api-port', demo ? 0 : LOCAL_STACK_DEFAULTS.apiPort),
    messagingAssetsRateMs: duration(
      'messaging-assets-rate',
      demo ? DEMO_RATES.messagingAssetsRateMs : LOCAL_STACK_DEFAULTS.messagingAssetsRateMs,
      1000,
    ),
    supplierReviewsRateMs: duration(
      'supplier-reviews-rate',
      demo ? DEMO_RATES.supplierReviewsRateMs : LOCAL_STACK_DEFAULTS.supplierReviewsRateMs,
      1000,
    ),
    reviewDelayMs: duration(
      'review-delay',
      demo ? DEMO_RATES.reviewDelayMs : LOCAL_STACK_DEFAULTS.reviewDelayMs,
      1,
    ),
    verbose,
    ...(verbose ? { logLevel: 'INFO' } : {}),
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...(pds ? { pds } : {}),
  };
  const eventBridgeEndpoint = eventBridgeFrom(flag('eventbridge'), env);
  if (eventBridgeEndpoint) options.eventBridgeEndpoint = eventBridgeEndpoint;
  const stackFile = flag('stack-file') ?? (demo ? undefined : DEFAULT_STACK_FILE);
  return { options, demo, ...(stackFile !== undefined ? { stackFile } : {}) };
}

/**
 * The EventBridge backend: --eventbridge, else LOCAL_EVENTBRIDGE_ENDPOINT. Without one, an environment
 * that sends events to EventBridge is refused: the emulator has none, and the events would fail.
 */
function eventBridgeFrom(
  raw: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  const given = raw ?? env.LOCAL_EVENTBRIDGE_ENDPOINT?.trim();
  const name = raw !== undefined ? '--eventbridge' : 'LOCAL_EVENTBRIDGE_ENDPOINT';
  if (!given) {
    const requested = eventBridgeRequested(env);
    if (requested)
      throw new UsageError(
        `${requested} sends events to EventBridge, but the local stack has no EventBridge backend: ${LOCAL_EVENTBRIDGE_FIX}, or unset EVENT_DESTINATIONS (docs/local-stack.md, "EventBridge")`,
      );
    return undefined;
  }
  const url = setting.url(name).read(given);
  if (!url.ok || url.value === undefined || !/^https?:$/.test(new URL(given).protocol))
    throw new UsageError(
      `${name} must be the http(s) URL of an EventBridge backend such as moto_server, got '${given}'`,
    );
  return given.replace(/\/+$/, '');
}

/** A port from 0 to 65535; `fallback` when the flag is not given. */
function portFlag(flag: Flag, name: string, fallback: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new UsageError(`--${name} must be a port from 0 to 65535, got '${raw}'`);
  }
  return Number(raw);
}

/** A time of at least `min` ms, in milliseconds; `fallback` when the flag is not given. */
function durationFlag(flag: Flag, name: string, fallback: number, min: number): number {
  const raw = flag(name);
  if (raw === undefined) return fallback;
  const parsed = setting.duration(name).read(raw);
  if (!parsed.ok || parsed.value === undefined || parsed.value < min) {
    const least = min % 1000 === 0 ? `${min / 1000}s` : `${min}ms`;
    throw new UsageError(
      `--${name} must be a time of at least ${least} such as 1500ms, 10s or 2m, got '${raw}'`,
    );
  }
  return parsed.value;
}

/** A real PDS when PDS_BASE_URL is set (then the credentials are required), else `undefined`. */
function pdsFromEnvironment(env: Record<string, string | undefined>): PdsConnection | undefined {
  const raw = env.PDS_BASE_URL?.trim();
  if (!raw) return undefined;
  const url = setting.url('PDS_BASE_URL').read(raw);
  if (!url.ok || url.value === undefined) {
    throw new UsageError(
      `PDS_BASE_URL must be an absolute http(s) URL without credentials, got '${raw}'; unset it to use the simulator`,
    );
  }
  const username = env.PDS_USERNAME?.trim();
  const password = env.PDS_PASSWORD?.trim();
  if (!username || !password) {
    throw new UsageError(
      'PDS_BASE_URL is set, so the local stack uses that PDS: set PDS_USERNAME and PDS_PASSWORD too, or unset PDS_BASE_URL to use the simulator',
    );
  }
  return { baseUrl: url.value, username, password };
}

/**
 * Runs the command and resolves with its exit code once everything has stopped.
 *
 * @example
 * ```ts
 * process.exitCode = await runLocalStackCli(process.argv.slice(2));
 * ```
 */
export async function runLocalStackCli(
  argv: string[],
  io: CliIo = processLineIo,
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const command = parsedOrExitCode('local-stack', io, START_USAGE, () => parseStartArgs(argv, env));
  if (typeof command === 'number') return command;

  const signals = interruptions(io);
  // Handler records as one line each on the terminal (JSON, whole, with --verbose).
  const restoreStreams = command.options.verbose
    ? []
    : [process.stdout, process.stderr].map(showHandlerLogsAsLines);
  try {
    const log = (line: string) => io.out(`${new Date().toISOString().slice(11, 19)}Z ${line}`);
    const { stackFile } = command;
    let stack: RunningLocalStack;
    try {
      // One stack per stack file: a second one is refused before it binds a port, and never takes
      // (or later deletes) the running one's file.
      if (stackFile !== undefined) await refuseIfRunning(stackFile);
      stack = await startLocalStack({ ...command.options, log });
    } catch (error) {
      io.err(`local-stack: could not start: ${(error as Error).message}`);
      return 1;
    }
    // The operators' console beside the stack (not for --demo, which ends by itself).
    const operatorConsole = command.demo
      ? undefined
      : await startConsoleOn(
          { stage: 'local', stateBucket: stack.buckets.state, emulator: emulatorClientConfig(stack.aws) },
          { log: (line) => io.err(line) },
        );
    let wrote = false;
    try {
      if (stackFile !== undefined) {
        // Another stack may have written the file while this one started: then this one stops.
        const written = await writeStackFile(stackFile, stackFactsOf(stack)).then(
          () => true,
          (error: Error) => io.err(`local-stack: could not start: ${error.message}`),
        );
        if (written !== true) return 1;
        wrote = true;
      }
      const banner = bannerLines(stack, {
        demo: command.demo,
        ...(stackFile ? { stackFile } : {}),
        ...(operatorConsole ? { consoleUrl: operatorConsole.url } : {}),
      });
      for (const line of banner) io.out(line);
      if (signals.received()) return 0;
      if (command.demo) return await demo(stack, io, signals.next);
      await signals.next;
      return 0;
    } finally {
      io.out('Stopping the local stack…');
      await operatorConsole?.close();
      await stack.stop();
      if (wrote && stackFile !== undefined) await removeStackFile(stackFile);
      io.out('Stopped.');
    }
  } finally {
    signals.dispose();
    for (const restore of restoreStreams) restore();
  }
}

async function demo(stack: RunningLocalStack, io: CliIo, interrupted: Promise<string>): Promise<number> {
  io.out('Demo: one pass through the bridge; each step has its own time limit.');
  const outcome = await Promise.race([
    runDemo(stack, { out: io.out }),
    interrupted.then((signal) => ({ interrupted: signal })),
  ]);
  if ('interrupted' in outcome) {
    io.err(`✗ demo interrupted by ${outcome.interrupted}`);
    return 1;
  }
  if (outcome.ok) {
    io.out(`Demo passed: every step happened in ${(outcome.elapsedMs / 1000).toFixed(1)} s.`);
    return 0;
  }
  io.err(`Demo failed at step "${outcome.failedStep}": ${outcome.reason}`);
  return 1;
}

/** SIGINT / SIGTERM: the first stops the stack cleanly, a second one ends the process at once. */
function interruptions(io: CliIo) {
  let first: string | undefined;
  let resolveNext: (signal: string) => void = () => undefined;
  const next = new Promise<string>((resolve) => {
    resolveNext = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== undefined) {
      io.err(`local-stack: ${signal} again, exiting without waiting`);
      process.exit(130);
    }
    first = signal;
    resolveNext(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    next,
    received: () => first !== undefined,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
