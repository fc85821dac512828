/**
 * The shape of a `pds` subcommand: its words, arguments, options, help text and what it does. Commands
 * return their result as data plus an optional terminal rendering; main.ts decides which one is printed.
 */
import type { FullPdsClient } from '@pds-bridge/bridge/pds/resources';
import type { CliOptions, FlagValues } from './args.ts';
import type { CliIo } from './io.ts';
import type { TransferProgress } from './progress.ts';

/** What a command runs with. */
export interface CommandContext {
  /** The command's words, e.g. `folders ls`: usage errors name it. */
  command: string;
  /** Positional arguments after the command words. */
  args: string[];
  /** Parsed options (the command's and the global ones). */
  flags: FlagValues;
  io: CliIo;
  /** True when the result is printed as JSON (stdout not a terminal, or `--json`). */
  json: boolean;
  /** The PDS client, connected on first use from the flags and environment. */
  pds(): Promise<FullPdsClient>;
  /** Upload progress on stderr. */
  progress: TransferProgress;
}

/** A command's result: `data` is printed as JSON, `text()` (when given) on a terminal. */
export interface CommandResult {
  data: unknown;
  text?: () => string;
  /** True when the answer itself is a failure (a check that did not pass): printed, then exit code 1. */
  failed?: boolean;
}

/** One subcommand. */
export interface Command {
  /** The words after `pds`, e.g. `folders ls`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** More help, shown by `--help`. */
  description?: string;
  /** Positional arguments as help shows them, e.g. `PATH` or `FILE...`. */
  args: string;
  minArgs: number;
  maxArgs: number;
  options?: CliOptions;
  /** At least one example invocation. */
  examples: string[];
  /** Runs the command; `undefined` when it wrote its output itself (a download, raw XML). */
  run(context: CommandContext): Promise<CommandResult | undefined>;
}
