/**
 * The publication record (`publications/<id>.json` in the state bucket): the request as accepted and
 * everything the worker learns while carrying it out. The API creates it; the worker moves it along
 * queued → publishing → published | failed with conditional writes (If-Match), so two deliveries of
 * one message never both act on the same version.
 */
import type { StateEntry, StateStore } from '../state/index.ts';
import { publicationKey } from './keys.ts';
import type {
  PublicationErrorView,
  PublicationRequestBody,
  PublicationStatus,
  PublicationView,
} from './schemas.ts';

/** What is stored per publication. */
export interface PublicationRecord {
  publicationId: string;
  status: PublicationStatus;
  request: PublicationRequestBody;
  /** SHA-256 of the canonical request body; an Idempotency-Key replay must match it. */
  bodyHash: string;
  /** Who asked: the IAM user ARN, or `local` behind the bearer token. */
  requestedBy: string;
  createdAt: string;
  updatedAt: string;
  /** Deliveries of the queue message that reached the PDS steps. */
  attempts: number;
  /** Recorded before publishing, so a retry never creates a second selection. */
  selectionId?: string;
  numberOfItems?: number;
  publishedAt?: string;
  failedAt?: string;
  /** Why it failed (status failed). */
  error?: PublicationErrorView;
  /** Why the latest attempt failed while the publication is still retried. */
  lastError?: PublicationErrorView;
  /** Set once the completed or failed event was accepted and the keys were watched: nothing is left to do. */
  notifiedAt?: string;
  /**
   * The Idempotency-Key bookkeeping of a keyed request, kept in the record itself so that one
   * conditional create answers both "is this key new?" and "is the request recorded?" (./submit.ts).
   * Absent on requests without a key and on records written before it existed.
   */
  idempotency?: IdempotencyState;
}

/** Where a keyed request stands in being accepted (queued); see ./submit.ts. */
export interface IdempotencyState {
  /** Held while a request is queueing the message; absent once queued or given up. */
  claim?: { token: string; at: string };
  /** When the queue accepted the message: from then on every retry with the key is a replay. */
  queuedAt?: string;
  /** Why the last request holding the claim could not queue the message. */
  lastError?: string;
}

/** The record of a publication, or `undefined` when there is none. */
export function readPublication(
  store: StateStore,
  publicationId: string,
): Promise<StateEntry<PublicationRecord> | undefined> {
  return store.get<PublicationRecord>(publicationKey(publicationId));
}

/**
 * The record as the API shows it: internal bookkeeping (body hash, caller, notification marker) left out.
 *
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
