/**
 * Event factories for the publishing tests: a failed ingest and a failed publication, each with a
 * deterministic id from its key, dated in the past so their ids never depend on the clock.
 */
import { type CloudEvent, createEvent } from '../../packages/bridge/src/events/index.ts';

/** `pds.ingest.failed` of `s3://drop/<key>`. */
export function ingestFailed(key: string): CloudEvent<'pds.ingest.failed'> {
  return createEvent({
    type: 'pds.ingest.failed',
    subject: `s3://drop/${key}`,
    idParts: ['drop', key],
    time: '2026-11-20T09:15:00Z',
    data: { bucket: 'drop', key, code: 'rejected', reason: 'refused', pdsStatus: 400, retryable: false },
  });
}

/** `pds.publication.failed` of publication `id`. */
export function publicationFailed(id: string): CloudEvent {
  return createEvent({
    type: 'pds.publication.failed',
    subject: `publication/${id}`,
    idParts: [id],
    time: '2026-11-20T09:15:00Z',
    data: { publicationId: id, code: 'rejected', reason: 'refused', retryable: false } as never,
  });
}
