/**
 * Work applied later, per key: what a bulk subscription operation sent with `synchronously=false` does
 * after it was accepted. Work queued under one key runs in order; timers are unref'd (they never keep a
 * process alive) and cancelled by `close()`.
 */

interface Queue {
  work: Array<() => void>;
  settled: () => void;
  timer: NodeJS.Timeout;
}

/**
 * @example
 * const deferred = new DeferredWork(200);
 * deferred.defer('3', () => apply(), () => markIdle());
 * deferred.flush('3'); // runs apply() then markIdle() now instead of in 200 ms
 */
export class DeferredWork {
  readonly #delayMs: number;
  readonly #queues = new Map<string, Queue>();

  constructor(delayMs: number) {
    this.#delayMs = delayMs;
  }

  /** Queues `work` under `key`; once the key's queue has run, `settled` runs (the latest one given). */
  defer(key: string, work: () => void, settled: () => void): void {
    const queue = this.#queues.get(key);
    if (queue) {
      queue.work.push(work);
      queue.settled = settled;
      return;
    }
    const timer = setTimeout(() => this.flush(key), this.#delayMs);
    timer.unref();
    this.#queues.set(key, { work: [work], settled, timer });
  }

  /** Runs the key's queued work now (nothing when none is queued). */
  flush(key: string): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    this.#queues.delete(key);
    clearTimeout(queue.timer);
    for (const work of queue.work) work();
    queue.settled();
  }

  /** Drops the key's queued work without running it. */
  cancel(key: string): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    this.#queues.delete(key);
    clearTimeout(queue.timer);
  }

  /** True while work is queued under the key. */
  isPending(key: string): boolean {
    return this.#queues.has(key);
  }

  /** Cancels everything. */
  close(): void {
    for (const queue of this.#queues.values()) clearTimeout(queue.timer);
    this.#queues.clear();
  }
}
