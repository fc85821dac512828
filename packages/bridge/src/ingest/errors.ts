/**
 * Every way ingesting a dropped object can fail before or outside the PDS, as a class of its own.
 * PDS failures keep their own classes (`PdsError` and subclasses, packages/bridge/src/pds/errors.ts); state-store
 * failures theirs (packages/bridge/src/state/errors.ts).
 *
 * `retryable` (packages/bridge/src/core `BridgeError`) says whether the same SQS message may succeed later: a retryable
 * error is thrown so the record is reported as a batch item failure; a permanent one ends as a
 * `pds.ingest.failed` event.
 */
import { BridgeError } from '../core/index.ts';

/** The message is not an S3 event notification we can read (bad JSON, missing fields, bad key encoding). */
export class IngestEventError extends BridgeError {
  constructor(problem: string, options?: ErrorOptions) {
    super(
      'INGEST_EVENT_INVALID',
      `Cannot read the S3 event notification: ${problem}. Expected an S3 event ({"Records":[{"eventSource":"aws:s3","s3":{"bucket":{"name"},"object":{"key","size","eTag","sequencer"}}}]}) in the SQS message body; check what sends to the ingest queue.`,
      { ...options, retryable: false },
    );
    this.name = 'IngestEventError';
  }
}

/**
 * Another delivery of the same object write holds a fresh claim on it (or took it over from us).
 * Retryable: the message should come back once the other claim's lease has ended ({@link inProgressUntil}),
 * when that delivery has finished or can be taken over.
 */
export class IngestInProgressError extends BridgeError {
  readonly progressKey: string;
  /** Epoch ms when the other delivery's claim runs out, when known. */
  readonly leaseUntil: number | undefined;

  constructor(progressKey: string, detail: string, leaseUntil?: number) {
    super(
      'INGEST_IN_PROGRESS',
      `Another delivery is ingesting the same object write (${progressKey}): ${detail}; this delivery is retried later by SQS`,
      { retryable: true },
    );
    this.name = 'IngestInProgressError';
    this.progressKey = progressKey;
    this.leaseUntil = leaseUntil;
  }
}

/**
 * When a failed delivery should come back: the end of the lease it waits for, when every write it
 * failed on is in progress elsewhere with a known lease (the latest of them); otherwise undefined,
 * and the usual retry back-off applies.
 *
 * @example
 * ```ts
 * inProgressUntil(new IngestInProgressError(key, 'claimed by …', leaseUntil)); // leaseUntil
 * inProgressUntil(new PdsServerError(503, line, '')); // undefined
 * ```
 */
export function inProgressUntil(error: unknown): number | undefined {
  const errors = error instanceof AggregateError ? error.errors : [error];
  let latest: number | undefined;
  for (const each of errors) {
    if (!(each instanceof IngestInProgressError) || each.leaseUntil === undefined) return undefined;
    latest = Math.max(latest ?? 0, each.leaseUntil);
  }
  return latest;
}

/** Why an object could not be read. */
export type ObjectSourceProblem =
  /** Deleted (or its version removed) before it was processed: permanent. */
  | 'gone'
  /** Replaced by a newer write since the notification (If-Match failed): permanent, the newer write has its own notification. */
  | 'superseded'
  /** In an archive storage class that must be restored first: permanent. */
  | 'archived'
  /** Anything else: permissions, throttling, S3 errors, network. */
  | 'unavailable';

/** Opening (or tagging) an S3 object failed. */
export class ObjectSourceError extends BridgeError {
  readonly problem: ObjectSourceProblem;
  readonly bucket: string;
  readonly key: string;

  constructor(
    problem: ObjectSourceProblem,
    object: { bucket: string; key: string },
    detail: string,
    retryable: boolean,
    options?: ErrorOptions,
  ) {
    super('OBJECT_SOURCE_FAILED', `s3://${object.bucket}/${object.key}: ${detail}`, {
      ...options,
      retryable,
    });
    this.name = 'ObjectSourceError';
    this.problem = problem;
    this.bucket = object.bucket;
    this.key = object.key;
  }
}

/** True when the error says that trying the same message again later can help. */
export function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return true;
  const { retryable } = error as { retryable?: unknown };
  // Errors that do not say (SDK failures, bugs) are retried: the DLQ keeps what never succeeds.
  return typeof retryable === 'boolean' ? retryable : true;
}

/** The PDS accepted the upload but its answer cannot be imported (no entries, mixed gatherings): permanent. */
export class IngestRejectedError extends BridgeError {
  /** `no-entries` for an answer that lists nothing, `invalid-answer` for one that cannot be imported. */
  readonly problem: 'no-entries' | 'invalid-answer';

  constructor(problem: 'no-entries' | 'invalid-answer', detail: string) {
    super(
      'INGEST_REJECTED',
      `The PDS answer to the upload cannot be imported: ${detail}; check the file and the PDS`,
    );
    this.name = 'IngestRejectedError';
    this.problem = problem;
  }
}

/**
 * The dropped file (or a member of a dropped archive) is not what the PDS imports: not well-formed
 * JSON or CSV, not UTF-8 (./content/). Permanent: the same bytes fail again; none of its entries is
 * imported, so nothing of a half-read file reaches the PDS's items.
 */
export class IngestUnreadableError extends BridgeError {
  /** The file, or `archive.zip:member` for a member. */
  readonly file: string;
  readonly problem: string;
  readonly fix: string;
  /** The gathering the PDS keeps the upload in, unimported. */
  readonly gatheringKey: string;

  constructor(found: { file: string; problem: string; fix: string }, gatheringKey: string) {
    super(
      'INGEST_UNREADABLE',
      `${found.file} cannot be imported: ${found.problem}. Fix: ${found.fix}, then upload it again. Nothing of it was imported (the PDS keeps the upload as gathering ${gatheringKey}, unimported)`,
      { retryable: false },
    );
    this.name = 'IngestUnreadableError';
    this.file = found.file;
    this.problem = found.problem;
    this.fix = found.fix;
    this.gatheringKey = gatheringKey;
  }
}
