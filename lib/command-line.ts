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

/** Flag values and positionals as the commands read them (no option is `multiple`). */
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
