/**
 * The S3 adapter of the reader's {@link PayloadFetcher} port: GetObject on the pointer's bucket and
 * key, as the AWS SQS extended clients do.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { OptionError } from '../../../bridge/src/core/index.ts';
import { ConsumerError } from '../errors.ts';
import { type PayloadFetcher, tooLarge } from '../reader.ts';

interface AwsError {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Reads claim-checked payloads with `s3`, at most `maxBytes` of each (the reader's
 * `claimCheck.maxBytes`; a larger object fails with `claim-check-invalid`, read no further). A missing object fails with `claim-check-missing` (not
 * retryable: it will not come back); any other failure with `claim-check-unreadable`, retryable
 * unless S3 refused access or the bucket does not exist.
 *
 * @example
 * ```ts
 * const reader = createEventReader({ payloads: s3PayloadFetcher(new S3Client({})) });
 * ```
 */
export function s3PayloadFetcher(s3: S3Client): PayloadFetcher {
  if (typeof s3?.send !== 'function') {
    throw new OptionError(
      's3',
      's3PayloadFetcher needs an S3Client from @aws-sdk/client-s3, e.g. new S3Client({})',
    );
  }
  return async (pointer, messageId, { maxBytes }) => {
    const location = `s3://${pointer.s3BucketName}/${pointer.s3Key}`;
    try {
      const object = await s3.send(
        new GetObjectCommand({ Bucket: pointer.s3BucketName, Key: pointer.s3Key }),
      );
      const body = object.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
      if (body === undefined) return '';
      // Refused before reading when S3 says how large it is, and while reading when it does not.
      if ((object.ContentLength ?? 0) > maxBytes) {
        body.destroy?.();
        throw tooLarge(location, maxBytes, messageId);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of body) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          body.destroy?.();
          throw tooLarge(location, maxBytes, messageId);
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch (error) {
      if (error instanceof ConsumerError) throw error;
      const { name, $metadata } = (error ?? {}) as AwsError;
      if (name === 'NoSuchKey' || (name !== 'NoSuchBucket' && $metadata?.httpStatusCode === 404)) {
        throw new ConsumerError(
          'claim-check-missing',
          `the claim-checked event body ${location} does not exist. It may have expired (a lifecycle rule shorter than the queue's retention) or been deleted; the event cannot be recovered from this message.`,
          { messageId, cause: error },
        );
      }
      const status = $metadata?.httpStatusCode;
      // Refused access or a missing bucket needs a change of permissions or configuration first.
      const refused = name === 'AccessDenied' || name === 'NoSuchBucket' || status === 403;
      throw new ConsumerError(
        'claim-check-unreadable',
        `could not read the claim-checked event body ${location}: ${name ?? 'Error'}${status ? ` (${status})` : ''}. ${refused ? 'Check that the bucket exists and that this consumer may s3:GetObject on it (and kms:Decrypt on its key, if any)' : 'S3 failed or could not be reached; the message goes back to the queue and is read on a later delivery'}.`,
        { messageId, cause: error, retryable: !refused },
      );
    }
  };
}
