/**
 * The `pds` command line: finds the subcommand in the command table, parses its options with
 * `node:util` `parseArgs`, connects lazily, prints the result (JSON when stdout is not a terminal or with
 * `--json`, a table otherwise) and turns every failure into one line on stderr and an exit code:
 * 0 done, 1 the PDS or an input file refused it (or a check failed), 2 wrong usage or configuration.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(['folders', 'ls', '/images']);
 * ```
 */
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { ConfigError, UsageError } from '@pds-bridge/bridge/core';
import { closestName } from '@pds-bridge/bridge/core/suggest.ts';
import { PdsError } from '@pds-bridge/bridge/pds';
import type { FullPdsClient } from '@pds-bridge/bridge/pds/resources';
import packageJson from '../package.json' with { type: 'json' };
import { type CliOptions, type FlagValues, GLOBAL_OPTIONS } from './args.ts';
import type { Command } from './command.ts';
import { COMMANDS, GROUPS } from './commands/index.ts';
import { connect } from './connection.ts';
import { CliInputError } from './errors.ts';
import { commandHelp, groupHelp, overviewHelp } from './help.ts';
import { type CliIo, processIo, writeLine } from './io.ts';
import { TransferProgress } from './progress.ts';
import { shownJson, shownText } from './terminal.ts';

/** Exit codes of `pds`. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Where the command words are in the arguments, and what they name. */
type Located =
  | { kind: 'command'; command: Command; rest: string[] }
  | { kind: 'overview'; explicit: boolean }
  | { kind: 'group'; group: string; explicit: true }
  | { kind: 'version' };

/**
 * Runs `pds` with `argv` (the arguments after `pds`) and resolves its exit code; never throws.
 *
 * @example
 * ```ts
 * const code = await runCli(['subscriptions', 'list', '--json'], processIo());
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const debug = argv.includes('--debug');
  let client: FullPdsClient | undefined;
  try {
    const located = locate(argv);
    if (located.kind === 'version') {
      writeLine(io.stdout, packageJson.version);
      return EXIT.ok;
    }
    if (located.kind === 'overview' || located.kind === 'group') {
      const text = located.kind === 'overview' ? overviewHelp() : groupHelp(located.group);
      writeLine(located.explicit ? io.stdout : io.stderr, text);
      return located.explicit ? EXIT.ok : EXIT.usage;
    }
    const { command, rest } = located;
    const { flags, args } = parseCommandArgs(command, rest);
    if (flags.help === true) {
      writeLine(io.stdout, commandHelp(command));
      return EXIT.ok;
    }
    if (args.length < command.minArgs || args.length > command.maxArgs) {
      const expected = command.args ? `expects ${command.args}` : 'takes no arguments';
      throw new UsageError(`pds ${command.name} ${expected}, got ${args.length} argument(s)`, command.name);
    }
    const json = flags.json === true || !io.stdoutIsTTY;
    const result = await command.run({
      command: command.name,
      args,
      flags,
      io,
      json,
      pds: async () => {
        client ??= await connect(flags, io, command.name);
        return client;
      },
      progress: new TransferProgress({
        stream: io.stderr,
        interactive: io.stderrIsTTY,
        columns: io.stderrColumns,
      }),
    });
    if (result !== undefined) {
      // The output edge: the one place a result becomes text, escaped once whatever formatter made it.
      writeLine(io.stdout, json || !result.text ? shownJson(result.data) : shownText(result.text()));
    }
    return result?.failed ? EXIT.failed : EXIT.ok;
  } catch (error) {
    return report(error, io, debug);
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** The global options that take a value: their value is skipped while looking for the command words. */
const VALUE_OPTIONS = new Set(
  Object.entries(GLOBAL_OPTIONS)
    .filter(([, option]) => option.type === 'string')
    .map(([name]) => name),
);
const GLOBAL_NAMES = new Set([...Object.keys(GLOBAL_OPTIONS), 'version']);

/**
 * Finds the command words: the leading non-option arguments, global options (anywhere before them) skipped.
 * A command's own options must follow its words.
 */
function locate(argv: readonly string[]): Located {
  const words: Array<{ word: string; index: number }> = [];
  let help = false;
  for (let index = 0; index < argv.length && words.length < 3; index++) {
    const token = argv[index] as string;
    if (token === '--') break;
    if (token.startsWith('-') && token !== '-') {
      const name = token === '-h' ? 'help' : token.replace(/^--?/, '').split('=')[0];
      if (!GLOBAL_NAMES.has(name ?? '')) {
        if (words.length === 0) {
          throw new UsageError(
            `unknown option '${token}' before the command; a command's options follow its words`,
          );
        }
        break;
      }
      if (name === 'help') help = true;
      if (name === 'version' && words.length === 0) return { kind: 'version' };
      if (VALUE_OPTIONS.has(name ?? '') && !token.includes('=')) index++;
      continue;
    }
    words.push({ word: token, index });
  }
  if (words[0]?.word === 'help') {
    // `pds help folders ls` is `pds folders ls --help`.
    const rest = argv.filter((_, index) => index !== words[0]?.index);
    return locate([...rest, '--help']);
  }
  const [first, second, third] = words;
  if (!first) return { kind: 'overview', explicit: help };
  const withoutWords = (count: number) =>
    argv.filter((_, index) => !words.slice(0, count).some((word) => word.index === index));
  // Three words: `pds bridge webhooks create`.
  const triple =
    second &&
    third &&
    COMMANDS.find((command) => command.name === `${first.word} ${second.word} ${third.word}`);
  if (triple) return { kind: 'command', command: triple, rest: withoutWords(3) };
  const pair = second && COMMANDS.find((command) => command.name === `${first.word} ${second.word}`);
  if (pair) return { kind: 'command', command: pair, rest: withoutWords(2) };
  const single = COMMANDS.find((command) => command.name === first.word);
  if (single) return { kind: 'command', command: single, rest: withoutWords(1) };
  // A group of two words (`pds bridge webhooks`) before one of one word (`pds bridge`).
  const pairGroup = second ? `${first.word} ${second.word}` : undefined;
  if (pairGroup !== undefined && pairGroup in GROUPS) return inGroup(pairGroup, third?.word, help);
  if (first.word in GROUPS) return inGroup(first.word, second?.word, help);
  const guess = closestName(first.word, topLevelWords());
  throw new UsageError(`unknown command '${first.word}'${guess ? `; did you mean 'pds ${guess}'?` : ''}`);
}

