/**
 * `StateStore` on an S3 bucket with S3 conditional writes.
 *
 * - create: PutObject with `If-None-Match: *`. 412 PreconditionFailed means the key exists; 409
 *   ConditionalRequestConflict (a concurrent conditional write in flight) is retried a few times.
 * - update: PutObject with `If-Match: <etag>`. 412, 409 and 404 all mean the version the caller read is
 *   gone: {@link StateConflictError}, and the caller re-reads.
 * - delete: DeleteObject, with `If-Match` when an ETag is given.
 *
 * S3 ETags of single-part uploads are the MD5 of the content, so rewriting identical content keeps the
 * ETag; that is harmless for compare-and-swap (the value really is unchanged).
 *
 * Lost answers. When the answer to a write is lost (connection reset, timeout, a 5xx after the write
 * took effect), the SDK sends the same request again, and S3 refuses the repeat: the object is no longer
 * absent (create) or no longer the version the If-Match names (update). Taken at its word, that 412
 * makes a sole writer report its own write as someone else's. So a conditional write refused after the
 * SDK sent it more than once (`$metadata.attempts > 1`) reads the key back (`#settle`):
 * when it holds exactly the body this writer sent (or, for a delete, nothing), the write is ours and
 * succeeded, with the stored ETag. Bodies are compared, not ETags, because an ETag is the MD5 of the body
 * only without SSE-KMS. A retried conditional delete is answered 404 by S3 (already gone), which is
 * success anyway; the read-back covers stores that answer 412 instead, as HTTP's If-Match rules say.
 *
 * Missing or forbidden. S3 answers a GET of a missing key 404 only to a caller allowed `s3:ListBucket`
 * on the bucket, and 403 otherwise. The deployment grants ListBucket only under the prefixes each role
 * reads (an `s3:prefix` condition, docs/security.md), and AWS does not document whether the implicit
 * check behind that 404 satisfies such a condition. So correctness does not rest on it: a GET answered
 * 403 AccessDenied asks `ListObjectsV2(Prefix=<that exact key>, MaxKeys=1)`, which carries `s3:prefix`
 * and is allowed by the condition. An empty listing (or one whose first key is not the key) means the
 * key is missing; a listing that shows the key means the GET really was forbidden, and that denial is
 * rethrown; a denied listing is an error naming the grant that is missing.
 *
 * What stays ambiguous: another writer that stored byte-identical content in between is taken for us.
 * That is harmless for this project's records. A record whose write grants something exclusive carries
 * its writer (a lease its random token, an ingest claim its delivery's owner and times), so another
 * writer's body never equals ours; for the others (checkpoints, watch entries) an identical body is an
 * identical state, the one this writer wanted stored. The opposite case is reported as a conflict: when
 * our earlier attempt took effect and another writer replaced it before the repeat, the key holds their
 * value, and re-reading (what the caller does on a conflict) is the right next step either way.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type PutObjectCommandOutput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { awsCallMayPass, retry } from '../../core/index.ts';
import { StateConflictError, StateStoreError } from '../errors.ts';
import { BaseStateStore, type CreateResult, type ListedState, type StateListOptions } from '../store.ts';

/**
 * The IAM actions each use of the store needs (the permission tables compose them; docs/deployment.md,
 * "Permissions"). Writes and deletes read the key back after a lost answer, so they need GetObject
 * too. `bucket` is granted on the bucket itself, under an `s3:prefix` condition naming the prefixes the
 * role lists and reads: `list` needs it, and a `get` answered 403 lists the exact key to tell a missing
 * key from a forbidden one (see the module comment).
 */
export const STATE_STORE_ACTIONS = Object.freeze({
  read: ['s3:GetObject'],
  write: ['s3:GetObject', 's3:PutObject'],
  delete: ['s3:GetObject', 's3:DeleteObject'],
  bucket: ['s3:ListBucket'],
} as const);

export interface S3StateStoreOptions {
  readonly client: S3Client;
  /** The state bucket (STATE_BUCKET). */
  readonly bucket: string;
  /** Extra attempts of a create answered 409 ConditionalRequestConflict. Default 3. */
  readonly createConflictRetries?: number;
  /** Keys per ListObjectsV2 page (1–1000). Default 1000. */
  readonly listPageSize?: number;
}

/** Waits between creates answered 409: up to 20 ms, then 40, 80, … (no cap; the retries are few). */
const CREATE_CONFLICT_RETRY = { baseDelayMs: 20, maxDelayMs: Number.POSITIVE_INFINITY } as const;

interface AwsError {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number; attempts?: number };
}

