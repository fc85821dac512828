/** The publication family, `pds.publication.completed` and `pds.publication.failed`: their data types and codes (the schemas: ../types.ts). */
import type { Destination } from '../../pds/index.ts';
import { PDS_FAILURE_CODES } from './fields.ts';

/**
 * Why a publication failed (`pds.publication.failed` `data.code`); the set only grows.
 */
export const PUBLICATION_FAILURE_CODES = [
  ...PDS_FAILURE_CODES,
  /** The PDS failed transiently on every one of `PUBLICATION_MAX_ATTEMPTS` deliveries. */
  'attempts-exhausted',
] as const;
export type PublicationFailureCode = (typeof PUBLICATION_FAILURE_CODES)[number];

/** `pds.publication.completed`: a selection was created and published. */
export interface PublicationCompletedData {
  publicationId: string;
  selectionId: string;
  numberOfItems: number;
  destinations: Destination[];
  primaryKeys: string[];
}

/** `pds.publication.failed`: a publication request could not be carried out. */
export interface PublicationFailedData {
  publicationId: string;
  /** Set when the failure happened after the selection was created. */
  selectionId?: string;
  /** Why, as one of {@link PUBLICATION_FAILURE_CODES}. */
  code: PublicationFailureCode;
  reason: string;
  pdsStatus?: number;
  retryable: boolean;
}
