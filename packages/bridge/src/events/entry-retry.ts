/**
 * Sending a batch of events whose entries succeed or fail one by one (SQS SendMessageBatch,
 * EventBridge PutEvents), written once for both publishers: the entries a service failed for a
 * while are sent again, alone, under the core retry policy (lib/core/retry.ts); the ones it refused
 * as invalid, and those still failing at the end, become {@link EventPublishFailure}s. No AWS SDK
 * import: each publisher sends and reads its own answers.
 */
import {
  ConfigError,
  checkInteger,
  type RetryPolicy,
  type RetryRun,
  retryEach,
  sleep,
} from '../core/index.ts';
import type { CloudEvent } from './envelope.ts';
import type { EventPublishFailure } from './errors.ts';

/** What the service answered for one entry of one request. */
export type EntryVerdict =
  | { readonly outcome: 'published' }
  /** Refused as invalid (a sender fault): sending it again cannot help. */
  | { readonly outcome: 'refused'; readonly code: string; readonly reason: string }
  /** Failed for now: sent again while the policy allows. */
  | { readonly outcome: 'retry'; readonly code: string; readonly reason: string };

/** The events of one batch that went out, and those that did not with the reason. */
export interface EntriesOutcome {
  published: string[];
  failures: EventPublishFailure[];
}

/** The options both publishers read alike (their own option interfaces document each). */
export interface EntrySendOptions {
  maxAttempts?: number | undefined;
  baseDelayMs?: number | undefined;
  maxDelayMs?: number | undefined;
  concurrency?: number | undefined;
  sleep?: ((ms: number) => Promise<void>) | undefined;
  claimCheck?: { bucket: string } | undefined;
}

/** What {@link entrySendSettings} makes of them. */
export interface EntrySendSettings {
  /** Per-entry retries: no jitter, on purpose (the entries of one batch are retried together, and tests count exact waits). */
  policy: RetryPolicy;
  concurrency: number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * A whole-number option of a publisher: `fallback` when not given, else an integer from `min` to
 * `max`, or a {@link ConfigError} naming it.
 *
 * @example
 * ```ts
 * integerOption('maxAttempts', undefined, 4, 1, 20); // 4
 * ```
 */
export function integerOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  return checkInteger(
    name,
    value ?? fallback,
    { min, max },
    (message) => new ConfigError(`${message}.`, { variables: [name] }),
  );
}

/**
 * The settings both publishers take the same way: the entries' retry policy (4 sends, 100 ms doubling
 * up to 5 s, no jitter), the requests in flight (10), the sleep, and a claim-check bucket that is not
 * blank. Throws a {@link ConfigError} naming the first option out of range, or STATE_BUCKET.
 *
 * @example
 * ```ts
 * const { policy, concurrency } = entrySendSettings({ maxAttempts: 2 });
 * ```
 */
export function entrySendSettings(options: EntrySendOptions): EntrySendSettings {
  const policy: RetryPolicy = {
    maxAttempts: integerOption('maxAttempts', options.maxAttempts, 4, 1, 20),
    baseDelayMs: integerOption('baseDelayMs', options.baseDelayMs, 100, 0, 60_000),
    maxDelayMs: integerOption('maxDelayMs', options.maxDelayMs, 5000, 0, 300_000),
    jitter: 'none',
  };
  const concurrency = integerOption('concurrency', options.concurrency, 10, 1, 64);
  if (options.claimCheck !== undefined && options.claimCheck.bucket.trim() === '') {
    throw new ConfigError('The claim-check bucket is empty: set STATE_BUCKET to the state bucket name.', {
      variables: ['STATE_BUCKET'],
    });
  }
  return { policy, concurrency, sleep: options.sleep ?? sleep };
}

/** The fields of an {@link EventPublishFailure} for an error thrown while preparing or sending. */
export function failureFields(error: unknown): { code: string; reason: string; senderFault: boolean } {
  // A configuration problem (no claim-check bucket) cannot be cured by sending again either.
  if (error instanceof ConfigError) return { code: error.name, reason: error.message, senderFault: true };
  if (error instanceof Error) {
    const fault = (error as { $fault?: string }).$fault;
    return { code: error.name, reason: error.message, senderFault: fault === 'client' };
  }
  return { code: 'Error', reason: String(error), senderFault: false };
}

/**
 * Sends `items` with `send` (one verdict per item it is given, in order) until none is left to try
 * again or `policy` gives up. A request that throws fails all its items at once (the SDK has retried
 * it as a whole already; what is left is not transient).
 *
 * @example
 * ```ts
 * const outcome = await sendEntries(batch, (pending) => putEvents(pending), { maxAttempts: 4, jitter: 'none' });
 * ```
 */
export async function sendEntries<P extends { readonly event: CloudEvent }>(
  items: readonly P[],
  send: (pending: readonly P[]) => Promise<readonly EntryVerdict[]>,
  policy: RetryPolicy,
  run: RetryRun = {},
): Promise<EntriesOutcome> {
  const outcome: EntriesOutcome = { published: [], failures: [] };
  const transient = new Map<P, { code: string; reason: string }>();
  const failure = (
    item: P,
    attempts: number,
    fields: Omit<EventPublishFailure, 'eventId' | 'type' | 'attempts'>,
  ) => outcome.failures.push({ eventId: item.event.id, type: item.event.type, ...fields, attempts });

  const { left, attempts } = await retryEach(
    items,
    async (pending, attempt) => {
      let verdicts: readonly EntryVerdict[];
      try {
        verdicts = await send(pending);
      } catch (error) {
        const fields = failureFields(error);
        for (const item of pending) failure(item, attempt, { ...fields, requestFailed: true });
        return [];
      }
      const retry: P[] = [];
      pending.forEach((item, index) => {
        const verdict = verdicts[index] ?? { outcome: 'retry', code: 'MissingResult', reason: 'no result' };
        if (verdict.outcome === 'published') outcome.published.push(item.event.id);
        else if (verdict.outcome === 'refused') {
          failure(item, attempt, { code: verdict.code, reason: verdict.reason, senderFault: true });
        } else {
          retry.push(item);
          transient.set(item, verdict);
        }
      });
      return retry;
    },
    policy,
    run,
  );
  for (const item of left) {
    const { code, reason } = transient.get(item) ?? { code: 'MissingResult', reason: 'no result' };
    failure(item, attempts, {
      code,
      reason: `${reason} (still failing after ${attempts} attempts)`,
      senderFault: false,
    });
  }
  return outcome;
}