/** The S3 error name (or code) and HTTP status of a failed send. */
function awsErrorOf(error: unknown): { name: string; status: number | undefined } {
  const e = (error ?? {}) as AwsError;
  return { name: e.name ?? e.Code ?? 'Error', status: e.$metadata?.httpStatusCode };
}

function isPreconditionFailed(error: unknown): boolean {
  const { name, status } = awsErrorOf(error);
  return name === 'PreconditionFailed' || status === 412;
}

function isAccessDenied(error: unknown): boolean {
  const { name, status } = awsErrorOf(error);
  return name === 'AccessDenied' || status === 403;
}

function isConditionalConflict(error: unknown): boolean {
  const { name, status } = awsErrorOf(error);
  return name === 'ConditionalRequestConflict' || status === 409;
}

/** The object is missing; a missing bucket (also 404) is a configuration error, not an empty state. */
function isNotFound(error: unknown): boolean {
  const { name, status } = awsErrorOf(error);
  return name !== 'NoSuchBucket' && (name === 'NoSuchKey' || name === 'NotFound' || status === 404);
}

/** The SDK sent the request more than once, so an earlier attempt may have taken effect unseen. */
function wasRepeated(error: unknown): boolean {
  return ((error as AwsError | undefined)?.$metadata?.attempts ?? 1) > 1;
}

/**
 * @example
 * ```ts
 * const store = new S3StateStore({ client: s3Client(), bucket: requireSetting(config, 'STATE_BUCKET') });
 * const outcome = await store.create(checkpointKey('messaging-assets'), { lastId: 0 });
 * ```
 */
