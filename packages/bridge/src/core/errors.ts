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

/** What a {@link ConfigError} can be built with besides its message. */
export interface ConfigErrorOptions extends ErrorOptions {
  /** Each problem, one sentence each; defaults to the message alone. */
  problems?: readonly string[];
  /** The environment variables or options that are wrong, when known. */
  variables?: readonly string[];
}

/**
 * The one configuration error of the bridge: an environment variable, a secret or an option is
 * missing or wrong. Code `CONFIG_INVALID`, never retryable: only a change of the configuration fixes
 * it. The message names the setting and the fix.
 *
 * @example
 * ```ts
 * throw new ConfigError('PDS_BASE_URL must use http or https, not ftp:', { variables: ['PDS_BASE_URL'] });
 * throw ConfigError.fromProblems(['PDS_BASE_URL is required', 'STATE_BUCKET is required']);
 * ```
 */
export class ConfigError extends BridgeError {
  /** Each problem found; a function's whole environment is read before one error lists them all. */
  readonly problems: readonly string[];
  /** Names of the environment variables or options that are wrong (empty when not known). */
  readonly variables: readonly string[];

  constructor(message: string, options: ConfigErrorOptions = {}) {
    const { problems, variables, ...errorOptions } = options;
    super('CONFIG_INVALID', message, errorOptions);
    this.name = 'ConfigError';
    this.problems = Object.freeze([...(problems ?? [message])]);
    this.variables = Object.freeze([...(variables ?? [])]);
  }

  /** The error of a function whose environment has `problems` (each completes "NAME …"). */
  static fromProblems(problems: readonly string[]): ConfigError {
    return new ConfigError(
      `Invalid configuration: ${problems.join('; ')}. Fix the function's environment (serverless.yml or the local stack) and start again.`,
      { problems },
    );
  }
}

/**
 * The one usage error of the bridge's commands (`pds`, the local stack, the simulator): an unknown
 * command or flag, a missing or malformed argument. Code `USAGE`, never retryable; commands exit
 * with code 2.
 *
 * @example
 * ```ts
 * throw new UsageError('--count must be a positive integer', 'bridge replay');
 * ```
 */
export class UsageError extends BridgeError {
  /** The command whose `--help` explains the fix, e.g. `folders ls`; '' for the top level. */
  readonly command: string;

  constructor(message: string, command = '', options?: ErrorOptions) {
    super('USAGE', message, options);
    this.name = 'UsageError';
    this.command = command;
  }
}

/**
 * A wrong option value passed in code (a constructor's or a function's option, never an environment
 * variable: that is a {@link ConfigError}). Code `INVALID_OPTION`, never retryable: only a change of
 * the option fixes it. The message names the option, what it accepts and what it got (./options.ts).
 *
 * @example
 * ```ts
 * throw new OptionError('ttlMs', 'Lease TTL must be a positive number of milliseconds, got 0');
 * ```
 */
export class OptionError extends BridgeError {
  /** The option's name as the caller spells it (`maxAttempts`, `--count`). */
  readonly option: string;

  constructor(option: string, message: string) {
    super('INVALID_OPTION', message);
    this.name = 'OptionError';
    this.option = option;
  }
}

/**
 * Log fields of any thrown value: `error` (the name), `reason` (the message), `code` and `retryable`
 * (every error of the bridge carries both; a Node or SDK error its own `code` when it has one) and
 * `status` for PDS HTTP errors. Never a stack; the message is bounded (./text.ts).
 *
 * @example
 * ```ts
 * log.warn('Fetching the asset failed', { assetId }, errorFields(error));
 * // { assetId: 42 }, { error: 'PdsServerError', reason: '503 …', code: 'SERVER_ERROR', status: 503, retryable: true }
 * ```
 */
export function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: 'Error', reason: boundedText(String(error)) };
  const fields: Record<string, unknown> = { error: error.name, reason: boundedText(error.message) };
  const { code, status, retryable } = error as { code?: unknown; status?: unknown; retryable?: unknown };
  if (typeof code === 'string') fields.code = code;
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

/**
 * Whether a failed AWS SDK call may pass when tried again: the SDK marks it retryable, no answer
 * came (no HTTP status), or the service throttled (429) or failed (5xx). Read from the error's own
 * fields, so the core needs no SDK import.
 *
 * @example
 * ```ts
 * awsCallMayPass({ name: 'ThrottlingException', $metadata: { httpStatusCode: 400 }, $retryable: {} }); // true
 * awsCallMayPass({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }); // false
 * ```
 */
export function awsCallMayPass(error: unknown): boolean {
  const sdk = (error ?? {}) as { $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = sdk.$metadata?.httpStatusCode;
  return Boolean(sdk.$retryable) || status === undefined || status === 429 || status >= 500;
}
