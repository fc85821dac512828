/** The ingest family, `pds.ingest.completed` and `pds.ingest.failed`: their data types and codes (the schemas: ../types.ts). */
import { PDS_FAILURE_CODES, type S3ObjectRef } from './fields.ts';

/**
 * Why an ingest failed, as a stable machine-readable code (`pds.ingest.failed` `data.code`); the set
 * only grows. docs/events.md says what a consumer does with each.
 */
export const INGEST_FAILURE_CODES = [
  /** The object was replaced by a newer upload after its notification; the newer one is ingested on its own. */
  'superseded',
  /** The object (or its version) was deleted before it could be ingested. */
  'gone',
  /** The object is in an archive storage class and must be restored first. */
  'archived',
  /** The PDS accepted the upload but listed no entries (an empty archive, no importable file). */
  'no-entries',
  ...PDS_FAILURE_CODES,
  /** The S3 notification names the write with text that is not well-formed Unicode (a lone surrogate). */
  'invalid-notification',
  /**
   * The file (or a member of the archive) is not what the PDS imports: JSON that is not well-formed
   * or not an array of objects, a CSV with an unclosed quote or rows whose field count differs from
   * the header, text that is not UTF-8. Nothing of it was imported; `reason` names the place and the fix.
   */
  'unreadable',
] as const;
export type IngestFailureCode = (typeof INGEST_FAILURE_CODES)[number];

/**
 * What a completed ingest knows: the PDS accepted the import of every entry. The PDS answers an
 * import without a body, so whether items were created is not reported; a later value may say more.
 */
export const INGEST_COMPLETED_OUTCOMES = ['import-accepted'] as const;
export type IngestCompletedOutcome = (typeof INGEST_COMPLETED_OUTCOMES)[number];

/** `pds.ingest.completed`: an S3 object was uploaded to the PDS and the import of every entry accepted. */
export interface IngestCompletedData extends S3ObjectRef {
  /** Bytes of the S3 object. */
  size: number;
  gatheringKey: string;
  /** Each entry the PDS accepted an import request for (the name predates `outcome`). */
  entriesImported: Array<{ path: string; assetKey: string }>;
  /** Always `import-accepted` from this bridge; absent in events of older bridges, which meant the same. */
  outcome?: IngestCompletedOutcome;
}

/** `pds.ingest.failed`: an S3 object could not be ingested. */
export interface IngestFailedData extends S3ObjectRef {
  /** Why, as one of {@link INGEST_FAILURE_CODES}. */
  code: IngestFailureCode;
  reason: string;
  /** HTTP status the PDS answered, when the PDS refused. */
  pdsStatus?: number;
  /** True when the same object may succeed later (the message goes back to the queue). */
  retryable: boolean;
}
