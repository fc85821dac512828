/** The publication family: `pds.publication.completed` and `pds.publication.failed`, their data types and schemas. */
import * as z from '../../core/zod.ts';
import { described } from '../../core/zod.ts';
import type { Destination } from '../../pds/index.ts';
import { DESTINATION_TYPES } from '../../pds/index.ts';
import { count, failureCodeField, nonEmpty, PDS_FAILURE_CODES, pdsStatus, reason } from './fields.ts';

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

/** zod schema of `pds.publication.completed` data. */
export const publicationCompletedSchema = () =>
  described(
    z.object({
      publicationId: described(nonEmpty(), 'The id the HTTP API gave the publication request.'),
      selectionId: described(nonEmpty(), 'The PDS selection created from the primary keys.'),
      numberOfItems: described(count(), 'Items in the selection, as the PDS counted them.'),
      destinations: described(
        z.array(
          z.object({
            destinationType: z.enum(DESTINATION_TYPES),
            destinationId: nonEmpty(),
          }),
        ),
        'Where the selection was published.',
      ),
      primaryKeys: described(z.array(nonEmpty()), 'The primary keys of the request.'),
    }),
    'A publication requested through the HTTP API was carried out: the PDS created a selection of the primary keys and accepted the request to publish it to the destinations.',
  );

/** zod schema of `pds.publication.failed` data. */
export const publicationFailedSchema = () =>
  described(
    z.object({
      publicationId: described(nonEmpty(), 'The id the HTTP API gave the publication request.'),
      selectionId: described(
        z.optional(nonEmpty()),
        'Set when the failure happened after the selection was created.',
      ),
      code: failureCodeField(PUBLICATION_FAILURE_CODES),
      reason: reason(),
      pdsStatus: pdsStatus(),
      retryable: described(
        z.boolean(),
        'True when the PDS failed transiently on every attempt: the same request may succeed later.',
      ),
    }),
    'A publication requested through the HTTP API could not be carried out.',
  );
