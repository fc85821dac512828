/**
 * The event a finished publication ends with, built from its record alone: the worker emits it, and
 * `pds bridge replay` emits it again with the same id (`idParts: [publicationId]`) and time.
 */
import { boundedText } from '../core/index.ts';
import type { PublicationFailureCode } from '../events/data/index.ts';
import { type CloudEvent, createEvent, httpRefusalCode } from '../events/index.ts';
import type { PublicationErrorView, PublicationRecord } from './records.ts';

/**
 * `pds.publication.completed` for a published record, `pds.publication.failed` for a failed one;
 * `undefined` while the publication is still queued or publishing.
 *
 * @example
 * ```ts
 * const event = publicationOutcomeEvent(record);
 * if (event) await sink.publish([event]);
 * ```
 */
export function publicationOutcomeEvent(
  record: PublicationRecord,
): CloudEvent<'pds.publication.completed' | 'pds.publication.failed'> | undefined {
  const { publicationId } = record;
  const subject = `publication/${publicationId}`;
  if (record.status === 'published') {
    return createEvent({
      type: 'pds.publication.completed',
      subject,
      idParts: [publicationId],
      time: record.publishedAt,
      data: {
        publicationId,
        selectionId: record.selectionId as string,
        numberOfItems: record.numberOfItems ?? 0,
        destinations: record.request.destinations,
        primaryKeys: record.request.primaryKeys,
      },
    });
  }
  if (record.status !== 'failed') return undefined;
  const error: Omit<PublicationErrorView, 'at'> = record.error ?? { reason: 'unknown', retryable: false };
  return createEvent({
    type: 'pds.publication.failed',
    subject,
    idParts: [publicationId],
    time: record.failedAt,
    data: {
      publicationId,
      ...(record.selectionId === undefined ? {} : { selectionId: record.selectionId }),
      code: recordedFailureCode(error),
      reason: boundedText(error.reason),
      ...(error.pdsStatus === undefined ? {} : { pdsStatus: error.pdsStatus }),
      retryable: error.retryable,
    },
  });
}

/** The code of a failed record written before records carried one (best reading of what it kept). */
function recordedFailureCode(error: Omit<PublicationErrorView, 'at'>): PublicationFailureCode {
  if (error.code !== undefined) return error.code;
  if (error.retryable) return 'attempts-exhausted';
  return error.pdsStatus === undefined ? 'invalid-answer' : httpRefusalCode(error.pdsStatus);
}
