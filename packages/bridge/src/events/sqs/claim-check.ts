/**
 * The S3 half of the claim-check (see `../claim-check.ts` for the format): stores a body too large
 * to send inline, and reads it back for a consumer.
 */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { encodeKeySegment, statePrefix } from '../../state/index.ts';
import {
  EXTENDED_PAYLOAD_SIZE_ATTRIBUTE,
  LEGACY_PAYLOAD_SIZE_ATTRIBUTE,
  type MessageAttributeLike,
  type PayloadS3Pointer,
  parsePayloadPointer,
} from '../claim-check.ts';
import { ClaimCheckError } from '../errors.ts';

/** `claim-check/`: event bodies too large for SQS, in the state bucket (docs/architecture.md, "The state bucket"). */
export const CLAIM_CHECK_PREFIX = statePrefix('claim-check', 'packages/bridge/src/events');

/**
 * `claim-check/<id>.json`: where an oversized event body is stored; a deterministic id makes retries
 * overwrite, not pile up.
 */
export function claimCheckKey(id: string): string {
  return `${CLAIM_CHECK_PREFIX}${encodeKeySegment(id)}.json`;
}

/**
 * The IAM actions on the claim-check objects (`claim-check/*` of the state bucket): publishers store,
 * consumers read (docs/events.md). Nothing deletes them; a lifecycle rule does.
 */
export const CLAIM_CHECK_ACTIONS = Object.freeze({
  store: ['s3:PutObject'],
  resolve: ['s3:GetObject'],
} as const);

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
