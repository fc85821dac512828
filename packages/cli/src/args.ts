/**
 * Command-line argument helpers of `pds`: option definitions with their help text, and
 * converters from flag text to checked values. Parsing itself is `node:util` `parseArgs`, per command.
 */
import { isIntegerInRange, UsageError } from '@pds-bridge/bridge/core';

/** One option of a command: its `parseArgs` type plus what `--help` shows. */
export interface CliOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Placeholder of the value in help, e.g. `FILE`. */
  value?: string;
  description: string;
}

export type CliOptions = Record<string, CliOption>;

/** Parsed flag values as `parseArgs` returns them. */
export type FlagValues = Record<string, string | boolean | Array<string | boolean> | undefined>;

/** The options every command accepts. */
export const GLOBAL_OPTIONS: CliOptions = {
  'base-url': { type: 'string', value: 'URL', description: 'PDS address (default: $PDS_BASE_URL)' },
  username: { type: 'string', value: 'NAME', description: 'user name (default: $PDS_USERNAME)' },
  password: {
    type: 'string',
    value: 'SECRET',
    description:
      'password (default: $PDS_PASSWORD; prefer --password-stdin, arguments are visible to others)',
  },
  'password-stdin': { type: 'boolean', description: 'read the password from standard input' },
  'stack-file': {
    type: 'string',
    value: 'FILE',
    description:
      "the local stack's connection file (default: .local/stack.json here or in the nearest folder above)",
  },
  json: { type: 'boolean', description: 'print JSON (the default when stdout is not a terminal)' },
  debug: { type: 'boolean', description: 'print stack traces of errors' },
  help: { type: 'boolean', short: 'h', description: 'show help' },
};

/** A string flag, or undefined. */
export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** A boolean flag: true when given. */
export function booleanFlag(flags: FlagValues, name: string): boolean {
  return flags[name] === true;
}

/**
 * A repeatable string flag whose values may also be comma-separated: `--code a,b --code c` → `[a, b, c]`;
 * undefined when not given.
 */
export function listFlag(flags: FlagValues, name: string): string[] | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  const values = Array.isArray(value) ? value : [value];
  return values
    .flatMap((each) => String(each).split(','))
    .map((each) => each.trim())
    .filter((each) => each !== '');
}

/**
 * An integer flag within `min..max`; undefined when not given.
 *
 * @throws UsageError naming the flag and the accepted range
 */
export function integerFlag(
  flags: FlagValues,
  name: string,
  command: string,
  { min = 0, max = 2 ** 31 - 1 }: { min?: number; max?: number } = {},
): number | undefined {
  const text = stringFlag(flags, name);
  if (text === undefined) return undefined;
  const value = /^-?\d+$/.test(text.trim()) ? Number(text) : Number.NaN;
  if (!isIntegerInRange(value, { min, max })) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got '${text}'`, command);
  }
  return value;
}

/**
 * A `true` / `false` flag value (`--active false`); undefined when not given.
 *
 * @throws UsageError for any other text
 */
export function trueFalseFlag(flags: FlagValues, name: string, command: string): boolean | undefined {
  const text = stringFlag(flags, name);
  if (text === undefined) return undefined;
  if (/^(true|yes|1)$/i.test(text)) return true;
  if (/^(false|no|0)$/i.test(text)) return false;
  throw new UsageError(`--${name} must be true or false, got '${text}'`, command);
}
