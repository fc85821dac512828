/**
 * The two events an ingest ends with. Ids are derived from the object write (bucket, key, version or,
 * unversioned, ETag and sequencer; the completed event adds its gathering key, fixed once recorded), so
 * a repeated emission after a crash carries the same id and consumers drop it, while a file dropped
 * again (a new write) gets new ids.
 */
import { boundedText } from '../core/index.ts';
import type { IngestFailureCode } from '../events/data/index.ts';
import { type CloudEvent, createEvent } from '../events/index.ts';
import type { ObjectWrite } from './keys.ts';

/** The parts that identify one object write; every ingest event of that write shares them. */
export function writeIdParts(write: ObjectWrite): string[] {
  return [write.bucket, write.key, write.versionId ?? '', write.etag ?? '', write.sequencer ?? ''];
}

function subjectOf(write: ObjectWrite): string {
  return `s3://${write.bucket}/${write.key}`;
}

function objectRef(write: ObjectWrite) {
  return { bucket: write.bucket, key: write.key, ...(write.versionId ? { versionId: write.versionId } : {}) };
}

/**
 * `pds.ingest.completed` for a write the PDS accepted the import of every entry of (`outcome`
 * `import-accepted`: the PDS does not report whether items were created).
 *
 * @example
 * ```ts
 * completedEvent(write, { size: 18342, gatheringKey, entries: [{ path: 'items.csv', assetKey }] });
 * ```
 */
export function completedEvent(
  write: ObjectWrite,
  result: { size: number; gatheringKey: string; entries: ReadonlyArray<{ path: string; assetKey: string }> },
  source?: string,
): CloudEvent<'pds.ingest.completed'> {
  return createEvent({
    type: 'pds.ingest.completed',
    subject: subjectOf(write),
    idParts: [...writeIdParts(write), result.gatheringKey],
    ...(source ? { source } : {}),
    data: {
      ...objectRef(write),
      size: result.size,
      gatheringKey: result.gatheringKey,
      entriesImported: result.entries.map(({ path, assetKey }) => ({ path, assetKey })),
      outcome: 'import-accepted',
    },
  });
}

/**
 * `pds.ingest.failed` for a write that cannot be ingested (`retryable` false: the message is
 * acknowledged; true is reserved for consumers that report transient trouble).
 */
export function failedEvent(
  write: ObjectWrite,
  failure: { code: IngestFailureCode; reason: string; pdsStatus?: number | undefined; retryable: boolean },
  source?: string,
): CloudEvent<'pds.ingest.failed'> {
  return createEvent({
    type: 'pds.ingest.failed',
    subject: subjectOf(write),
    idParts: writeIdParts(write),
    ...(source ? { source } : {}),
    data: {
      ...objectRef(write),
      code: failure.code,
      reason: boundedText(failure.reason),
      ...(failure.pdsStatus !== undefined ? { pdsStatus: failure.pdsStatus } : {}),
      retryable: failure.retryable,
    },
  });
}
