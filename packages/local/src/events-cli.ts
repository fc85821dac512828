/**
 * `npm run events`: prints the bridge's events from the running local stack as they arrive, a
 * readable line each on a terminal, one JSON document per line when piped. It consumes what it
 * prints (deletes it from the queue) unless `--peek`. Runs until Ctrl-C (or `--count` events).
 *
 * Exit codes: 0 stopped (Ctrl-C or `--count` reached), 1 no running stack, 2 invalid flags.
 */

import { UsageError } from '@pds-bridge/bridge/core';
import { createS3Client, createSqsClient } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { parsedOrExitCode, parseFlags, processLineIo } from '@pds-bridge/cli/command-line.ts';
import { DEFAULT_STACK_FILE, emulatorClientConfig, stackFactsOrReport } from '@pds-bridge/cli/stack-file.ts';
import type { CliIo } from './cli.ts';
import { formatEventJson, formatEventLine } from './event-format.ts';
import { readEvents } from './event-reader.ts';

/** The `--help` text. */
export const EVENTS_USAGE = `Usage: npm run events -- [options]

Prints the events of the running local stack (npm start) as they arrive, and deletes them from
their queues: this command is their consumer. Ctrl-C stops it.

Options:
  --peek               leave the events on the queues (read through the emulator's inspection endpoint)
  --json               one CloudEvent JSON document per line (the default when stdout is not a terminal)
  --text               one readable line per event (the default on a terminal)
  --count <n>          stop after n events (it takes no more than it prints: the rest stay on the queues)
  --stack-file <path>  the running stack's connection facts (default ${DEFAULT_STACK_FILE})
  --help               print this text
`;

export interface EventsCommand {
  peek: boolean;
  format: 'json' | 'text';
  count?: number;
  stackFile: string;
}

/**
 * Parses the flags; `isTerminal` chooses the format when neither `--json` nor `--text` is given.
 *
 * @throws UsageError naming the bad flag
 */
export function parseEventsArgs(argv: string[], isTerminal: boolean): EventsCommand | 'help' {
  const { values } = parseFlags(
    argv,
    {
      peek: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      text: { type: 'boolean', default: false },
      count: { type: 'string' },
      'stack-file': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    (message) => new UsageError(message),
  );
  if (values.help) return 'help';
  if (values.json && values.text) throw new UsageError('--json and --text exclude each other; give one');
  const rawCount = typeof values.count === 'string' ? values.count : undefined;
  if (rawCount !== undefined && !/^[1-9]\d{0,8}$/.test(rawCount)) {
    throw new UsageError(`--count must be a positive integer, got '${rawCount}'`);
  }
  return {
    peek: values.peek === true,
    format: values.json ? 'json' : values.text ? 'text' : isTerminal ? 'text' : 'json',
    ...(rawCount !== undefined ? { count: Number(rawCount) } : {}),
    stackFile: typeof values['stack-file'] === 'string' ? values['stack-file'] : DEFAULT_STACK_FILE,
  };
}

/**
 * Runs the command; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runEventsCli(process.argv.slice(2));
 * ```
 */
export async function runEventsCli(
  argv: string[],
  io: CliIo = processLineIo,
  isTerminal = process.stdout.isTTY === true,
): Promise<number> {
  const command = parsedOrExitCode('events', io, EVENTS_USAGE, () => parseEventsArgs(argv, isTerminal));
  if (typeof command === 'number') return command;
  const facts = await stackFactsOrReport('events', io, command.stackFile);
  if (facts === undefined) return 1;
  const clientConfig = emulatorClientConfig(facts.aws);
  const s3 = createS3Client({ ...clientConfig, forcePathStyle: true });
  const sqs = createSqsClient(clientConfig);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let printed = 0;
  let lastError = '';
  io.err(
    `events: ${command.peek ? 'peeking at' : 'consuming'} ${facts.eventQueues.map((queue) => queue.name).join(', ')} on ${facts.aws.endpoint}; Ctrl-C stops`,
  );
  try {
    await readEvents({
      sqs,
      s3,
      queues: facts.eventQueues,
      signal: stop.signal,
      ...(command.peek ? { peek: { endpoint: facts.aws.endpoint } } : {}),
      ...(command.count !== undefined ? { wanted: () => (command.count ?? 0) - printed } : {}),
      onEvent: (received) => {
        if (command.count !== undefined && printed >= command.count) return false;
        io.out(command.format === 'json' ? formatEventJson(received) : formatEventLine(received));
        printed += 1;
        lastError = '';
        if (command.count !== undefined && printed >= command.count) stop.abort();
        return true;
      },
      onError: (error) => {
        // The same failure every second (the stack stopped) is said once.
        const message = (error as Error).message;
        if (message === lastError) return;
        lastError = message;
        io.err(`events: cannot read the queues (${message}); retrying — is the local stack still running?`);
      },
    });
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    s3.destroy();
    sqs.destroy();
  }
}