/** A group's help when asked for, else the usage error for a missing or unknown subcommand. */
function inGroup(group: string, word: string | undefined, help: boolean): Located {
  if (help && word === undefined) return { kind: 'group', group, explicit: true };
  const names = COMMANDS.filter((command) => command.name.startsWith(`${group} `))
    .map((command) => command.name.slice(group.length + 1))
    .join(', ');
  const guess = word !== undefined ? closestName(word, names.split(', ')) : undefined;
  const problem =
    word !== undefined
      ? `unknown subcommand 'pds ${group} ${word}'${guess ? `; did you mean 'pds ${group} ${guess}'?` : ''}`
      : `'pds ${group}' needs a subcommand`;
  throw new UsageError(`${problem}; use one of ${names}`, group);
}

/** The first words of every command and group, e.g. `channels`, `folders`, `bridge`. */
function topLevelWords(): string[] {
  return [
    ...new Set(
      [...COMMANDS, ...Object.keys(GROUPS).map((name) => ({ name }))].map(
        (command) => command.name.split(' ')[0] as string,
      ),
    ),
  ];
}

function parseCommandArgs(command: Command, rest: string[]): { flags: FlagValues; args: string[] } {
  const options: CliOptions = { ...GLOBAL_OPTIONS, ...command.options };
  const config: ParseArgsOptionsConfig = {};
  for (const [name, option] of Object.entries(options)) {
    config[name] = {
      type: option.type,
      ...(option.multiple && { multiple: true }),
      ...(option.short && { short: option.short }),
    };
  }
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: config,
      allowPositionals: true,
      strict: true,
    });
    return { flags: values as FlagValues, args: positionals };
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw new UsageError(reason.replace(/\. To specify a positional.*$/, ''), command.name);
  }
}

/** Prints one line naming the problem (with the stack under --debug) and returns the exit code. */
function report(error: unknown, io: CliIo, debug: boolean): number {
  const causes = causeMessages(error);
  const region = causes.some((cause) => MISSING_REGION.test(cause));
  const usage = error instanceof UsageError || error instanceof ConfigError || region;
  const known = usage || error instanceof PdsError || error instanceof CliInputError;
  const message = error instanceof Error ? error.message : String(error);
  // A message that defers to its cause ("… failed with Error: see the cause") gets the cause shown.
  const shown = causes.filter((cause) => !message.includes(cause)).join(': ');
  const text = SEE_THE_CAUSE.test(message)
    ? message.replace(SEE_THE_CAUSE, shown || 'no cause was given')
    : `${message}${shown ? `: ${shown}` : ''}`;
  const hint =
    error instanceof UsageError
      ? ` (see pds ${error.command ? `${error.command} ` : ''}--help)`
      : region
        ? ` (${REGION_HINT})`
        : '';
  const line = `${known ? '' : 'unexpected error: '}${text}${hint}`.replace(/\s*[\r\n]+\s*/g, ' ');
  // Messages quote outside input (a PDS answer, a file name): escaped like every other text.
  writeLine(io.stderr, shownText(`pds: ${line}`));
  if (debug) writeLine(io.stderr, shownText(stackOf(error)));
  return usage ? EXIT.usage : EXIT.failed;
}

/** The AWS SDK's answer when no region is configured (it reads AWS_REGION, not AWS_DEFAULT_REGION). */
const MISSING_REGION = /\bRegion is missing\b/i;
/** The words of a message that leaves the explanation to its cause. */
const SEE_THE_CAUSE = /see the cause\s*$/;
const REGION_HINT =
  'set AWS_REGION, and AWS_DEFAULT_REGION for the AWS CLI v1, or use a profile with a region (AWS_PROFILE)';

/** The messages of an error's causes, outermost first. */
function causeMessages(error: unknown): string[] {
  const messages: string[] = [];
  let current = error instanceof Error ? error.cause : undefined;
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages;
}

/** The stack of an error and of each cause. */
function stackOf(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined; depth++) {
    parts.push(current instanceof Error ? (current.stack ?? String(current)) : String(current));
    current = current instanceof Error ? current.cause : undefined;
    if (current !== undefined) parts.push('Caused by:');
  }
  return parts.join('\n');
}
