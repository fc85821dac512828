/**
 * A streaming `multipart/form-data` body with one file field, for `POST /api/v1/gatherings`.
 *
 * The file is never buffered: the body is preamble + the file's bytes as they arrive + epilogue, and
 * its exact length is known up front, so it is sent with `content-length` rather than chunked (some
 * upload endpoints refuse chunked bodies, and a declared length lets the server reject an oversize file
 * before reading it). A source that yields more or fewer bytes than declared fails the request with a
 * {@link PdsRequestBodyError} instead of sending a corrupt body.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { PdsInvalidRequestError, PdsRequestBodyError, type PdsRequestLine } from './errors.ts';
import type { PdsRequest } from './transport.ts';

/**
 * A stream of known size, e.g. an S3 object body with its ContentLength (or any async iterable of
 * bytes, such as a generator that looks at each chunk on its way). It can be sent once.
 */
export interface StreamUploadSource {
  stream: Readable | AsyncIterable<Uint8Array>;
  /** Exact number of bytes the stream yields. */
  size: number;
  fileName: string;
  contentType?: string;
}

/** A local file; re-opened for each attempt, so an upload from it can be retried. */
export interface FileUploadSource {
  filePath: string;
  /** Defaults to the file's base name. */
  fileName?: string;
  contentType?: string;
}

export type UploadSource = StreamUploadSource | FileUploadSource;

export interface MultipartBody {
  /** `multipart/form-data; boundary=...` */
  contentType: string;
  /** Exact byte length of everything {@link MultipartBody.open} yields. */
  contentLength: number;
  /** True when `open` may be called again (file sources); a stream source opens once. */
  replayable: boolean;
  /** A fresh stream of the whole body. */
  open(): Readable;
}

/** The form field the PDS reads the file from. */
export const FILE_FIELD = 'file';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const FILE_READ_CHUNK = 256 * 1024;

/**
 * Escapes a file name for the quoted `filename` parameter as the WHATWG HTML form encoding does
 * (`"` → %22, CR → %0D, LF → %0A), and goes one step further for the same reason: the other control
 * characters and `\` are percent-encoded too, because parsers disagree on them (`\` starts a quoted-pair
 * escape for RFC 2616-style parsers such as busboy, raw control characters make them reject the part).
 *
 * @example
 * ```ts
 * escapeFileName('say "hi".csv'); // 'say %22hi%22.csv'
 * ```
 */
