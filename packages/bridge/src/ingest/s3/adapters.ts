/**
 * The S3 adapters of the ingest ports: {@link S3ObjectSource} streams dropped objects,
 * {@link S3ObjectTagger} merges the ingest tags into their tag sets.
 *
 * Their IAM actions on the drop bucket are {@link OBJECT_SOURCE_ACTIONS} and {@link OBJECT_TAGGER_ACTIONS}.
 */
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  type GetObjectCommandOutput,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectTaggingCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { ObjectSourceError, type ObjectSourceProblem } from '../errors.ts';
import type { IngestTags, ObjectRef, ObjectSource, ObjectTagger, OpenedObject, TagResult } from '../ports.ts';
import { MAX_OBJECT_TAGS, mergeTags } from '../tags.ts';

/**
 * What {@link S3ObjectSource} needs: GetObject, and GetObjectVersion because it names the announced
 * version; on the bucket, ListBucket under the ingest prefix (an `s3:prefix` condition), with which a
 * read answered 403 lists its exact key to tell a deleted object from a forbidden one.
 */
export const OBJECT_SOURCE_ACTIONS = Object.freeze({
  objects: ['s3:GetObject', 's3:GetObjectVersion'],
  bucket: ['s3:ListBucket'],
} as const);

/**
 * What {@link S3ObjectTagger} needs on the objects: HeadObject is authorised as GetObject, and each
 * call on a version as the `…Version…` action.
 */
export const OBJECT_TAGGER_ACTIONS = Object.freeze({
  objects: [
    's3:GetObject',
    's3:GetObjectVersion',
    's3:GetObjectTagging',
    's3:GetObjectVersionTagging',
    's3:PutObjectTagging',
    's3:PutObjectVersionTagging',
  ],
} as const);

interface AwsErrorShape {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** What an S3 failure means for a dropped object. */
function classify(error: unknown): { problem: ObjectSourceProblem; detail: string } {
  const e = (error ?? {}) as AwsErrorShape;
  const name = e.name ?? e.Code ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const detail = `${name}${status ? ` (${status})` : ''}${e.message && e.message !== name ? `: ${e.message}` : ''}`;
  // MethodNotAllowed: the version is a delete marker.
  if (
    ['NoSuchKey', 'NoSuchVersion', 'NoSuchBucket', 'NotFound', 'MethodNotAllowed'].includes(name) ||
    status === 404
  ) {
    return { problem: 'gone', detail };
  }
  if (name === 'PreconditionFailed' || status === 412) return { problem: 'superseded', detail };
  if (name === 'InvalidObjectState') return { problem: 'archived', detail };
  return { problem: 'unavailable', detail };
}

function quoted(etag: string): string {
  return etag.startsWith('"') || etag.startsWith('W/') ? etag : `"${etag}"`;
}

/** Read exactly the announced write: its version, or (unversioned) the object only while it has the announced ETag. */
function condition(object: ObjectRef): { VersionId: string } | { IfMatch: string } | Record<string, never> {
  if (object.versionId) return { VersionId: object.versionId };
  if (object.etag) return { IfMatch: quoted(object.etag) };
  return {};
}

/**
 * Opens dropped objects with GetObject; the body is streamed, never buffered.
 *
 * @example
 * ```ts
 * const source = new S3ObjectSource(s3Client());
 * const { stream, size } = await source.open({ bucket: 'drops', key: 'items.csv', etag: '9b2c…' });
 * ```
 */
export class S3ObjectSource implements ObjectSource {
  readonly #client: S3Client;

  constructor(client: S3Client) {
    this.#client = client;
  }

  async open(object: ObjectRef): Promise<OpenedObject> {
    let response: GetObjectCommandOutput;
    try {
      response = await this.#client.send(
        new GetObjectCommand({ Bucket: object.bucket, Key: object.key, ...condition(object) }),
      );
    } catch (error) {
      const { problem, detail } = await this.#classifyRead(object, error);
      throw new ObjectSourceError(
        problem,
        object,
        sourceMessage(problem, detail),
        problem === 'unavailable',
        {
          cause: error,
        },
      );
    }
    const body = response.Body;
    if (!(body instanceof Readable) || typeof response.ContentLength !== 'number') {
      if (body instanceof Readable) body.destroy();
      throw new ObjectSourceError(
        'unavailable',
        object,
        'GetObject answered without a readable body or Content-Length; check the S3 endpoint',
        true,
      );
    }
    return {
      stream: body,
      size: response.ContentLength,
      ...(response.ContentType ? { contentType: response.ContentType } : {}),
    };
  }

