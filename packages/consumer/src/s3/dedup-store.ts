/**
 * The S3 adapter of {@link DedupStore}: the bridge's own `S3StateStore`, whose conditional writes
 * (If-None-Match: * to claim an id, If-Match on the ETag to finish or release it) let every consumer
 * instance share one record per event id.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { OptionError } from '../../../bridge/src/core/index.ts';
import { S3StateStore } from '../../../bridge/src/state/s3/index.ts';
import type { DedupStore } from '../dedup.ts';

export interface S3DedupStoreOptions {
  client: S3Client;
  /** A bucket the consumer may read, write and delete in. No default. */
  bucket: string;
}

/**
 * Records processed event ids as small JSON objects in `bucket` (keys from the deduplicator's
 * `keyPrefix`, default `pds-events/processed/`). Expire them with a lifecycle rule on that prefix,
 * a day or more after the deduplicator's `ttlMs`.
 *
 * @example
 * ```ts
 * const dedup = new Deduplicator({ store: s3DedupStore({ client: new S3Client({}), bucket: 'orders-consumer-state' }) });
 * ```
 */
export function s3DedupStore(options: S3DedupStoreOptions): DedupStore {
  if (typeof options?.client?.send !== 'function') {
    throw new OptionError('client', 's3DedupStore needs client: an S3Client from @aws-sdk/client-s3');
  }
  if (typeof options.bucket !== 'string' || options.bucket.trim() === '') {
    throw new OptionError(
      'bucket',
      's3DedupStore needs bucket: the name of a bucket this consumer may write to',
    );
  }
  return new S3StateStore({ client: options.client, bucket: options.bucket });
}
