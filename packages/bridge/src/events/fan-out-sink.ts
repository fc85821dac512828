/**
 * An {@link EventSink} that publishes every event to several sinks: the family's queue and the
 * webhook queue (packages/bridge/src/lambda/adapters.ts wires it when WEBHOOK_QUEUE_URL is set). It resolves once every sink
 * accepted every event and rejects with the first failure otherwise; the caller then publishes
 * again (at least once: a sink that had accepted gets the same events, with the same ids, twice).
 */
import type { CloudEvent } from './envelope.ts';
import type { EventSink } from './sink.ts';

export class FanOutSink implements EventSink {
  readonly #sinks: readonly EventSink[];

  constructor(sinks: readonly EventSink[]) {
    this.#sinks = sinks;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    const settled = await Promise.allSettled(this.#sinks.map((sink) => sink.publish(events)));
    const failed = settled.find((each): each is PromiseRejectedResult => each.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
