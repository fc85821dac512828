/**
 * The error base of the bridge and the one way its errors become log fields.
 *
 * Every error of the bridge's own sets `name`, passes `cause` through, carries a stable `code` (for
 * alarms, logs and tests; never reworded) and says whether it is `retryable`.
 *
 * `retryable` means, everywhere in the bridge: trying the same thing again later can succeed (the
 * PDS was busy, a write met a concurrent writer, a queue refused for a while). `false` means that only
 * a change (of the input, the configuration, the permissions) can make it succeed.
 */
import { boundedText } from './text.ts';

/** What every {@link BridgeError} can be built with besides its message. */
export interface BridgeErrorOptions extends ErrorOptions {
  /** Trying the same thing again later can succeed. Default false. */
  retryable?: boolean;
}

/**
 * The base of the bridge's errors: a stable `code`, `retryable`, `name` set to the class name and
 * `cause` passed through.
 *
 * @example
 * ```ts
 * class QueueFullError extends BridgeError {
 *   constructor(queue: string) {
 *     super('QUEUE_FULL', `Queue ${queue} is full; try again later`, { retryable: true });
 *     this.name = 'QueueFullError';
 *   }
 * }
 * ```
 */
export class BridgeError extends Error {
  /** Stable identifier of the kind of failure (e.g. `RATE_LIMITED`); never reworded. */
  readonly code: string;
  /** Trying the same thing again later can succeed. */
  readonly retryable: boolean;

  constructor(code: string, message: string, options: BridgeErrorOptions = {}) {
    // Passed on as given: `cause` exists on the error exactly when the caller named one.
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/**
 * Log fields of any thrown value: `error` (the name), `reason` (the message), and `status` and
 * `retryable` when the error carries them (PDS HTTP errors, the bridge's own errors). Never a stack;
 * the message is bounded (./text.ts).
 *
 * @example
 * ```ts
 * log.warn('Fetching the asset failed', { assetId }, errorFields(error));
 * // { assetId: 42 }, { error: 'PdsServerError', reason: '503 …', status: 503, retryable: true }
 * ```
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: 'Error', reason: boundedText(String(error)) };
  const fields: Record<string, unknown> = { error: error.name, reason: boundedText(error.message) };
  const { status, retryable } = error as { status?: unknown; retryable?: unknown };
  if (typeof status === 'number') fields.status = status;
  if (typeof retryable === 'boolean') fields.retryable = retryable;
  return fields;
}

/**
 * One line naming a thrown value, `Name: message`, for records and reasons (never a stack).
 *
 * @example
 * ```ts
 * errorSummary(new TypeError('bad')); // 'TypeError: bad'
 * errorSummary('plain');              // 'plain'
 * ```
 */
export function errorSummary(error: unknown): string {
  return boundedText(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}
