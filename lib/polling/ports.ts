/**
 * The small interfaces the pollers need besides `PdsClient`, `StateStore` and `EventSink`: where they
 * log and how they describe an error. Handlers pass the Powertools Logger, tests a recorder.
 */
import { PdsError, PdsHttpError } from '../pds/errors.ts';

/** Structured logging as the pollers use it; the Powertools `Logger` satisfies it. */
export interface PollLogger {
  info(message: string, ...extra: Array<Record<string, unknown>>): void;
  warn(message: string, ...extra: Array<Record<string, unknown>>): void;
  error(message: string, ...extra: Array<Record<string, unknown>>): void;
}

/** A logger that drops everything, the default of the library functions. */
export const silentLogger: PollLogger = Object.freeze({
  info() {},
  warn() {},
  error() {},
});

/** One line naming an error, for logs and checkpoint records (never a stack trace). */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Log fields of an error: name, message, and the PDS status and retryability when it is a PDS error. */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof PdsHttpError) {
    return { error: error.name, reason: error.message, status: error.status, retryable: error.retryable };
  }
  if (error instanceof PdsError)
    return { error: error.name, reason: error.message, retryable: error.retryable };
  if (error instanceof Error) return { error: error.name, reason: error.message };
  return { error: 'Error', reason: String(error) };
}

/**
 * True when the error says the PDS as a whole is unavailable or refuses us (rate limited, 5xx,
 * timeout, network, credentials), rather than something wrong with one asset or item.
 */
export function isSystemicPdsError(error: unknown): boolean {
  if (!(error instanceof PdsError)) return false;
  return error.retryable || error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN';
}
