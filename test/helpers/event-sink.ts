/**
 * The one fake of the EventSink port (packages/bridge/src/events/sink.ts) for every flow's tests: it records what
 * was published and can refuse events the ways the SQS adapter does.
 *
 * @example
 * const sink = new RecordingSink();
 * sink.refuse = (event) => event.subject.endsWith('/2'); // EventPublishError naming that event
 * sink.failNext(1); // the next publish rejects as a whole
 */
import {
  type CloudEvent,
  type EventDataMap,
  EventPublishError,
  type EventPublishFailure,
  type EventSink,
  type EventType,
} from '../../packages/bridge/src/events/index.ts';

/**
 * Records published events; `refuse` makes it reject the events it returns true for (with an
 * `EventPublishError`, the others count as accepted), as SQS's own failure, with `refuseAsInvalid`
 * as the event's fault (what SQS answers InvalidMessageContents with), or with `refuseWholeRequest`
 * as a refused request (AccessDenied). `failNext(n)` makes the next n publishes reject outright.
 */
export class RecordingSink implements EventSink {
  readonly events: CloudEvent[] = [];
  /** The number of events of each publish call, in order. */
  readonly requests: number[] = [];
  refuse: (event: CloudEvent) => boolean = () => false;
  refuseAsInvalid = false;
  /** Refuse as a whole request failing (AccessDenied), not as the event's fault. */
  refuseWholeRequest = false;
  #failures = 0;
  #failure: () => Error = () => new Error('SQS refused the events (simulated)');

  /** The next `count` publishes reject (with `error`, when given) and record nothing. */
  failNext(count: number, error?: () => Error): void {
    this.#failures = count;
    if (error) this.#failure = error;
  }

  async publish(events: readonly CloudEvent[]): Promise<void> {
    this.requests.push(events.length);
    if (this.#failures > 0) {
      this.#failures -= 1;
      throw this.#failure();
    }
    const failures: EventPublishFailure[] = [];
    const published: string[] = [];
    for (const event of events) {
      if (this.refuse(event)) {
        failures.push({
          eventId: event.id,
          type: event.type,
          code: this.refuseWholeRequest
            ? 'AccessDenied'
            : this.refuseAsInvalid
              ? 'InvalidMessageContents'
              : 'InternalError',
          reason: 'refused by the test',
          senderFault: this.refuseAsInvalid || this.refuseWholeRequest,
          ...(this.refuseWholeRequest ? { requestFailed: true as const } : {}),
          attempts: this.refuseAsInvalid ? 1 : 4,
        });
      } else {
        this.events.push(event);
        published.push(event.id);
      }
    }
    if (failures.length > 0) throw new EventPublishError(failures, published);
  }

  /** The data of every recorded event of one type. */
  dataOf<T extends EventType>(type: T): Array<EventDataMap[T]> {
    return this.events.filter((event) => event.type === type).map((event) => event.data as EventDataMap[T]);
  }
}
