/**
 * How the ingest tags join an object's tag set, shared by the S3 tagger (./s3/adapters.ts) and the
 * in-memory one (./memory-tagger.ts); kept free of the AWS SDK so the in-memory tagger does not load it.
 */
import type { IngestTags } from './ports.ts';

/** S3 allows at most this many tags per object. */
export const MAX_OBJECT_TAGS = 10;

/** One tag as S3's tagging API carries it (the SDK's `Tag`, declared here so this file needs no SDK). */
export interface ObjectTag {
  Key: string | undefined;
  Value: string | undefined;
}

/**
 * The owner's tags with the ingest tags put over them (same keys replaced, order kept).
 *
 * @example
 * ```ts
 * mergeTags([{ Key: 'team', Value: 'a' }], { 'pds-ingest-outcome': 'imported' });
 * // [{ Key: 'team', Value: 'a' }, { Key: 'pds-ingest-outcome', Value: 'imported' }]
 * ```
 */
export function mergeTags(existing: readonly ObjectTag[], tags: IngestTags): ObjectTag[] {
  const kept = existing.filter((tag) => tag.Key === undefined || !Object.hasOwn(tags, tag.Key));
  return [...kept, ...Object.entries(tags).map(([Key, Value]) => ({ Key, Value }))];
}
