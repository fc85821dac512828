/**
 * S3's conditional writes, decided as S3 decides them, for the local stack's S3 endpoint: the
 * emulator behind it accepts every write whatever its `If-None-Match` / `If-Match` say, and the
 * bridge's state store relies on them to keep concurrent deliveries apart (packages/bridge/src/state/s3/store.ts).
 *
 * - PutObject (CopyObject too) and CompleteMultipartUpload with `If-None-Match: *`: 412
 *   PreconditionFailed when the key holds an object.
 * - PutObject, CompleteMultipartUpload and DeleteObject with `If-Match: <ETag>` (a list, or `*` for
 *   any object): 404 NoSuchKey when the key holds nothing, 412 PreconditionFailed when its ETag is
 *   another.
 * - `If-None-Match` with anything but `*`, or on a delete: 501 NotImplemented, as S3 answers.
 *
 * Pure decisions only; packages/local/src/conditional-endpoint.ts reads the current ETag and keeps the check
 * and the write of one key together.
 */
import { XMLBuilder } from 'fast-xml-parser';

/** The S3 operations that change one object, as far as conditions and ordering go. */
export type ObjectWriteOperation = 'PutObject' | 'CompleteMultipartUpload' | 'DeleteObject';

/** One request that writes or deletes one object. */
export interface ObjectWrite {
  operation: ObjectWriteOperation;
  bucket: string;
  /** Decoded. */
  key: string;
  /** The request's `If-None-Match`, when it has one. */
  ifNoneMatch?: string;
  /** The request's `If-Match`, when it has one. */
  ifMatch?: string;
}

/** An S3 error answer: status, code and message as S3 gives them, and further elements of `<Error>`. */
export interface S3ErrorAnswer {
  status: number;
  code: string;
  message: string;
  details: Record<string, string>;
}

const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

/**
 * The object write a request makes, or undefined for every other request (reads, bucket operations,
 * part uploads, SQS). Both path-style (`/bucket/key`) and virtual-hosted-style (`bucket.host/key`)
 * addresses are understood, as the emulator understands them.
 *
 * @example
 * ```ts
 * objectWriteOf({ method: 'PUT', url: '/state/watch/a.json', headers: { 'if-none-match': '*' } });
 * // { operation: 'PutObject', bucket: 'state', key: 'watch/a.json', ifNoneMatch: '*' }
 * ```
 */
export function objectWriteOf(request: {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}): ObjectWrite | undefined {
  const url = new URL(request.url, 'http://local');
  const hostname = (headerOf(request.headers, 'host') ?? '').split(':')[0] ?? '';
  let path = url.pathname;
  if (hostname.includes('.') && !IPV4.test(hostname)) {
    path = `/${hostname.slice(0, hostname.indexOf('.'))}${path}`;
  }
  const slash = path.indexOf('/', 1);
  if (slash < 0 || slash === path.length - 1) return undefined;
  const bucket = path.slice(1, slash);
  let key: string;
  try {
    key = decodeURIComponent(path.slice(slash + 1));
  } catch {
    // The emulator refuses a key it cannot decode; nothing is written, so nothing to order.
    return undefined;
  }
  const upload = url.searchParams.has('uploadId');
  let operation: ObjectWriteOperation | undefined;
  if (request.method === 'PUT' && !upload && !url.searchParams.has('partNumber')) operation = 'PutObject';
  else if (request.method === 'POST' && upload) operation = 'CompleteMultipartUpload';
  else if (request.method === 'DELETE' && !upload) operation = 'DeleteObject';
  if (!operation) return undefined;
  const ifNoneMatch = headerOf(request.headers, 'if-none-match');
  const ifMatch = headerOf(request.headers, 'if-match');
  return {
    operation,
    bucket,
    key,
    ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
    ...(ifMatch !== undefined ? { ifMatch } : {}),
  };
}

/** True when the write carries a condition that must be checked against the current object. */
export function isConditional(write: ObjectWrite): boolean {
  return write.ifNoneMatch !== undefined || write.ifMatch !== undefined;
}

/**
 * Why S3 would refuse the write, given the ETag the key holds now (undefined: no object), or
 * undefined when S3 would carry it out.
 *
 * @example
 * ```ts
 * refusalOf({ operation: 'PutObject', bucket: 'state', key: 'a.json', ifNoneMatch: '*' }, '"9b2c…"');
 * // { status: 412, code: 'PreconditionFailed', …, details: { Condition: 'If-None-Match' } }
 * ```
 */
export function refusalOf(write: ObjectWrite, currentEtag: string | undefined): S3ErrorAnswer | undefined {
  if (
    write.ifNoneMatch !== undefined &&
    (write.ifNoneMatch.trim() !== '*' || write.operation === 'DeleteObject')
  ) {
    return {
      status: 501,
      code: 'NotImplemented',
      message: 'A header you provided implies functionality that is not implemented',
      details: { Header: 'If-None-Match' },
    };
  }
  if (write.ifMatch !== undefined) {
    if (currentEtag === undefined) {
      return {
        status: 404,
        code: 'NoSuchKey',
        message: 'The specified key does not exist.',
        details: { Key: write.key },
      };
    }
    const wanted = write.ifMatch.split(',').map(bareEtag);
    if (!wanted.includes('*') && !wanted.includes(bareEtag(currentEtag))) {
      return preconditionFailed('If-Match');
    }
  }
  if (write.ifNoneMatch !== undefined && currentEtag !== undefined)
    return preconditionFailed('If-None-Match');
  return undefined;
}

const xml = new XMLBuilder({ format: true, suppressEmptyNode: true });

/**
 * The XML body S3 sends with an error, which the AWS SDKs turn into a named exception.
 *
 * @example
 * ```ts
 * s3ErrorXml(refusal, 'C3D13FE58DE4C810'); // '<?xml …?><Error><Code>PreconditionFailed</Code>…'
 * ```
 */
export function s3ErrorXml(answer: S3ErrorAnswer, requestId: string): string {
  const body = xml.build({
    Error: { Code: answer.code, Message: answer.message, ...answer.details, RequestId: requestId },
  }) as string;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}

function preconditionFailed(condition: string): S3ErrorAnswer {
  return {
    status: 412,
    code: 'PreconditionFailed',
    message: 'At least one of the pre-conditions you specified did not hold',
    details: { Condition: condition },
  };
}

/** An ETag without quotes or weak marker, so `"abc"`, `abc` and `W/"abc"` compare equal. */
function bareEtag(etag: string): string {
  return etag.trim().replace(/^(W\/)?"(.*)"$/, '$2');
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}
