/** The state store's errors (packages/bridge/src/core's BridgeError model; codes in docs/operations.md, "Error codes"). */
import { BridgeError } from '../core/index.ts';

/** The stored value changed (or vanished) since the caller read it; read it again and retry. */
export class StateConflictError extends BridgeError {
  readonly key: string;

  constructor(key: string, detail: string, options?: ErrorOptions) {
    // Retryable: reading again and writing again can succeed (callers that did not say were retried too).
    super(
      'STATE_CONFLICT',
      `State object "${key}" was changed by someone else: ${detail}; read it again and retry`,
      {
        ...options,
        retryable: true,
      },
    );
    this.name = 'StateConflictError';
    this.key = key;
  }
}

/** The key cannot be stored (empty, too long, control characters, `..` segments); build it with ./keys.ts. */
export class StateKeyError extends BridgeError {
  readonly key: string;

  constructor(key: string, detail: string) {
    super(
      'STATE_KEY_INVALID',
      `Invalid state key ${JSON.stringify(key.slice(0, 200))}: ${detail}; build keys with packages/bridge/src/state/keys.ts`,
    );
    this.name = 'StateKeyError';
    this.key = key;
  }
}

/** A value that is not JSON, either given to a write or found in the store. */
export class StateValueError extends BridgeError {
  readonly key: string;

  constructor(key: string, detail: string, options?: ErrorOptions) {
    super('STATE_VALUE_INVALID', `State object "${key}": ${detail}`, options);
    this.name = 'StateValueError';
    this.key = key;
  }
}

/** The backing store failed for another reason (permissions, missing bucket, network). */
export class StateStoreError extends BridgeError {
  readonly key: string;

  /** @param retryable true when trying again later can help (throttling, 5xx, network) */
  constructor(key: string, detail: string, retryable: boolean, options?: ErrorOptions) {
    super('STATE_STORE_FAILED', `State store failed on "${key}": ${detail}`, { ...options, retryable });
    this.name = 'StateStoreError';
    this.key = key;
  }
}

/** The primary key must be non-empty text; it becomes one state-key segment. */
export class WatchListError extends BridgeError {
  constructor(message: string) {
    super('WATCH_LIST_KEY_INVALID', message);
    this.name = 'WatchListError';
  }
}
