/** Re-queued delivery tasks, batched by delay (./delivery.ts queues retries and waits through it). */
import { type DeliveryQueue, type DeliveryTask, MAX_QUEUE_DELAY_SECONDS } from './queue.ts';

/** Tasks to queue again, grouped by their delay in whole seconds: one enqueue per delay. */
export class LaterTasks {
  readonly #byDelay = new Map<number, DeliveryTask[]>();

  add(task: DeliveryTask, waitMs: number): void {
    const seconds = Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(waitMs / 1000)));
    const tasks = this.#byDelay.get(seconds) ?? [];
    tasks.push(task);
    this.#byDelay.set(seconds, tasks);
  }

  async flush(queue: DeliveryQueue): Promise<void> {
    await Promise.all([...this.#byDelay].map(([seconds, tasks]) => queue.enqueue(tasks, seconds)));
    this.#byDelay.clear();
  }
}