export function escapeFileName(fileName: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped here
  return fileName.replace(/[\u0000-\u001f\u007f"\\]/g, (char) => {
    return `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
  });
}

/**
 * Builds the multipart body for an upload source: stats a file for its size, checks names and sizes,
 * picks a random boundary.
 *
 * @throws PdsRequestBodyError when the source is unusable (empty name, bad size, content type with a
 * line break, file not readable)
 * @example
 * ```ts
 * const body = await createMultipartBody({ filePath: '/tmp/items.csv', contentType: 'text/csv' });
 * await transport.request({ method: 'POST', path: '/api/v1/gatherings', body: () => body.open(),
 *   headers: { 'content-type': body.contentType, 'content-length': String(body.contentLength) }, expect: 'json' });
 * ```
 */
export async function createMultipartBody(source: UploadSource): Promise<MultipartBody> {
  const resolved = 'filePath' in source ? await fileSource(source) : streamSource(source);
  const contentType = resolved.contentType ?? DEFAULT_CONTENT_TYPE;
  if (resolved.fileName === '') {
    throw new PdsRequestBodyError('the upload needs a non-empty fileName; the PDS keys entries by it');
  }
  if (/[\r\n\0]/.test(contentType)) {
    throw new PdsRequestBodyError(
      'the upload contentType contains a line break or NUL; pass a plain media type',
    );
  }
  const boundary = `----pds-bridge-${randomBytes(16).toString('hex')}`;
  const preamble = Buffer.from(
    `--${boundary}\r\n` +
      `Content-Disposition: form-data; name="${FILE_FIELD}"; filename="${escapeFileName(resolved.fileName)}"\r\n` +
      `Content-Type: ${contentType}\r\n` +
      '\r\n',
    'utf8',
  );
  const epilogue = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
  const { size, fileName } = resolved;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: preamble.length + size + epilogue.length,
    replayable: resolved.replayable,
    open: () =>
      Readable.from(framed(preamble, checkedLength(resolved.open(), size, fileName), epilogue), {
        objectMode: false,
      }),
  };
}

interface ResolvedSource {
  fileName: string;
  contentType: string | undefined;
  size: number;
  replayable: boolean;
  open(): Readable | AsyncIterable<Uint8Array>;
}

async function fileSource(source: FileUploadSource): Promise<ResolvedSource> {
  let size: number;
  try {
    const info = await stat(source.filePath);
    if (!info.isFile()) throw new Error('not a regular file');
    size = info.size;
  } catch (error) {
    throw new PdsRequestBodyError(
      `cannot upload ${source.filePath}: ${(error as Error).message}; pass a readable regular file`,
      { cause: error },
    );
  }
  return {
    fileName: source.fileName ?? basename(source.filePath),
    contentType: source.contentType,
    size,
    replayable: true,
    // Larger reads than the 64 KiB default: fewer chunks through the framing generators, same flat memory.
    open: () => createReadStream(source.filePath, { highWaterMark: FILE_READ_CHUNK }),
  };
}

function streamSource(source: StreamUploadSource): ResolvedSource {
  if (!Number.isSafeInteger(source.size) || source.size < 0) {
    throw new PdsRequestBodyError(
      `the upload size must be a non-negative integer number of bytes, got ${source.size}`,
    );
  }
  let opened = false;
  return {
    fileName: source.fileName,
    contentType: source.contentType,
    size: source.size,
    replayable: false,
    open: () => {
      if (opened) {
        throw new PdsRequestBodyError(
          'the upload stream was already sent once and cannot be replayed; upload from a file path to allow retries',
        );
      }
      opened = true;
      return source.stream;
    },
  };
}

async function* framed(
  preamble: Buffer,
  file: AsyncIterable<Buffer>,
  epilogue: Buffer,
): AsyncGenerator<Buffer> {
  yield preamble;
  yield* file;
  yield epilogue;
}

/** A chunk as a Buffer: a view of the same bytes (a copy only of a string, which a stream with an encoding yields). */
function asBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk);
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/** Yields the source's bytes, failing as soon as they exceed `size` or end short of it. */
async function* checkedLength(
  stream: Readable | AsyncIterable<Uint8Array>,
  size: number,
  fileName: string,
): AsyncGenerator<Buffer> {
  let seen = 0;
  try {
    for await (const chunk of stream) {
      const buffer = asBuffer(chunk as Uint8Array | string);
      seen += buffer.length;
      if (seen > size) {
        throw new PdsRequestBodyError(
          `the upload source for '${fileName}' yielded more than its declared ${size} bytes; declare the exact size`,
        );
      }
      yield buffer;
    }
  } catch (error) {
    if (error instanceof PdsRequestBodyError) throw error;
    throw new PdsRequestBodyError(
      `reading the upload source for '${fileName}' failed: ${(error as Error).message}`,
      { cause: error, sourceFailed: true },
    );
  } finally {
    // An iterable is closed by the loop above; a stream is destroyed even when it was not read to its end.
    if (stream instanceof Readable && !stream.destroyed) stream.destroy();
  }
  if (seen < size) {
    throw new PdsRequestBodyError(
      `the upload source for '${fileName}' ended after ${seen} of its declared ${size} bytes; declare the exact size`,
    );
  }
}

/**
 * The multipart request of an upload (form field `file`), with the source opened afresh per attempt when
 * it can be (a file path) and never retried when it cannot (a stream).
 */
export async function multipartRequest(
  source: UploadSource,
  line: PdsRequestLine,
): Promise<Pick<PdsRequest, 'headers' | 'body'>> {
  let multipart: MultipartBody;
  try {
    multipart = await createMultipartBody(source);
  } catch (error) {
    if (!(error instanceof PdsRequestBodyError)) throw error;
    throw new PdsInvalidRequestError(error.message, line, { cause: error });
  }
  return {
    headers: { 'content-type': multipart.contentType, 'content-length': String(multipart.contentLength) },
    body: multipart.replayable ? () => multipart.open() : multipart.open(),
  };
}
