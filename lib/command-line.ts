/**
 * What the small local commands (`local`, `local:events`, `local:drop`, the simulator) share: flag
 * parsing that turns Node's `parseArgs` refusal into the command's own usage error, and line output
 * on the process streams. The `pds` command has its own richer parser in lib/cli.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

/** Where a command writes whole lines; replaced in tests. */
export interface LineIo {
  out(line: string): void;
  err(line: string): void;
}

/**
 * {@link LineIo} on the process's stdout and stderr.
 *
 * @example
 * ```ts
 * process.exitCode = await runEventsCli(process.argv.slice(2), processLineIo);
 * ```
 */
export const processLineIo: LineIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** Flag values and positionals as the commands read them (a `multiple` option comes back as a string array). */
export interface ParsedFlags {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Strict `parseArgs`: an unknown flag or a missing value becomes `usageError` with the first line of
 * Node's message (the rest repeats the call site, which means nothing to the person typing).
 *
 * @throws whatever `usageError` builds
 * @example
 * ```ts
 * const { values } = parseFlags(argv, { help: { type: 'boolean', default: false } }, (m) => new LocalUsageError(m));
 * ```
 */
export function parseFlags(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  usageError: (message: string) => Error,
  allowPositionals = false,
): ParsedFlags {
  try {
    const { values, positionals } = parseArgs({ args: argv, strict: true, allowPositionals, options });
    return { values: values as ParsedFlags['values'], positionals };
  } catch (error) {
    throw usageError((error as Error).message.split('\n')[0] ?? 'invalid arguments');
  }
}

/**
 * The start of a command's run: parse, and either hand the command back or end with an exit code (2 and
 * `<program>: <problem> (see --help)` on stderr for a usage error, 0 after printing `usage` for --help).
 *
 * @example
 * ```ts
 * const command = parsedOrExitCode('drop', io, DROP_USAGE, () => parseDropArgs(argv));
 * if (typeof command === 'number') return command;
 * ```
 */
export function parsedOrExitCode<T extends object>(
  program: string,
  io: LineIo,
  usage: string,
  parse: () => T | 'help',
): T | number {
  let command: T | 'help';
  try {
    command = parse();
  } catch (error) {
    io.err(`${program}: ${(error as Error).message} (see --help)`);
    return 2;
  }
  if (command === 'help') {
    io.out(usage);
    return 0;
  }
  return command;
}
