/**
 * Claim-check for event bodies too large to send inline, in the format of the AWS SQS extended
 * client libraries (amazon-sqs-java-extended-client-lib, amazon-sqs-python-extended-client and the
 * JavaScript ports), so their consumers read our messages unchanged:
 *
 * - the body is stored as an S3 object;
 * - the message body becomes `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"…","s3Key":"…"}]`;
 * - the message attribute `ExtendedPayloadSize` (Number) holds the original body size in bytes.
 *
 * On reading, the older forms are accepted too: the attribute `SQSLargePayloadSize`, the pointer
 * class `com.amazon.sqs.javamessaging.MessageS3Pointer`, and a bare `{"s3BucketName","s3Key"}` object.
 *
 * This file is the format only (no SDK import, so a consumer that merely recognises a pointer does
 * not load the AWS SDK); storing and reading the body in S3 is in `sqs/claim-check.ts`.
 */

import { parseJson } from '../core/index.ts';

export const PAYLOAD_POINTER_CLASS = 'software.amazon.payloadoffloading.PayloadS3Pointer';
export const LEGACY_PAYLOAD_POINTER_CLASS = 'com.amazon.sqs.javamessaging.MessageS3Pointer';
export const EXTENDED_PAYLOAD_SIZE_ATTRIBUTE = 'ExtendedPayloadSize';
export const LEGACY_PAYLOAD_SIZE_ATTRIBUTE = 'SQSLargePayloadSize';
/** Default inline limit, as the extended clients use: 256 KiB. */
export const DEFAULT_INLINE_LIMIT_BYTES = 262_144;
/** SQS's largest message: 1 MiB. */
export const MAX_INLINE_LIMIT_BYTES = 1_048_576;

export interface PayloadS3Pointer {
  s3BucketName: string;
  s3Key: string;
}

/**
 * A message attribute as the SDK returns it (`StringValue`, `DataType`) or as a Lambda SQS event
 * carries it (`stringValue`, `dataType`).
 */
export interface MessageAttributeLike {
  StringValue?: string | undefined;
  DataType?: string | undefined;
  stringValue?: string | undefined;
  dataType?: string | undefined;
}

/** The message body that points at a stored payload. */
export function formatPayloadPointer(pointer: PayloadS3Pointer): string {
  return JSON.stringify([
    PAYLOAD_POINTER_CLASS,
    { s3BucketName: pointer.s3BucketName, s3Key: pointer.s3Key },
  ]);
}

function isPointerObject(value: unknown): value is PayloadS3Pointer {
  if (typeof value !== 'object' || value === null) return false;
  const { s3BucketName, s3Key } = value as Record<string, unknown>;
  return typeof s3BucketName === 'string' && s3BucketName !== '' && typeof s3Key === 'string' && s3Key !== '';
}

/**
 * The pointer in `body`, or undefined when `body` is not a pointer in any of the extended-client forms.
 *
 * @example
 * parsePayloadPointer('["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"b","s3Key":"k"}]');
 * // { s3BucketName: 'b', s3Key: 'k' }
 */
export function parsePayloadPointer(body: string): PayloadS3Pointer | undefined {
  const trimmed = body.trimStart();
  if (!trimmed.startsWith('[') && !trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = parseJson(trimmed);
  } catch {
    return undefined;
  }
  if (Array.isArray(value)) {
    const [pointerClass, pointer] = value;
    const known = pointerClass === PAYLOAD_POINTER_CLASS || pointerClass === LEGACY_PAYLOAD_POINTER_CLASS;
    return known && value.length === 2 && isPointerObject(pointer)
      ? { s3BucketName: pointer.s3BucketName, s3Key: pointer.s3Key }
      : undefined;
  }
  return isPointerObject(value) && Object.keys(value).length === 2
    ? { s3BucketName: value.s3BucketName, s3Key: value.s3Key }
    : undefined;
}
