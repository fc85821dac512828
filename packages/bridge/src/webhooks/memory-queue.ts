/**
 * A {@link DeliveryQueue} in memory, for tests and benchmarks: tasks with the time they become visible.
 */
import type { DeliveryQueue, DeliveryTask } from './queue.ts';

export class MemoryDeliveryQueue implements DeliveryQueue {
  readonly tasks: Array<{ task: DeliveryTask; delaySeconds: number }> = [];

  async enqueue(tasks: readonly DeliveryTask[], delaySeconds = 0): Promise<void> {
    for (const task of tasks) this.tasks.push({ task, delaySeconds });
  }

  /** Removes and returns every queued task. */
  take(): DeliveryTask[] {
    return this.tasks.splice(0).map((each) => each.task);
  }
}
