/**
 * A request body produced locally (an upload source, a generated stream) failed or did not match the
 * length it declared. Body producers throw it from inside the stream so the transport can tell "our own
 * bytes were wrong" apart from "the network failed": the first is never retried and surfaces as
 * `PdsInvalidRequestError`, the second follows the retry rules.
 *
 * @example
 * ```ts
 * if (sent !== declared) throw new PdsRequestBodyError(`the source yielded ${sent} bytes but declared ${declared}`);
 * ```
 */

import { BridgeError } from '../core/index.ts';
export class PdsRequestBodyError extends BridgeError {
  /** True when the source itself failed while being read (opening it again may work), not our declared size. */
  readonly sourceFailed: boolean;

  constructor(message: string, options?: ErrorOptions & { sourceFailed?: boolean }) {
    super('PDS_REQUEST_BODY_INVALID', message, { ...options, retryable: options?.sourceFailed ?? false });
    this.name = 'PdsRequestBodyError';
    this.sourceFailed = options?.sourceFailed ?? false;
  }
}

/** True when `error` or anything in its `cause` chain is a {@link PdsRequestBodyError}. */
export function findRequestBodyError(error: unknown): PdsRequestBodyError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof PdsRequestBodyError) return current;
    current = current.cause;
  }
  return undefined;
}
