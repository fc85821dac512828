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
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ClaimCheckError } from './errors.ts';

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
    value = JSON.parse(trimmed);
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

/** Stores `body` under `key` and returns the pointer to put in the message. */
export async function storePayload(
  s3: S3Client,
  bucket: string,
  key: string,
  body: string,
): Promise<PayloadS3Pointer> {
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: 'application/json; charset=utf-8',
    }),
  );
  return { s3BucketName: bucket, s3Key: key };
}

function attributeValue(attribute: MessageAttributeLike | undefined): string | undefined {
  return attribute?.StringValue ?? attribute?.stringValue;
}

/**
 * The event body of a received message: the body itself, or, when the message is a claim-check
 * pointer, the stored body read from S3. Throws {@link ClaimCheckError} when a message flagged as
 * offloaded carries no valid pointer, or when the object cannot be read.
 *
 * @example
 * for (const message of received.Messages ?? []) {
 *   const event = JSON.parse(await resolveEventBody(message.Body ?? '', message.MessageAttributes, s3));
 * }
 */
export async function resolveEventBody(
  body: string,
  attributes: Record<string, MessageAttributeLike> | undefined,
  s3: S3Client,
): Promise<string> {
  const flagged =
    attributeValue(attributes?.[EXTENDED_PAYLOAD_SIZE_ATTRIBUTE]) ??
    attributeValue(attributes?.[LEGACY_PAYLOAD_SIZE_ATTRIBUTE]);
  const pointer = parsePayloadPointer(body);
  if (pointer === undefined) {
    if (flagged === undefined) return body;
    throw new ClaimCheckError(
      `Message carries ${EXTENDED_PAYLOAD_SIZE_ATTRIBUTE}=${flagged} but its body is not an S3 pointer; it was not written by an SQS extended client. Inspect the message in the queue or its DLQ.`,
    );
  }
  let stored: string | undefined;
  try {
    const object = await s3.send(new GetObjectCommand({ Bucket: pointer.s3BucketName, Key: pointer.s3Key }));
    stored = await object.Body?.transformToString('utf-8');
  } catch (error) {
    throw new ClaimCheckError(
      `Could not read the claim-checked event body s3://${pointer.s3BucketName}/${pointer.s3Key}: ${error instanceof Error ? error.message : String(error)}. Check that the object exists (lifecycle rules may have expired it) and that this consumer may read the bucket.`,
      { cause: error },
    );
  }
  if (stored === undefined) {
    throw new ClaimCheckError(
      `The claim-checked event body s3://${pointer.s3BucketName}/${pointer.s3Key} is empty.`,
    );
  }
  return stored;
}
