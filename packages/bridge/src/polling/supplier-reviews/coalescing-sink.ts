/**
 * An `EventSink` that merges many small publishes into few large ones. The review poller works on
 * many keys at once and each key usually has one new review; sending each alone would cost one
 * SendMessageBatch request per event. This sink collects the events of concurrent callers for a few
 * milliseconds (or until `maxEvents` are waiting), publishes them together, and settles each caller
 * with the outcome of its own events only: a caller whose events were all accepted resolves even when
 * another caller's event failed in the same request.
 */
import { checkInteger } from '../../core/index.ts';
import { type CloudEvent, EventPublishError, type EventSink } from '../../events/index.ts';

export interface CoalescingSinkOptions {
  /** Events that trigger a publish at once; default 50 (five SendMessageBatch requests). */
  maxEvents?: number;
  /** Longest wait for more events before publishing, in ms; default 10. */
  lingerMs?: number;
}

interface Waiting {
  events: readonly CloudEvent[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Wraps a sink so that concurrent small publishes share requests.
 *
 * @example
 * const sink = new CoalescingSink(eventSinkFor(config));
 * await Promise.all(keys.map((key) => sink.publish(eventsOf(key)))); // a few requests, not one per key
 */
export class CoalescingSink implements EventSink {
  readonly #inner: EventSink;
  readonly #maxEvents: number;
  readonly #lingerMs: number;
  #waiting: Waiting[] = [];
  #count = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(inner: EventSink, options: CoalescingSinkOptions = {}) {
    this.#inner = inner;
    this.#maxEvents = options.maxEvents ?? 50;
    this.#lingerMs = options.lingerMs ?? 10;
    checkInteger('maxEvents', this.#maxEvents, { min: 1 });
    if (!(this.#lingerMs >= 0))
      throw new RangeError(`lingerMs must be >= 0, got ${String(options.lingerMs)}`);
  }

  publish(events: readonly CloudEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ events, resolve, reject });
      this.#count += events.length;
      if (this.#count >= this.#maxEvents) this.#flush();
      else this.#timer ??= setTimeout(() => this.#flush(), this.#lingerMs);
    });
  }

  #flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const waiting = this.#waiting;
    this.#waiting = [];
    this.#count = 0;
    if (waiting.length === 0) return;
    this.#inner.publish(waiting.flatMap((item) => item.events)).then(
      () => {
        for (const item of waiting) item.resolve();
      },
      (error: unknown) => {
        for (const item of waiting) settleShare(item, error);
      },
    );
  }
}

/** Resolves or rejects one caller according to what happened to its own events. */
function settleShare(item: Waiting, error: unknown): void {
  if (!(error instanceof EventPublishError)) {
    item.reject(error);
    return;
  }
  const ids = new Set(item.events.map((event) => event.id));
  const failures = error.failures.filter((failure) => ids.has(failure.eventId));
  if (failures.length === 0) {
    item.resolve();
    return;
  }
  item.reject(
    new EventPublishError(
      failures,
      error.publishedIds.filter((id) => ids.has(id)),
    ),
  );
}
