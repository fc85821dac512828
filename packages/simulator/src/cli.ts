/**
 * The `pds-simulator` command line: parses flags, starts the simulator, prints its address and the
 * credentials, and closes cleanly on SIGINT / SIGTERM. Exit codes: 0 normal, 1 failed to start,
 * 2 invalid flags.
 */

import { UsageError } from '@pds-bridge/bridge/core';
import { type LineIo, parseFlags, processLineIo } from '@pds-bridge/cli/command-line.ts';
import {
  RECIPIENT_BEHAVIOURS,
  type RecipientBehaviour,
  type RunningSimulator,
  type SimulatorOptions,
  startSimulator,
} from './index.ts';

/** The usage text printed by `--help`. */
export const USAGE = `Usage: pds-simulator [options]

Runs the Product Data Service simulator (the /api/v1 and /v1 families) until SIGINT or SIGTERM.

Options:
  --host <host>             address to listen on (default 127.0.0.1)
  --port <n>                port, 0 for any free port (default 4010)
  --username <name>         Basic auth user name (default demo)
  --password <secret>       Basic auth password (default demo)
  --seed <n>                seed of generated ids and faults (default 1)
  --fault-rate <r>          share 0..1 of requests answered 503 or 429 (default 0)
  --reset-rate <r>          share 0..1 of requests whose connection is reset mid-body (default 0)
  --latency-ms <n>          delay added to every request (default 0)
  --review-delay-ms <n>     delay before reviews of a channel publication appear (default 3000)
  --page-messaging-assets   page the messaging-asset listing by limit/offset/x-cursor (default: whole list)
  --recipient <ch>=<how>    how channel <ch>'s recipient answers (repeatable): synchronise, review,
                            reject, gdsn-2.8, out-of-order or silent (default: each demo channel its own)
  --help                    print this text
`;

/** The usage error of a flag that is unknown, missing its value or out of range; the message names the flag. */
function usage(message: string): UsageError {
  return new UsageError(`${message} (see --help)`);
}

/** Where the command writes; replaced in tests. */
export type CliOutput = LineIo;

/**
 * Turns command-line arguments into simulator options, or `'help'`.
 *
 * @example
 * parseCliArgs(['--port', '0', '--fault-rate', '0.1']); // { host: '127.0.0.1', port: 0, ..., faults: { rate: 0.1, seed: 1 } }
 */
export function parseCliArgs(argv: string[]): SimulatorOptions | 'help' {
  const { values } = parseFlags(
    argv,
    {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '4010' },
      username: { type: 'string', default: 'demo' },
      password: { type: 'string', default: 'demo' },
      seed: { type: 'string', default: '1' },
      'fault-rate': { type: 'string' },
      'reset-rate': { type: 'string' },
      'latency-ms': { type: 'string' },
      'review-delay-ms': { type: 'string', default: '3000' },
      'page-messaging-assets': { type: 'boolean', default: false },
      recipient: { type: 'string', multiple: true },
      help: { type: 'boolean', default: false },
    },
    (message) => usage(message),
  );
  if (values.help) return 'help';
  const text = (name: string) => String(values[name] ?? '');
  const seed = integerFlag('seed', text('seed'), Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const options: SimulatorOptions = {
    host: text('host'),
    port: integerFlag('port', text('port'), 0, 65535),
    username: text('username'),
    password: text('password'),
    seed,
    reviewDelayMs: integerFlag('review-delay-ms', text('review-delay-ms'), 0, 2 ** 31 - 1),
    ...(values['page-messaging-assets'] === true ? { pageMessagingAssets: true } : {}),
  };
  if (options.username?.includes(':')) throw usage('--username must not contain ":"');
  const recipients = recipientFlags((values.recipient as string[] | undefined) ?? []);
  if (Object.keys(recipients).length > 0) options.recipients = recipients;
  const faults = {
    ...(values['fault-rate'] !== undefined && { rate: shareFlag('fault-rate', text('fault-rate')) }),
    ...(values['reset-rate'] !== undefined && { resetRate: shareFlag('reset-rate', text('reset-rate')) }),
    ...(values['latency-ms'] !== undefined && {
      latencyMs: integerFlag('latency-ms', text('latency-ms'), 0, 600_000),
    }),
  };
  if (Object.keys(faults).length > 0) options.faults = { ...faults, seed };
  return options;
}

function recipientFlags(raw: readonly string[]): Record<string, RecipientBehaviour> {
  const recipients: Record<string, RecipientBehaviour> = {};
  for (const text of raw) {
    const [channel, behaviour] = text.split('=');
    if (!channel || !(RECIPIENT_BEHAVIOURS as readonly string[]).includes(behaviour ?? '')) {
      throw usage(
        `--recipient must be CHANNEL=BEHAVIOUR with a behaviour of ${RECIPIENT_BEHAVIOURS.join(', ')}, got '${text}'`,
      );
    }
    recipients[channel] = behaviour as RecipientBehaviour;
  }
  return recipients;
}

function integerFlag(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw usage(`--${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

function shareFlag(name: string, raw: string): number {
  const value = Number(raw);
  if (!/^\d*\.?\d+$/.test(raw) || value > 1) {
    throw usage(`--${name} must be a number from 0 to 1, got '${raw}'`);
  }
  return value;
}

/**
 * Runs the command: prints usage, or starts the simulator and stops it on SIGINT / SIGTERM.
 * Sets `process.exitCode`; resolves with the running simulator when one was started.
 *
 * @example
 * await runCli(process.argv.slice(2));
 */
export async function runCli(
  argv: string[],
  output: CliOutput = processLineIo,
): Promise<RunningSimulator | undefined> {
  let options: SimulatorOptions | 'help';
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    output.err(`pds-simulator: ${(error as Error).message}`);
    process.exitCode = 2;
    return undefined;
  }
  if (options === 'help') {
    output.out(USAGE);
    return undefined;
  }
  let simulator: RunningSimulator;
  try {
    simulator = await startSimulator(options);
  } catch (error) {
    output.err(
      `pds-simulator: could not start on ${options.host}:${options.port} (${(error as Error).message})`,
    );
    process.exitCode = 1;
    return undefined;
  }
  output.out(
    `PDS simulator listening on ${simulator.url} (username ${simulator.username}, password ${simulator.password})`,
  );
  const stop = (signal: NodeJS.Signals) => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    output.out(`pds-simulator: ${signal} received, closing`);
    simulator.close().then(
      () => {
        process.exitCode = 0;
      },
      (error: Error) => {
        output.err(`pds-simulator: close failed (${error.message})`);
        process.exitCode = 1;
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return simulator;
}
