/**
 * What the event destinations (the SQS queues, the EventBridge bus) did not accept, kept by the hour
 * in the state bucket so operators see a failing destination (`pds bridge status`, the console's
 * Deliveries page) without searching logs. One object per hour, `publish-failures/<YYYY-MM-DDTHH>.json`:
 * per destination the events and publishes that failed, when the last did, and its last
 * {@link RECENT_FAILURES_KEPT} failures with their code and reason. Bounded whatever the traffic (a
 * few destinations, ten reasons each, each reason capped); a reader of a window reads one object per hour.
 *
 * Recording costs nothing on the success path: {@link FailureRecordingSink} writes only when a publish
 * failed (after the publisher's own retries), once per failed publish call whatever its batches.
 */
import { boundedText, mapAll } from '../core/index.ts';
import { type StateStore, statePrefix } from '../state/index.ts';
import type { CloudEvent } from './envelope.ts';
import { EventPublishError } from './errors.ts';
import type { EventSink } from './sink.ts';

/** `publish-failures/`: one object per hour in which a publish failed. */
export const PUBLISH_FAILURES_PREFIX = statePrefix('publish-failures', 'packages/bridge/src/events');

/** Failures kept per destination and hour, the latest. */
export const RECENT_FAILURES_KEPT = 10;
/** Hours read at once by {@link recentPublishFailures}. */
const HOURS_READ_AT_ONCE = 16;
/** Longest reason kept. */
const MAX_REASON_CHARS = 300;

/** `publish-failures/2026-12-07T06.json` for a time in that UTC hour. */
export function publishFailuresKey(at: Date): string {
  return `${PUBLISH_FAILURES_PREFIX}${at.toISOString().slice(0, 13)}.json`;
}

/** One event a destination did not accept. */
export interface RecordedFailure {
  at: string;
  eventId: string;
  type: string;
  code: string;
  reason: string;
}

/** One destination's failures in one hour. */
export interface DestinationFailures {
  /** Events not accepted. */
  failedEvents: number;
  /** Publish calls that failed (each a batch of events or more). */
  failedPublishes: number;
  lastAt: string;
  /** The latest failures, newest last, at most {@link RECENT_FAILURES_KEPT}. */
  recent: RecordedFailure[];
}

/** The object of one hour: destination (`sqs:<queue name>`, `eventbridge:<bus>`) → its failures. */
export interface PublishFailuresHour {
  hour: string;
  destinations: Record<string, DestinationFailures>;
}

/** The failures of one failed publish, by destination, as they go into the hour's object. */
function failuresOf(
  error: unknown,
  events: readonly CloudEvent[],
  destinationOf: (type: string) => string,
  at: string,
): Map<string, RecordedFailure[]> {
  // A publisher names each event it could not publish; anything else (the bus check, a thrown
  // request) failed the whole call, so every event of it.
  const failed =
    error instanceof EventPublishError
      ? error.failures.map((failure) => ({ ...failure }))
      : events.map((event) => ({
          eventId: event.id,
          type: event.type,
          code: error instanceof Error ? error.name : 'Error',
          reason: error instanceof Error ? error.message : String(error),
        }));
  const byDestination = new Map<string, RecordedFailure[]>();
  for (const failure of failed) {
    const destination = destinationOf(failure.type);
    const list = byDestination.get(destination) ?? [];
    list.push({
      at,
      eventId: failure.eventId,
      type: failure.type,
      code: failure.code,
      reason: boundedText(failure.reason, MAX_REASON_CHARS),
    });
    byDestination.set(destination, list);
  }
  return byDestination;
}

/** The hour's object with one failed publish added (pure). */
export function addFailures(
  current: PublishFailuresHour | undefined,
  hour: string,
  failures: ReadonlyMap<string, readonly RecordedFailure[]>,
): PublishFailuresHour {
  const destinations = { ...(current?.destinations ?? {}) };
  for (const [destination, list] of failures) {
    const before = destinations[destination];
    destinations[destination] = {
      failedEvents: (before?.failedEvents ?? 0) + list.length,
      failedPublishes: (before?.failedPublishes ?? 0) + 1,
      lastAt: list.at(-1)?.at ?? before?.lastAt ?? '',
      recent: [...(before?.recent ?? []), ...list].slice(-RECENT_FAILURES_KEPT),
    };
  }
  return { hour, destinations };
}

export interface FailureRecordingOptions {
  store: StateStore;
  /** The destination an event of `type` went to: `sqs:<queue name>`, `eventbridge:<bus>`. */
  destinationOf: (type: string) => string;
  /** Told when the record itself could not be written (the publish's own error is thrown either way). */
  onRecordError?: (error: unknown) => void;
  /** Clock; default the current time. */
  now?: () => Date;
}

/**
 * An {@link EventSink} that records in the state bucket what its inner sink failed to publish, then
 * rethrows the failure unchanged: the caller's retry and dead-letter handling stay as they were.
 *
 * @example
 * ```ts
 * const sink = new FailureRecordingSink(publisher, { store, destinationOf: () => 'eventbridge:pds-bridge-prod' });
 * await sink.publish(events); // on failure: publish-failures/<hour>.json gains them, then the error is thrown
 * ```
 */
export class FailureRecordingSink implements EventSink {
  readonly #inner: EventSink;
  readonly #options: FailureRecordingOptions;

  constructor(inner: EventSink, options: FailureRecordingOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    try {
      await this.#inner.publish(events);
    } catch (error) {
      await this.#record(error, events);
      throw error;
    }
  }

  async #record(error: unknown, events: readonly CloudEvent[]): Promise<void> {
    const now = (this.#options.now ?? (() => new Date()))();
    try {
      const failures = failuresOf(error, events, this.#options.destinationOf, now.toISOString());
      if (failures.size === 0) return;
      await this.#options.store.mutate<PublishFailuresHour>(publishFailuresKey(now), (current) =>
        addFailures(current, now.toISOString().slice(0, 13), failures),
      );
    } catch (recordError) {
      this.#options.onRecordError?.(recordError);
    }
  }
}

/**
 * The failures recorded in the hours that overlap `[since, until)`, merged per destination (one GET
 * per hour of the window, a missing hour costing its 404 only).
 *
 * @example
 * ```ts
 * const failing = await recentPublishFailures(store, Date.now() - 24 * 3_600_000, Date.now());
 * failing['sqs:pds-bridge-prod-events']?.failedEvents;
 * ```
 */
export async function recentPublishFailures(
  store: StateStore,
  since: number,
  until: number,
): Promise<Record<string, DestinationFailures>> {
  const hours: Date[] = [];
  for (let at = Math.floor(since / 3_600_000) * 3_600_000; at < until; at += 3_600_000)
    hours.push(new Date(at));
  const read = await mapAll(
    hours,
    HOURS_READ_AT_ONCE,
    async (hour) => (await store.get<PublishFailuresHour>(publishFailuresKey(hour)))?.value,
  );
  const merged: Record<string, DestinationFailures> = {};
  for (const hour of read) {
    for (const [destination, failures] of Object.entries(hour?.destinations ?? {})) {
      const before = merged[destination];
      merged[destination] = before
        ? {
            failedEvents: before.failedEvents + failures.failedEvents,
            failedPublishes: before.failedPublishes + failures.failedPublishes,
            lastAt: failures.lastAt > before.lastAt ? failures.lastAt : before.lastAt,
            recent: [...before.recent, ...failures.recent].slice(-RECENT_FAILURES_KEPT),
          }
        : failures;
    }
  }
  return merged;
}
