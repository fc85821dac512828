/**
 * Records accepted imports in the progress record with one write in flight at a time (group commit):
 * an import accepted while a write is on its way waits for the next one, which carries every import
 * accepted meanwhile. With `c` imports running at once there are about `n / c` to `n` writes for `n`
 * entries, each of a few hundred bytes (the record with its ranges), never one per entry of the whole
 * archive.
 *
 * Each caller of {@link ImportLedger.record} is answered once the write holding its index has landed,
 * so an import slot starts its next import only after its last one is on record: at any moment, at
 * most as many accepted imports are unrecorded as there are slots. That is the crash window: a kill
 * repeats at most `concurrency` imports (docs/operations.md, "Exactly once, and the one window").
 */
import { addIndexes, type IndexRanges } from './index-ranges.ts';

/**
 * Imports of one gathering in flight at once, by default (`INGEST_IMPORT_CONCURRENCY`). At 8, a
 * 10,000-entry archive at 50 ms per PDS request took 4 minutes of the 15-minute timeout, where one at
 * a time needs about the whole timeout (docs/benchmarks.md, "Large archives"); with the function's maximum
 * concurrency of 10 and batches of 4, the ingest then keeps at most 320 imports in flight against the
 * PDS, the same order as the pollers' `POLL_CONCURRENCY` of 8 per invocation. It is also the most
 * imports a kill can leave accepted but unrecorded.
 */
export const DEFAULT_IMPORT_CONCURRENCY = 8;

interface Waiter {
  index: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class ImportLedger {
  readonly #write: (ranges: Array<[number, number]>) => Promise<void>;
  #ranges: IndexRanges;
  #waiting: Waiter[] = [];
  #writing = false;
  #failure: { error: unknown } | undefined;

  /**
   * @param imported what the record holds already
   * @param write writes the record with these ranges; a rejection fails every import waiting for it
   *   and every later one (the claim was lost, or the store failed: stop and let SQS retry)
   */
  constructor(imported: IndexRanges, write: (ranges: Array<[number, number]>) => Promise<void>) {
    this.#ranges = imported;
    this.#write = write;
  }

  /** The imports on record. */
  get imported(): IndexRanges {
    return this.#ranges;
  }

  /** Resolves once a write recording `index` as imported has landed. */
  record(index: number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    const recorded = new Promise<void>((resolve, reject) => {
      this.#waiting.push({ index, resolve, reject });
    });
    if (!this.#writing) void this.#drain();
    return recorded;
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0);
      const next = addIndexes(
        this.#ranges,
        batch.map((waiter) => waiter.index),
      );
      try {
        await this.#write(next);
      } catch (error) {
        this.#failure = { error };
        for (const waiter of [...batch, ...this.#waiting.splice(0)]) waiter.reject(error);
        break;
      }
      this.#ranges = next;
      for (const waiter of batch) waiter.resolve();
    }
    this.#writing = false;
  }
}
