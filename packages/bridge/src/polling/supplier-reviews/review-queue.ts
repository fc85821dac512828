/**
 * The fan-out of the supplier-review poll: when the watch list is larger than one invocation should
 * handle, the scheduled run splits the keys into chunks and sends each chunk as one message to an
 * internal queue (`REVIEW_POLL_QUEUE_URL`); the worker function polls the keys of one message.
 *
 * A message body is JSON: `{"version":1,"runId":"…","enqueuedAt":"<ISO>","keys":["…", …],"etags":["…", …],"levels":[6, …]}`;
 * `etags` (the ETag of each key's watch entry when the run listed it, same order) spares the worker
 * reading entries that did not change; chunks without it are polled too, reading every entry.
 * `levels` is the progress layout the keys were grouped by (review-progress.ts): the keys of
 * one progress shard travel together, in as few chunks as the chunk size allows, so each shard is
 * written once per chunk; chunks without it are polled too, reading the layout.
 *
 * This file is the port and the chunk format, free of the AWS SDK so the worker reads chunks without
 * loading it; the SQS adapter is ./sqs/review-queue.ts.
 */

import { checkInteger, parseJsonOr } from '../../core/index.ts';
import { toSendableJson } from '../../events/index.ts';
import { ReviewChunkFormatError, ReviewFanOutError } from '../errors.ts';

/** One message of the fan-out queue. */
export interface ReviewKeyChunk {
  version: 1;
  /** The scheduled run that sent it (the Lambda request id), for correlation in logs. */
  runId: string;
  enqueuedAt: string;
  keys: string[];
  /** The ETag of each key's watch entry when it was listed, in the order of `keys`. */
  etags?: string[];
  /** The progress layout's levels the keys were grouped by (`ProgressLayout.levels`). */
  levels?: number[];
}

/** Where chunks go; `SqsReviewKeyQueue` (./sqs/review-queue.ts) is the SQS adapter. */
export interface ReviewKeyQueue {
  /** Resolves once every chunk was accepted; otherwise rejects with {@link ReviewFanOutError}. */
  send(chunks: readonly ReviewKeyChunk[]): Promise<void>;
}

/** Default keys per chunk. */
export const DEFAULT_CHUNK_SIZE = 100;
/** Largest chunk body: well below SQS's 256 KiB, so five fit in one batch request. */
export const MAX_CHUNK_BYTES = 200 * 1024;

/** How the keys are grouped into progress shards: the layout's levels and the shard of a key. */
export interface ChunkShards {
  levels: number[];
  of: (primaryKey: string) => number;
}

/**
 * Splits keys into chunks of at most `chunkSize` keys and {@link MAX_CHUNK_BYTES} bytes, in order.
 * With `shards` (keys sorted by shard), a shard's keys start a new chunk when they would not fit in
 * the current one whole, and a shard of up to twice `chunkSize` keys makes one chunk of its own, so a
 * chunk writes each shard it covers once; only a larger shard (or one over the byte limit) is split.
 *
 * @example
 * chunkKeys(['a', 'b', 'c'], { chunkSize: 2, runId: 'r1', now: new Date() }).map((chunk) => chunk.keys); // [['a','b'],['c']]
 */
