/**
 * Uploads a local file into a bucket: one PutObject for small files, a multipart upload for large
 * ones (the emulator refuses single PUTs above ~11 MiB, and S3 above 5 GiB). The file is read one
 * part at a time, so memory stays at one part whatever the file's size.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { uploadContentType } from '@pds-bridge/bridge/ingest/upload-name.ts';

/** Files above this size go up in parts. */
export const MULTIPART_THRESHOLD_BYTES = 8 * 1024 * 1024;
/** Size of each part but the last (S3's minimum is 5 MiB). */
export const PART_SIZE_BYTES = 8 * 1024 * 1024;

export interface UploadFileInput {
  s3: S3Client;
  bucket: string;
  /** The local file. */
  path: string;
  /** Object key; default the file's name. */
  key?: string;
  /** Override the part size (at least 5 MiB, except in tests). */
  partSizeBytes?: number;
  multipartThresholdBytes?: number;
}

export interface UploadedFile {
  bucket: string;
  key: string;
  size: number;
  /** 0 for a single PutObject. */
  parts: number;
  etag: string;
}

/**
 * Uploads one file.
 *
 * @example
 * ```ts
 * const uploaded = await uploadFile({ s3, bucket: 'pds-bridge-local-drop', path: 'items.csv' });
 * uploaded.key; // 'items.csv'
 * ```
 */
export async function uploadFile(input: UploadFileInput): Promise<UploadedFile> {
  const key = input.key ?? basename(input.path);
  const { size } = await stat(input.path);
  const contentType = uploadContentType(key, undefined);
  const threshold = input.multipartThresholdBytes ?? MULTIPART_THRESHOLD_BYTES;
  const file = await open(input.path, 'r');
  try {
    if (size <= threshold) {
      const body = await file.readFile();
      const put = await input.s3.send(
        new PutObjectCommand({ Bucket: input.bucket, Key: key, Body: body, ContentType: contentType }),
      );
      return { bucket: input.bucket, key, size, parts: 0, etag: unquote(put.ETag) };
    }
    return await uploadInParts(input, file, key, size, contentType);
  } finally {
    await file.close();
  }
}

async function uploadInParts(
  input: UploadFileInput,
  file: Awaited<ReturnType<typeof open>>,
  key: string,
  size: number,
  contentType: string,
): Promise<UploadedFile> {
  const partSize = input.partSizeBytes ?? PART_SIZE_BYTES;
  const created = await input.s3.send(
    new CreateMultipartUploadCommand({ Bucket: input.bucket, Key: key, ContentType: contentType }),
  );
  const uploadId = created.UploadId;
  if (!uploadId) throw new Error(`S3 returned no UploadId for s3://${input.bucket}/${key}`);
  const parts: CompletedPart[] = [];
  try {
    for (let offset = 0, partNumber = 1; offset < size; offset += partSize, partNumber += 1) {
      const length = Math.min(partSize, size - offset);
      const body = Buffer.allocUnsafe(length);
      const { bytesRead } = await file.read(body, 0, length, offset);
      if (bytesRead !== length) {
        throw new Error(`${input.path} changed while it was uploaded (read ${bytesRead} of ${length} bytes)`);
      }
      const part = await input.s3.send(
        new UploadPartCommand({
          Bucket: input.bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: body,
        }),
      );
      parts.push({ PartNumber: partNumber, ETag: part.ETag });
    }
    const completed = await input.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: input.bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    return { bucket: input.bucket, key, size, parts: parts.length, etag: unquote(completed.ETag) };
  } catch (error) {
    // An abandoned upload keeps its parts; nothing else will ever complete it.
    await input.s3
      .send(new AbortMultipartUploadCommand({ Bucket: input.bucket, Key: key, UploadId: uploadId }))
      .catch(() => undefined);
    throw error;
  }
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/^"(.*)"$/, '$1');
}
