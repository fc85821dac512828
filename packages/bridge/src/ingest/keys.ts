/**
 * Where the ingest keeps its progress in the state bucket: one record per write of a dropped object,
 * and the entries of its gatherings beside it (docs/architecture.md, "The state bucket").
 */
import {
  encodeKeyPart,
  encodeKeySegment,
  MAX_READABLE_SEGMENT,
  sha256Hex,
  statePrefix,
} from '../state/index.ts';

/** `ingest/`: the progress records of dropped objects and their entries. */
export const INGEST_PROGRESS_PREFIX = statePrefix('ingest', 'packages/bridge/src/ingest');

/** Identifies one write of a dropped S3 object. */
export interface ObjectWrite {
  bucket: string;
  /** The decoded object key (S3 events carry it URL-encoded, `+` for spaces: decode first). */
  key: string;
  /** Set in versioned buckets: identifies the write on its own. */
  versionId?: string;
  /** The object's ETag, with or without quotes. Used when there is no versionId. */
  etag?: string;
  /**
   * The S3 event's `sequencer`. Without a versionId, identical content uploaded twice has the same ETag;
   * adding the sequencer makes each upload its own record (duplicate notifications of one upload share it).
   */
  sequencer?: string;
}

/** Prefix of every progress record of one object key (all its versions). */
export function ingestObjectPrefix(bucket: string, key: string): string {
  return `${INGEST_PROGRESS_PREFIX}${encodeKeySegment(bucket)}/${sha256Hex(key)}/`;
}

/**
 * Where the ingest progress of one object write is recorded:
 * `ingest/<bucket>/<sha256 of key>/v-<versionId>.json` or `…/e-<etag>[.<sequencer>].json`.
 *
 * @example
 * ```ts
 * ingestProgressKey({ bucket: 'drops', key: 'in/Ä b.csv', etag: '"9b2cf535f27731c974343645a3985328"' });
 * // 'ingest/drops/<64 hex>/e-9b2cf535f27731c974343645a3985328.json'
 * ```
 */
export function ingestProgressKey(write: ObjectWrite): string {
  let identity: string;
  if (write.versionId) {
    identity = `v-${encodeKeyPart(write.versionId)}`;
  } else if (write.etag) {
    const etag = write.etag.replace(/^(W\/)?"(.*)"$/, '$2');
    identity = `e-${encodeKeyPart(etag)}${write.sequencer ? `.${encodeKeyPart(write.sequencer)}` : ''}`;
  } else {
    throw new TypeError(
      `Cannot record progress of s3://${write.bucket}/${write.key}: give its versionId or etag (both are in the S3 event)`,
    );
  }
  if (identity.length > MAX_READABLE_SEGMENT) {
    identity = `h-${sha256Hex(identity)}`;
  }
  return `${ingestObjectPrefix(write.bucket, write.key)}${identity}.json`;
}

/**
 * Where the entries of one gathering of an object write are stored, beside its progress record:
 * written once when the upload is recorded, so the record itself stays small however many entries
 * the file has. One document per gathering: a holder that lost its claim while uploading can only
 * write its own gathering's document, never the one the record points to.
 *
 * @example
 * ingestEntriesKey('ingest/drops/<64 hex>/e-9b2c.json', 'g-17');
 * // 'ingest/drops/<64 hex>/e-9b2c/entries/g-17.json'
 */
export function ingestEntriesKey(progressKey: string, gatheringKey: string): string {
  if (!isIngestProgressKey(progressKey)) {
    throw new TypeError(
      `${JSON.stringify(progressKey)} is not an ingest progress key (build it with ingestProgressKey)`,
    );
  }
  return `${progressKey.slice(0, -'.json'.length)}/entries/${encodeKeySegment(gatheringKey)}.json`;
}

/**
 * Whether a key under `ingest/` is a progress record (`ingest/<bucket>/<hash>/<write>.json`) rather
 * than the entries stored beside one: readers that list the prefix keep only these.
 */
export function isIngestProgressKey(key: string): boolean {
  return key.startsWith(INGEST_PROGRESS_PREFIX) && key.endsWith('.json') && key.split('/').length === 4;
}
