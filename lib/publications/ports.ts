/**
 * Small ports the publication logic reports through, so it stays free of Powertools and testable:
 * handlers pass the Powertools logger and a metrics adapter; tests pass nothing or a recorder.
 */

/** Structured log lines (the Powertools Logger fits). */
export interface LogPort {
  info(message: string, attributes: Record<string, unknown>): void;
  warn(message: string, attributes: Record<string, unknown>): void;
  error(message: string, attributes: Record<string, unknown>): void;
}

/** Counts things that happened, e.g. `count('PublicationsPublished')`. */
export type CountMetric = (name: string, value?: number) => void;

/** A log that drops everything. */
export const silentLog: LogPort = { info() {}, warn() {}, error() {} };