export class S3StateStore extends BaseStateStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #createConflictRetries: number;
  readonly #listPageSize: number;

  constructor(options: S3StateStoreOptions) {
    super();
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#createConflictRetries = options.createConflictRetries ?? 3;
    this.#listPageSize = options.listPageSize ?? 1000;
  }

  /** Wraps an unexpected S3 failure with the operation, the object and what to check. */
  #failure(operation: string, key: string, error: unknown): StateStoreError {
    const { name, status } = awsErrorOf(error);
    let hint = 'see the cause';
    if (name === 'NoSuchBucket') hint = `the bucket ${this.#bucket} does not exist; check STATE_BUCKET`;
    else if (name === 'AccessDenied' || status === 403) {
      hint = `check the function's IAM permissions on s3://${this.#bucket}/${key}`;
    } else if (status !== undefined && status >= 500) hint = 'S3 is unavailable; try again later';
    return new StateStoreError(
      key,
      `${operation} on s3://${this.#bucket}/${key} failed with ${name}${status ? ` (${status})` : ''}: ${hint}`,
      awsCallMayPass(error),
      { cause: error },
    );
  }

  /** The stored document as text, with its ETag; `undefined` when nothing is stored. */
  protected async readText(key: string): Promise<{ text: string; etag: string } | undefined> {
    let text: string;
    let etag: string | undefined;
    try {
      const response = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      etag = response.ETag;
      text = (await response.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (isNotFound(error)) return undefined;
      if (isAccessDenied(error) && (await this.#missingBehindDenial(key, error))) return undefined;
      throw this.#failure('GetObject', key, error);
    }
    if (!etag) throw this.#failure('GetObject', key, { name: 'MissingETag' });
    return { text, etag };
  }

  /**
   * After a GET of `key` answered 403: is the key missing (`true`), or was the GET really forbidden
   * (`false`)? Lists the bucket under the exact key, one key at most (see the module comment); a
   * denied listing throws, naming the grant to add.
   */
  async #missingBehindDenial(key: string, denial: unknown): Promise<boolean> {
    let page: ListObjectsV2CommandOutput;
    try {
      page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: key, MaxKeys: 1 }),
      );
    } catch (error) {
      if (!isAccessDenied(error)) throw this.#failure('ListObjectsV2', key, error);
      throw new StateStoreError(
        key,
        `GetObject on s3://${this.#bucket}/${key} was denied (403), and so was the ListObjectsV2 with Prefix=${key} that tells a missing key from a forbidden one: grant the function s3:ListBucket on the bucket ${this.#bucket} with a StringLike s3:prefix condition that covers this key (and s3:GetObject on the key)`,
        false,
        { cause: new AggregateError([denial, error], 'GetObject and ListObjectsV2 were both denied') },
      );
    }
    // Keys are listed in order, and no key under the prefix `key` sorts before `key` itself.
    return page.Contents?.[0]?.Key !== key;
  }

  /**
   * After S3 refused a conditional write: did an earlier attempt of it take effect unseen? Only asked
   * when the SDK sent the request more than once (`repeated`); then the key is read back, and the write
   * is ours when the key holds `intended`: the body sent (answered with the stored version's ETag), or
   * nothing for a delete (answered `true`). See the module comment for what stays ambiguous.
   */
  async #settle(key: string, intended: string, repeated: boolean): Promise<string | undefined>;
  async #settle(key: string, intended: null, repeated: boolean): Promise<boolean>;
  async #settle(
    key: string,
    intended: string | null,
    repeated: boolean,
  ): Promise<string | boolean | undefined> {
    if (!repeated) return intended === null ? false : undefined;
    const stored = await this.readText(key);
    if (intended === null) return stored === undefined;
    return stored?.text === intended ? stored.etag : undefined;
  }

  #put(
    key: string,
    body: string,
    condition: { IfNoneMatch: '*' } | { IfMatch: string },
  ): Promise<PutObjectCommandOutput> {
    return this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: body,
        ContentType: 'application/json',
        ...condition,
      }),
    );
  }

  protected async createText(key: string, body: string): Promise<CreateResult> {
    // A send refused 409 did not take effect, but an earlier send of this loop may have, unseen.
    let repeated = false;
    let conflict: StateConflictError | undefined;
    const createOnce = async (attempt: number): Promise<CreateResult> => {
      try {
        const response = await this.#put(key, body, { IfNoneMatch: '*' });
        if (!response.ETag) throw this.#failure('PutObject', key, { name: 'MissingETag' });
        return { created: true, etag: response.ETag };
      } catch (error) {
        if (error instanceof StateStoreError) throw error;
        repeated ||= wasRepeated(error);
        if (isPreconditionFailed(error)) {
          const etag = await this.#settle(key, body, repeated);
          return etag === undefined ? { created: false } : { created: true, etag };
        }
        if (!isConditionalConflict(error)) throw this.#failure('PutObject', key, error);
        const detail = `S3 kept answering 409 ConditionalRequestConflict to ${attempt} creates`;
        conflict = new StateConflictError(key, detail, { cause: error });
        throw conflict;
      }
    };
    return retry(createOnce, {
      ...CREATE_CONFLICT_RETRY,
      maxAttempts: this.#createConflictRetries + 1,
      retryable: (error) => error === conflict,
    });
  }

  protected async replaceText(key: string, body: string, etag: string): Promise<{ etag: string }> {
    let response: PutObjectCommandOutput;
    try {
      response = await this.#put(key, body, { IfMatch: etag });
    } catch (error) {
      const refused = isPreconditionFailed(error) || isConditionalConflict(error) || isNotFound(error);
      const ours = refused ? await this.#settle(key, body, wasRepeated(error)) : undefined;
      if (ours !== undefined) return { etag: ours };
      if (isPreconditionFailed(error))
        throw new StateConflictError(key, `its ETag is no longer ${etag}`, { cause: error });
      if (isConditionalConflict(error)) {
        throw new StateConflictError(key, 'a concurrent conditional write was in flight', { cause: error });
      }
      if (isNotFound(error)) throw new StateConflictError(key, 'it no longer exists', { cause: error });
      throw this.#failure('PutObject', key, error);
    }
    if (!response.ETag) throw this.#failure('PutObject', key, { name: 'MissingETag' });
    return { etag: response.ETag };
  }

  protected async removeKey(key: string, etag?: string): Promise<void> {
    try {
      await this.#client.send(
        new DeleteObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(etag === undefined ? {} : { IfMatch: etag }),
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return;
      if (isPreconditionFailed(error) || isConditionalConflict(error)) {
        if (await this.#settle(key, null, wasRepeated(error))) return;
        throw new StateConflictError(key, `it changed, so it was not deleted (expected ETag ${etag})`, {
          cause: error,
        });
      }
      throw this.#failure('DeleteObject', key, error);
    }
  }

  async *listEntries(prefix: string, options: StateListOptions = {}): AsyncIterable<ListedState> {
    // StartAfter on the first request only: the continuation token carries the position after it.
    const startAfter = options.startAfter;
    let continuationToken: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.#client.send(
          new ListObjectsV2Command({
            Bucket: this.#bucket,
            Prefix: prefix,
            MaxKeys: this.#listPageSize,
            ContinuationToken: continuationToken,
            ...(continuationToken === undefined && startAfter !== undefined
              ? { StartAfter: startAfter }
              : {}),
          }),
        );
      } catch (error) {
        throw this.#failure('ListObjectsV2', prefix || '(all keys)', error);
      }
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        if (!object.ETag) throw this.#failure('ListObjectsV2', object.Key, { name: 'MissingETag' });
        yield {
          key: object.Key,
          etag: object.ETag,
          ...(object.LastModified ? { lastModified: object.LastModified } : {}),
        };
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }
}
