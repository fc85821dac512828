/**
 * What the small local commands (`local`, `local:events`, `local:drop`, the simulator) share: flag
 * parsing that turns Node's `parseArgs` refusal into the command's own usage error, and line output
 * on the process streams. The `pds` command has its own richer parser in packages/cli/src.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { shownText } from './terminal.ts';

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
  // The output edge of the local commands: outside bytes are shown escaped (terminal.ts).
  out: (line) => process.stdout.write(`${shownText(line)}\n`),
  err: (line) => process.stderr.write(`${shownText(line)}\n`),
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
 * const { values } = parseFlags(argv, { help: { type: 'boolean', default: false } }, (m) => new UsageError(m));
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
    // Node's hint about positionals that start with '-' quotes unevenly and names no flag: dropped.
    const reason = (error as Error).message.split('\n')[0] ?? 'invalid arguments';
    throw usageError(reason.replace(/\. To specify a positional.*$/, ''));
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

/** One flag of a script (bench/, scripts/): Node's parseArgs settings and what `--help` says of it. */
export type ScriptOption =
  | {
      type: 'string';
      default?: string;
      description: string /** Shown as `--flag <value>`; default `value`. */;
      value?: string;
    }
  | { type: 'boolean'; description: string };

/** What a script accepts, for parsing and for its `--help`. */
export interface ScriptSpec<O extends Record<string, ScriptOption>> {
  /** How it is run, e.g. `node bench/poll.ts`; its path names the script in error lines. */
  command: string;
  /** What it does, in a sentence or two. */
  summary: string;
  options: O;
  /** What its positional arguments are, e.g. `[NAME ...]`; none are accepted when left out. */
  positionals?: string;
}

/** The flag values a script receives: strings (defaulted ones always set) and booleans (false unless given). */
export type ScriptValues<O extends Record<string, ScriptOption>> = {
  [K in keyof O]: O[K] extends { type: 'boolean' }
    ? boolean
    : O[K] extends { default: string }
      ? string
      : string | undefined;
};

/**
 * The `--help` text of a script.
 *
 * @example
 * ```ts
 * scriptUsage({ command: 'node bench/xml.ts', summary: 'XML parsing rates.', options: { rounds: { type: 'string', default: '15', description: 'rounds' } } });
 * ```
 */
export function scriptUsage(spec: ScriptSpec<Record<string, ScriptOption>>): string {
  const flags = Object.entries(spec.options).map(([name, option]) => {
    const flag = option.type === 'string' ? `--${name} <${option.value ?? 'value'}>` : `--${name}`;
    const fallback =
      option.type === 'string' && option.default !== undefined ? ` (default ${option.default})` : '';
    return [flag, `${option.description}${fallback}`] as const;
  });
  flags.push(['--help', 'print this text']);
  const width = Math.max(...flags.map(([flag]) => flag.length)) + 2;
  return [
    `Usage: ${spec.command} [options]${spec.positionals ? ` ${spec.positionals}` : ''}`,
    '',
    spec.summary,
    '',
    'Options:',
    ...flags.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
  ].join('\n');
}

/**
 * Parses a script's arguments strictly. `--help` prints {@link scriptUsage} and exits 0; an unknown
 * flag, a missing value or an unexpected positional prints one line, `<script>: <problem> (see --help)`,
 * and exits 2: no stack trace.
 *
 * @example
 * ```ts
 * const { values } = parseScriptArgs({
 *   command: 'node bench/xml.ts',
 *   summary: 'How fast each way of parsing reads the GDSN fixtures.',
 *   options: { rounds: { type: 'string', default: '15', value: 'n', description: 'rounds to measure' } },
 * });
 * Number(values.rounds);
 * ```
 */
export function parseScriptArgs<const O extends Record<string, ScriptOption>>(
  spec: ScriptSpec<O>,
  argv: string[] = process.argv.slice(2),
  io: LineIo = processLineIo,
  exit: (code: number) => never = process.exit,
): { values: ScriptValues<O>; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', default: false } };
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] =
      option.type === 'boolean'
        ? { type: 'boolean', default: false }
        : { type: 'string', ...(option.default !== undefined ? { default: option.default } : {}) };
  }
  const script = spec.command.split(' ').find((word) => /\.(m?[jt]s)$/.test(word)) ?? spec.command;
  let parsed: ParsedFlags;
  try {
    parsed = parseFlags(argv, options, (message) => new Error(message), spec.positionals !== undefined);
  } catch (error) {
    io.err(`${script}: ${(error as Error).message} (see --help)`);
    return exit(2);
  }
  if (parsed.values.help === true) {
    io.out(scriptUsage(spec));
    return exit(0);
  }
  const { help: _help, ...values } = parsed.values;
  return { values: values as ScriptValues<O>, positionals: parsed.positionals };
}
