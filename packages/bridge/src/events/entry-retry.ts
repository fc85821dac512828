/**
 * Sending a batch of events whose entries succeed or fail one by one (SQS SendMessageBatch,
 * EventBridge PutEvents), written once for both publishers: the entries a service failed for a
 * while are sent again, alone, under the core retry policy (packages/bridge/src/core/retry.ts); the ones it refused
 * as invalid, and those still failing at the end, become {@link EventPublishFailure}s. The publishing
 * around it is written once too ({@link EntryPublisher}): each publisher prepares an event's entry
 * and sends a request. No AWS SDK import: each publisher sends and reads its own answers.
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
import { EventPublishError, type EventPublishFailure, EventSerializationError } from './errors.ts';
import type { EventSink } from './sink.ts';

/** An integer option of a publisher, its default when absent; out of range, a {@link ConfigError}. */
export function integerOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
) {
  return checkInteger(
    name,
    value ?? fallback,
    { min, max },
    (message) => new ConfigError(`${message}.`, { variables: [name] }),
  );
}

/** How a publisher sends, as both take it: the per-entry retry's numbers, requests at once, the sleep. */
export interface SendingOptions {
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  concurrency?: number;
  sleep?: (ms: number) => Promise<void>;
  claimCheck?: { bucket: string };
}

/** How a publisher sends once its options are checked. */
export interface Sending {
  policy: RetryPolicy;
  concurrency: number;
  sleep: (ms: number) => Promise<void>;
}

/** The checked {@link SendingOptions}; throws a {@link ConfigError} for an empty claim-check bucket. */
export function sendingOf(options: SendingOptions): Sending {
  if (options.claimCheck !== undefined && options.claimCheck.bucket.trim() === '') {
    throw new ConfigError('The claim-check bucket is empty: set STATE_BUCKET to the state bucket name.', {
      variables: ['STATE_BUCKET'],
    });
  }
  return {
    policy: {
      maxAttempts: integerOption('maxAttempts', options.maxAttempts, 4, 1, 20),
      baseDelayMs: integerOption('baseDelayMs', options.baseDelayMs, 100, 0, 60_000),
      maxDelayMs: integerOption('maxDelayMs', options.maxDelayMs, 5000, 0, 300_000),
      jitter: 'none',
    },
    concurrency: integerOption('concurrency', options.concurrency, 10, 1, 64),
    sleep: options.sleep ?? sleep,
  };
}

/**
 * Splits entries into requests of at most `maxEntries` entries and `maxBytes` bytes (a larger entry
 * alone), keeping their order: SendMessageBatch and PutEvents both take 10 entries a request.
 *
 * @example
 * packEntries([{ bytes: 600 }, { bytes: 600 }], 10, 1000).map((batch) => batch.length); // [1, 1]
 */
export function packEntries<T extends { bytes: number }>(
  items: readonly T[],
  maxEntries: number,
  maxBytes: number,
): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length === maxEntries || (current.length > 0 && bytes + item.bytes > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

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

/** The fields of an {@link EventPublishFailure} for an error thrown while preparing or sending. */
export function failureFields(error: unknown): { code: string; reason: string; senderFault: boolean } {
  // A configuration problem (no claim-check bucket) cannot be cured by sending again either.
  if (error instanceof ConfigError) return { code: error.name, reason: error.message, senderFault: true };
  // Nor an event no JSON text can hold: the event's own fault, a refusal of it alone.
  if (error instanceof EventSerializationError) {
    return { code: error.code, reason: error.message, senderFault: true };
  }
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

/**
 * The publishing both event publishers share, written once: each event once (by id), prepared one by
 * one (an event that cannot be prepared fails alone, with 0 attempts), the prepared entries sent in
 * requests entry by entry ({@link sendEntries}), and one {@link EventPublishError} naming every event
 * that was not accepted. A publisher implements `prepare` (an event's entry, claim-checked when
 * large) and `sendPrepared` (the requests, each through `sendEach`).
 *
 * @example
 * ```ts
 * class LogPublisher extends EntryPublisher<{ event: CloudEvent }> {
 *   protected async prepare(event: CloudEvent) { return { event }; }
 *   protected sendPrepared(prepared: { event: CloudEvent }[]) {
 *     return Promise.all([this.sendEach(prepared, async (pending) => pending.map(() => ({ outcome: 'published' as const })))]);
 *   }
 * }
 * ```
 */
export abstract class EntryPublisher<P extends { readonly event: CloudEvent }> implements EventSink {
  /** The per-entry retry, requests at once and the sleep. */
  protected readonly sending: Sending;
  /** Who refused what was not accepted, in the error's message (EventPublishError's default: SQS). */
  readonly #destination: string | undefined;

  protected constructor(options: SendingOptions, destination?: string) {
    this.sending = sendingOf(options);
    this.#destination = destination;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    const unique = [...new Map(events.map((event) => [event.id, event])).values()];
    const failures: EventPublishFailure[] = [];
    const prepared: P[] = [];
    for (const event of unique) {
      try {
        prepared.push(await this.prepare(event));
      } catch (error) {
        failures.push({ eventId: event.id, type: event.type, ...failureFields(error), attempts: 0 });
      }
    }
    const published: string[] = [];
    for (const outcome of await this.sendPrepared(prepared)) {
      published.push(...outcome.published);
      failures.push(...outcome.failures);
    }
    if (failures.length > 0) throw new EventPublishError(failures, published, this.#destination);
  }

  /** The entry of one event; what it throws becomes that event's failure. */
  protected abstract prepare(event: CloudEvent): Promise<P>;

  /** Sends the prepared entries in requests; the outcome of each request. */
  protected abstract sendPrepared(prepared: P[]): Promise<readonly EntriesOutcome[]>;

  /** One request's entries through {@link sendEntries} under this publisher's retry and sleep. */
  protected sendEach<Q extends P>(
    items: readonly Q[],
    send: (pending: readonly Q[]) => Promise<readonly EntryVerdict[]>,
  ): Promise<EntriesOutcome> {
    return sendEntries(items, send, this.sending.policy, { sleep: this.sending.sleep });
  }
}
