/**
 * The two delivery lanes (docs/webhooks.md, "The delivery path"): the main lane attempts only
 * healthy endpoints; the slow lane takes the tasks of endpoints that are not healthy, so a slow or
 * dead endpoint's timeouts hold only slow-lane batches. On the main lane an attempt has a shorter
 * budget than its deadline (./lane-budget.ts): past it the attempt is stopped and its task handed
 * to the slow lane, where it has the whole deadline. ./delivery.ts decides which lane a task takes.
 */
import type { EndpointRecord } from './endpoints.ts';
import { type DeliveryQueue, type DeliveryTask, MAX_QUEUE_DELAY_SECONDS } from './queue.ts';

/** The queue a batch of tasks came from: the main queue, or the slow one (`slowQueue` of ./delivery.ts). */
export type DeliveryLane = 'main' | 'slow';

/**
 * An endpoint whose last attempt failed (its breaker closed, half-open or open), or whose answers
 * take longer than the main lane's budget: the slow lane's.
 */
export function unhealthy(endpoint: EndpointRecord): boolean {
  return endpoint.status !== 'disabled' && (endpoint.failures > 0 || endpoint.slowSince !== undefined);
}

/** Tasks to queue, grouped by lane and by their delay in whole seconds: one enqueue per lane and delay. */
export class LaterTasks {
  readonly #byLane: Record<DeliveryLane, Map<number, DeliveryTask[]>> = { main: new Map(), slow: new Map() };

  add(task: DeliveryTask, waitMs: number, lane: DeliveryLane): void {
    const seconds = Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(waitMs / 1000)));
    const byDelay = this.#byLane[lane];
    const tasks = byDelay.get(seconds) ?? [];
    tasks.push(task);
    byDelay.set(seconds, tasks);
  }

  async flush(queues: Record<DeliveryLane, DeliveryQueue>): Promise<void> {
    const sends = (['main', 'slow'] as const).flatMap((lane) =>
      [...this.#byLane[lane]].map(([seconds, tasks]) => queues[lane].enqueue(tasks, seconds)),
    );
    await Promise.all(sends);
    this.#byLane.main.clear();
    this.#byLane.slow.clear();
  }
}
