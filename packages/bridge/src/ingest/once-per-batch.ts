/**
 * One object write per batch: Powertools' BatchProcessor runs the records of an SQS batch at the same
 * time, and S3 may put two notifications of one write in one batch. Without coordination both records
 * race for the same claim, and the loser burns a receive (or, where conditional writes are not
 * atomic, both upload). The records of one invocation share an {@link OncePerBatch}: the first record
 * of a write ingests it, later ones wait for that and take its result.
 */
import type { IngestOutcome } from './ingest-object.ts';
import { ingestProgressKey } from './keys.ts';
import type { ObjectWriteEvent } from './s3-event.ts';

/**
 * Runs the ingest of each object write at most once per invocation.
 *
 * @example
 * ```ts
 * const batch = new OncePerBatch(); // one per invocation, shared by its records
 * const outcome = await batch.ingest(write, () => ingestObject(write, deps));
 * ```
 */
export class OncePerBatch {
  readonly #running = new Map<string, Promise<IngestOutcome>>();

  /**
   * Ingests `write` with `ingest`, unless another record of this batch already does: then waits for
   * that one. A finished write comes back as a `duplicate` of what the first record ended with.
   *
   * When the first record's ingest throws, the later ones throw the same error, so they are retried
   * too. Acknowledging them instead would leave the write's fate to the first message alone; failing
   * them costs a receive but loses nothing, and their next delivery finds the write finished (a
   * duplicate), resumes it, or meets the first message's live claim and waits for its lease.
   */
  ingest(write: ObjectWriteEvent, ingest: () => Promise<IngestOutcome>): Promise<IngestOutcome> {
    const progressKey = ingestProgressKey(write);
    const first = this.#running.get(progressKey);
    if (first) return first.then((outcome) => asDuplicate(outcome));
    const running = ingest();
    this.#running.set(progressKey, running);
    return running;
  }
}

function asDuplicate(outcome: IngestOutcome): IngestOutcome {
  return {
    status: 'duplicate',
    progressKey: outcome.progressKey,
    previous: outcome.status === 'duplicate' ? outcome.previous : outcome.status,
  };
}