  /**
   * What a failed read means. S3 answers 404 for a deleted object only to a caller whose ListBucket
   * grant it deems to cover the key, and AWS does not say whether an `s3:prefix` condition (what the
   * deployment grants) counts for that implicit check. So a 403 lists the bucket under the exact key:
   * not listed means gone; listed means the read really was forbidden; a denied listing names the
   * grant to add.
   */
  async #classifyRead(
    object: ObjectRef,
    error: unknown,
  ): Promise<{ problem: ObjectSourceProblem; detail: string }> {
    const classified = classify(error);
    const e = (error ?? {}) as AwsErrorShape;
    if (
      classified.problem !== 'unavailable' ||
      (e.name !== 'AccessDenied' && e.$metadata?.httpStatusCode !== 403)
    ) {
      return classified;
    }
    try {
      const page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: object.bucket, Prefix: object.key, MaxKeys: 1 }),
      );
      if (page.Contents?.[0]?.Key !== object.key) {
        return { problem: 'gone', detail: `${classified.detail}; the key is not listed any more` };
      }
      return classified;
    } catch (listing) {
      return {
        problem: 'unavailable',
        detail: `${classified.detail}; listing the key to tell a deleted object from a forbidden one failed too (${classify(listing).detail}): grant s3:ListBucket on the bucket ${object.bucket} with a StringLike s3:prefix condition covering the ingest prefix`,
      };
    }
  }
}

function sourceMessage(problem: ObjectSourceProblem, detail: string): string {
  switch (problem) {
    case 'gone':
      return `the object no longer exists (${detail})`;
    case 'superseded':
      return `the object no longer has the ETag of the notification (${detail})`;
    case 'archived':
      return `the object is in an archive storage class (${detail}); restore it, then upload it again`;
    default:
      return `reading the object failed (${detail}); check the function's s3:GetObject permission and S3`;
  }
}

/**
 * Merges the ingest tags into a dropped object's tag set: reads the tags, replaces only the ingest's
 * own keys, writes the set back. Versioned objects are tagged by version; unversioned ones only after
 * a HeadObject If-Match confirms the object is still the announced write. S3 has no conditional
 * tagging, so a tag change by someone else between the read and the write can be lost.
 *
 * @example
 * ```ts
 * await new S3ObjectTagger(s3Client()).tag({ bucket: 'drops', key: 'items.csv', versionId }, { 'pds-ingest-outcome': 'imported' });
 * ```
 */
export class S3ObjectTagger implements ObjectTagger {
  readonly #client: S3Client;

  constructor(client: S3Client) {
    this.#client = client;
  }

  async tag(object: ObjectRef, tags: IngestTags): Promise<TagResult> {
    const target = {
      Bucket: object.bucket,
      Key: object.key,
      ...(object.versionId ? { VersionId: object.versionId } : {}),
    };
    try {
      if (!object.versionId && object.etag) {
        await this.#client.send(new HeadObjectCommand({ ...target, IfMatch: quoted(object.etag) }));
      }
      const current = await this.#client.send(new GetObjectTaggingCommand(target));
      const merged = mergeTags(current.TagSet ?? [], tags);
      if (merged.length > MAX_OBJECT_TAGS) {
        const own = merged.length - Object.keys(tags).length;
        return {
          tagged: false,
          reason: `the object carries ${own} tags of its own and S3 allows ${MAX_OBJECT_TAGS}, so the ${Object.keys(tags).length} ingest tags do not fit; its own tags were left alone`,
        };
      }
      await this.#client.send(new PutObjectTaggingCommand({ ...target, Tagging: { TagSet: merged } }));
      return { tagged: true };
    } catch (error) {
      const { problem, detail } = classify(error);
      const status = (error as AwsErrorShape)?.$metadata?.httpStatusCode;
      if (problem === 'gone') return { tagged: false, reason: `the object no longer exists (${detail})` };
      if (problem === 'superseded') {
        return { tagged: false, reason: `the object was replaced by a newer upload (${detail})` };
      }
      if (status !== undefined && status >= 400 && status < 500 && status !== 429) {
        return {
          tagged: false,
          reason: `S3 refused the tags (${detail}); check the function's s3:GetObjectTagging / s3:PutObjectTagging permissions`,
        };
      }
      throw new ObjectSourceError('unavailable', object, `tagging the object failed (${detail})`, true, {
        cause: error,
      });
    }
  }
}
