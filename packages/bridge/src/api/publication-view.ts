/**
 * A publication record as GET /publications/{publicationId} shows it: the internal bookkeeping (body
 * hash, caller, notification marker, idempotency state) left out.
 */
import type {
  PublicationRecord,
  PublicationErrorView as RecordedError,
  PublicationRequestBody as RecordedRequest,
  PublicationStatus as RecordedStatus,
} from '../publications/records.ts';
import type {
  PublicationErrorView,
  PublicationRequestBody,
  PublicationStatus,
  PublicationView,
} from './schemas.ts';

/** `true` when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The records are the publications flow's; the schemas describe them to callers. These fail to
// compile when the two part, so a field added to one is added to the other.
const RECORD_TYPES_MATCH_THE_SCHEMAS: [
  Same<RecordedStatus, PublicationStatus>,
  Same<RecordedRequest, PublicationRequestBody>,
  Same<RecordedError, PublicationErrorView>,
] = [true, true, true];
void RECORD_TYPES_MATCH_THE_SCHEMAS;

/**
 * @example
 * ```ts
 * const entry = await readPublication(store, id);
 * if (entry) return { status: 200, body: publicationView(entry.value) };
 * ```
 */
export function publicationView(record: PublicationRecord): PublicationView {
  const view: PublicationView = {
    publicationId: record.publicationId,
    status: record.status,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    request: record.request,
    attempts: record.attempts,
  };
  if (record.selectionId !== undefined) view.selectionId = record.selectionId;
  if (record.numberOfItems !== undefined) view.numberOfItems = record.numberOfItems;
  if (record.publishedAt !== undefined) view.publishedAt = record.publishedAt;
  if (record.failedAt !== undefined) view.failedAt = record.failedAt;
  if (record.error !== undefined) view.error = record.error;
  if (record.lastError !== undefined && record.status !== 'published' && record.status !== 'failed') {
    view.lastError = record.lastError;
  }
  return view;
}
