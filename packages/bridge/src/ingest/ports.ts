/**
 * The ports the ingest logic depends on. Adapters: S3 (./s3/adapters.ts), in memory
 * (./memory-tagger.ts), the HTTP PDS client (packages/bridge/src/pds), the S3 state store (packages/bridge/src/state) and the SQS event
 * publisher (packages/bridge/src/events).
 */
import type { Readable } from 'node:stream';
import type { PdsClient } from '../pds/index.ts';

/** One write of an object: which bytes to read, and how to tell whether they are still the ones announced. */
export interface ObjectRef {
  bucket: string;
  key: string;
  /** Versioned buckets: read exactly this version. */
  versionId?: string;
  /** Unversioned buckets: read only while the object still has this ETag (unquoted or quoted). */
  etag?: string;
}

/** An opened object: a stream to consume (or destroy) and its exact size. */
export interface OpenedObject {
  stream: Readable;
  /** Exact bytes the stream yields (the GET's Content-Length). */
  size: number;
  /** As S3 stores it; may be missing or generic (`binary/octet-stream`). */
  contentType?: string;
}

/** Reads dropped objects. */
export interface ObjectSource {
  /**
   * Opens the object for streaming.
   *
   * @throws ObjectSourceError with problem `gone` (deleted), `superseded` (ETag no longer matches),
   * `archived`, or `unavailable` (retryable unless a permission problem)
   */
  open(object: ObjectRef): Promise<OpenedObject>;
}

/** Tags the ingest writes on the dropped object. */
export type IngestTags = Record<string, string>;

/** Whether the tags were written, and why not. */
export type TagResult = { tagged: true } | { tagged: false; reason: string };

/** Writes tags on dropped objects without dropping the owner's own tags. */
export interface ObjectTagger {
  /**
   * Merges `tags` into the object's tag set (same keys are replaced, other keys kept). A permanent
   * obstacle (object gone or replaced, tag limit reached, no permission) is answered with
   * `{ tagged: false, reason }`; a transient one throws a retryable error. The ingest treats both the
   * same way (tags are written after the imports: logged and counted, never retried).
   */
  tag(object: ObjectRef, tags: IngestTags): Promise<TagResult>;
}

/** The part of the PDS client ingest uses. */
export type IngestPdsClient = Pick<PdsClient, 'uploadGathering' | 'startImport'>;
