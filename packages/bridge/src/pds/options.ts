/**
 * Options shared by every PDS operation. A module of its own so the resource modules and the client
 * port can all use it without importing each other.
 */
/** Per-call options of every operation. */
export interface PdsCallOptions {
  /** Aborts the call, waits between retries included; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}
