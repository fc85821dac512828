/**
 * The one family of option checks: each option is checked once, up front (in a constructor or where
 * settings are parsed), and a wrong value gets one error naming the option, what it accepts and what
 * it got. Configuration variables (packages/bridge/src/config/settings.ts) use the same predicate and word their own
 * problem, since a variable's message names the variable and quotes its raw text.
 */
import { OptionError } from './errors.ts';

/** The bounds of an integer option; `max` defaults to none. */
export interface IntegerBounds {
  min: number;
  max?: number;
}

/** Builds the error to throw from the message (for packages with an error class of their own). */
export type OptionErrorFactory = (message: string, option: string) => Error;

const optionError: OptionErrorFactory = (message, option) => new OptionError(option, message);

/**
 * True when `value` is a safe integer within the bounds: the predicate for checks whose error is worded
 * by the caller (a CLI flag quoting its text, a query parameter).
 *
 * @example
 * ```ts
 * isIntegerInRange(503, { min: 100, max: 599 }); // true
 * ```
 */
export function isIntegerInRange(
  value: unknown,
  { min, max = Number.MAX_SAFE_INTEGER }: IntegerBounds,
): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

/**
 * `value` when it is a safe integer within the bounds; otherwise throws one error naming the option:
 * `<name> must be a positive integer, got <value>` (min 1, no max), `… a non-negative integer …` (min 0,
 * no max) or `… an integer from <min> to <max> …`, followed by `; <fix>` when given.
 *
 * @param fail builds the error from the message; default an {@link OptionError}
 *
 * @example
 * ```ts
 * checkInteger('pageSize', options.pageSize ?? 100, { min: 1 });
 * // OptionError: pageSize must be a positive integer, got 0
 * checkInteger('concurrency', 65, { min: 1, max: 64 }, (message) => new ConfigError(message, { variables: ['concurrency'] }));
 * ```
 */
export function checkInteger(
  name: string,
  value: number,
  bounds: IntegerBounds,
  fail: OptionErrorFactory = optionError,
  fix?: string,
): number {
  if (isIntegerInRange(value, bounds)) return value;
  throw fail(`${name} must be ${integerWanted(bounds)}, got ${String(value)}${fix ? `; ${fix}` : ''}`, name);
}

function integerWanted({ min, max }: IntegerBounds): string {
  if (max === undefined && min === 1) return 'a positive integer';
  if (max === undefined && min === 0) return 'a non-negative integer';
  if (max === undefined) return `an integer of at least ${min}`;
  return `an integer from ${min} to ${max}`;
}

/**
 * `value` when it is a finite number of milliseconds, at least 0; otherwise throws one error naming
 * the option: `<name> must be a non-negative number of milliseconds, got <value>`.
 *
 * @example
 * ```ts
 * checkDurationMs('lingerMs', options.lingerMs ?? 0);
 * ```
 */
export function checkDurationMs(name: string, value: number, fail: OptionErrorFactory = optionError): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw fail(`${name} must be a non-negative number of milliseconds, got ${String(value)}`, name);
}
