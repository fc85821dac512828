/**
 * The one log port of the bridge. Library code logs through it; handlers pass the Powertools `Logger`
 * straight in (its methods take a message and any number of structured extras), tests pass a recorder.
 * Every flow takes the whole `Log` (no per-flow subsets), so one fake serves every test: `silentLog` or a recorder.
 */

/** Structured extras of one log line, merged into the JSON line by the Powertools Logger. */
export type LogExtra = Record<string, unknown>;

/** Structured logging as the Powertools `Logger` offers it. */
export interface Log {
  debug(message: string, ...extra: LogExtra[]): void;
  info(message: string, ...extra: LogExtra[]): void;
  warn(message: string, ...extra: LogExtra[]): void;
  error(message: string, ...extra: LogExtra[]): void;
}

/**
 * A log that drops everything: the default of library functions called without one.
 *
 * @example
 * ```ts
 * const log = deps.log ?? silentLog;
 * log.info('Polled', { emitted: 3 });
 * ```
 */
export const silentLog: Log = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});