export function chunkKeys(
  keys: ReadonlyArray<string | { primaryKey: string; etag: string }>,
  options: { chunkSize?: number; runId: string; now: Date; shards?: ChunkShards },
): ReviewKeyChunk[] {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  checkInteger('chunkSize', chunkSize, { min: 1 });
  const { shards } = options;
  const base = {
    version: 1 as const,
    runId: options.runId,
    enqueuedAt: options.now.toISOString(),
    ...(shards ? { levels: shards.levels } : {}),
  };
  const primaryKeys = keys.map((key) => (typeof key === 'string' ? key : key.primaryKey));
  const shardOfKey = shards ? primaryKeys.map(shards.of) : [];
  const shardSizes = new Map<number, number>();
  for (const shard of shardOfKey) shardSizes.set(shard, (shardSizes.get(shard) ?? 0) + 1);
  const overhead = Buffer.byteLength(toSendableJson({ ...base, keys: [], etags: [] }), 'utf8');
  const chunks: ReviewKeyChunk[] = [];
  let current: string[] = [];
  let etags: string[] = [];
  let bytes = overhead;
  const flush = () => {
    chunks.push({ ...base, keys: current, ...(etags.length === current.length ? { etags } : {}) });
    current = [];
    etags = [];
    bytes = overhead;
  };
  for (const [index, key] of keys.entries()) {
    const listed = typeof key === 'string' ? { primaryKey: key } : key;
    const shard = shardOfKey[index];
    const shardSize = shard === undefined ? 0 : (shardSizes.get(shard) ?? 0);
    if (shard !== undefined && shard !== shardOfKey[index - 1] && current.length > 0) {
      if (current.length + shardSize > chunkSize) flush();
    }
    // A shard up to twice the chunk size travels whole (a chunk is never split mid-shard below that).
    const cap = shardSize <= 2 * chunkSize ? Math.max(chunkSize, shardSize) : chunkSize;
    const keyBytes =
      Buffer.byteLength(toSendableJson(listed.primaryKey), 'utf8') +
      1 +
      ('etag' in listed ? Buffer.byteLength(toSendableJson(listed.etag), 'utf8') + 1 : 0);
    if (current.length > 0 && (current.length >= cap || bytes + keyBytes > MAX_CHUNK_BYTES)) flush();
    current.push(listed.primaryKey);
    if ('etag' in listed) etags.push(listed.etag);
    bytes += keyBytes;
  }
  if (current.length > 0) flush();
  return chunks;
}

/**
 * The keys of a chunk as the poller takes them: with their listed ETags when the chunk has them.
 *
 * @example
 * keysToPoll(parseReviewKeyChunk(record.body)); // [{ primaryKey: '04012345678901', etag: '"9f…"' }, …]
 */
export function keysToPoll(chunk: ReviewKeyChunk): Array<{ primaryKey: string; etag?: string }> {
  return chunk.keys.map((primaryKey, index) => {
    const etag = chunk.etags?.[index];
    return etag === undefined ? { primaryKey } : { primaryKey, etag };
  });
}

/**
 * Reads a fan-out message body; throws {@link ReviewChunkFormatError} for anything else.
 *
 * @example
 * parseReviewKeyChunk(record.body).keys; // ['04012345678901', …]
 */
export function parseReviewKeyChunk(body: string): ReviewKeyChunk {
  const value = parseJsonOr(body, () => new ReviewChunkFormatError('the body is not JSON'));
  const chunk = value as Partial<ReviewKeyChunk> | null;
  if (chunk === null || typeof chunk !== 'object' || chunk.version !== 1) {
    throw new ReviewChunkFormatError('no "version": 1');
  }
  if (!Array.isArray(chunk.keys) || !chunk.keys.every((key) => typeof key === 'string' && key.length > 0)) {
    throw new ReviewChunkFormatError('"keys" must be an array of non-empty strings');
  }
  const { etags } = chunk;
  if (
    etags !== undefined &&
    !(
      Array.isArray(etags) &&
      etags.length === chunk.keys.length &&
      etags.every((etag) => typeof etag === 'string' && etag.length > 0)
    )
  ) {
    throw new ReviewChunkFormatError('"etags" must be an array of non-empty strings, one per key');
  }
  const { levels } = chunk;
  if (
    levels !== undefined &&
    !(
      Array.isArray(levels) &&
      levels.length > 0 &&
      levels.every((level) => Number.isInteger(level) && level >= 0)
    )
  ) {
    throw new ReviewChunkFormatError('"levels" must be a non-empty array of integers');
  }
  return {
    version: 1,
    runId: typeof chunk.runId === 'string' ? chunk.runId : '',
    enqueuedAt: typeof chunk.enqueuedAt === 'string' ? chunk.enqueuedAt : '',
    keys: chunk.keys,
    ...(etags ? { etags } : {}),
    ...(levels ? { levels } : {}),
  };
}

/**
 * The progress layout a chunk's keys were grouped by, for `pollReviewKeys`'s `layout` option.
 *
 * @example
 * pollReviewKeys(deps, keysToPoll(chunk), { layout: chunkLayout(chunk) });
 */
export function chunkLayout(chunk: ReviewKeyChunk): { levels: number[] } | undefined {
  return chunk.levels ? { levels: chunk.levels } : undefined;
}
