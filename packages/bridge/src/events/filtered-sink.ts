/**
 * An {@link EventSink} that passes on only the events a predicate keeps: with {@link FanOutSink} it
 * routes each event family to its destinations (packages/bridge/src/lambda/adapters.ts: the queue for the families
 * EVENT_DESTINATIONS sends to `sqs` or `both`, the bus for `eventbridge` or `both`). A publish whose
 * events it all leaves out resolves without calling the inner sink.
 */
import type { CloudEvent } from './envelope.ts';
import type { EventSink } from './sink.ts';

export class FilteredSink implements EventSink {
  readonly #sink: EventSink;
  readonly #keep: (event: CloudEvent) => boolean;

  /**
   * @example
   * const toBus = new FilteredSink(busPublisher, (event) => goesToBus(destinations, event.type));
   */
  constructor(sink: EventSink, keep: (event: CloudEvent) => boolean) {
    this.#sink = sink;
    this.#keep = keep;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    const kept = events.filter(this.#keep);
    if (kept.length > 0) await this.#sink.publish(kept);
  }
}
