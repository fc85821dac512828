/**
 * The publication record (`publications/<id>.json` in the state bucket): the request as accepted and
 * everything the worker learns while carrying it out. The API creates it; the worker moves it along
 * queued → publishing → published | failed with conditional writes (If-Match), so two deliveries of
 * one message never both act on the same version.
 */
import type { PublicationFailureCode } from '../events/data/index.ts';
import type { Destination } from '../pds/index.ts';
import type { StateEntry, StateStore } from '../state/index.ts';
import { publicationKey } from './keys.ts';

/**
 * Statuses a publication goes through, in order (failed may follow queued or publishing). The API's
 * schemas (packages/bridge/src/api/schemas.ts) describe these types to callers; packages/bridge/src/api/publication-routes.ts fails
 * to compile when the two part.
 */
export type PublicationStatus = 'queued' | 'publishing' | 'published' | 'failed';

/** What a publication asks for: these items, to these destinations (each listed once). */
export interface PublicationRequestBody {
  primaryKeys: string[];
  destinations: Destination[];
}

/** Why a publication failed, or why its last attempt failed while it is retried. */
export interface PublicationErrorView {
  /** Set once the publication failed (docs/events.md, pds.publication.failed). */
  code?: PublicationFailureCode;
  reason: string;
  /** The PDS answer's status, when the PDS answered. */
  pdsStatus?: number;
  retryable: boolean;
  at: string;
}

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

/** The activity family of publication records (packages/bridge/src/state/activity-index.ts). */
export const PUBLICATION_ACTIVITY = 'publications';

/**
 * When a publication's outcome happened, for `pds bridge replay` (epoch ms): its published or failed
 * time, else its last change; `undefined` while its event was not sent (the worker sends it itself).
 */
export function notifiedAtTime(record: PublicationRecord): number | undefined {
  if (!record.notifiedAt) return undefined;
  const at = Date.parse(record.publishedAt ?? record.failedAt ?? record.updatedAt);
  return Number.isNaN(at) ? undefined : at;
}
