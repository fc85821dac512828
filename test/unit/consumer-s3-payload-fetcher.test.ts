/**
 * How s3PayloadFetcher classifies S3's refusals: the answers a local emulator cannot give (access
 * denied, a 5xx) through aws-sdk-client-mock; a real missing object is read from fauxqs in
 * test/integration/consumer-s3.test.ts.
 */

import { Readable } from 'node:stream';
import { GetObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ConsumerError, s3PayloadFetcher } from '../../packages/consumer/src/index.ts';

const s3Mock = mockClient(S3Client);
const pointer = { s3BucketName: 'bridge-state', s3Key: 'claim-check/e-1.json' };

function s3Error(name: string, status: number): S3ServiceException {
  return new S3ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
}

afterEach(() => s3Mock.reset());

describe('s3PayloadFetcher', () => {
  it.each([
    ['access is denied', s3Error('AccessDenied', 403), false, /this consumer may s3:GetObject/],
    ['the bucket does not exist', s3Error('NoSuchBucket', 404), false, /this consumer may s3:GetObject/],
    ['S3 fails', s3Error('InternalError', 500), true, /goes back to the queue/],
  ])(
    'reports claim-check-unreadable when %s, retryable only when S3 could not answer',
    async (_case, error, retryable, message) => {
      // prepare
      s3Mock.on(GetObjectCommand).rejects(error);
      const fetch = s3PayloadFetcher(new S3Client({ region: 'us-east-1' }));

      // act
      const failure = await fetch(pointer, 'm-1', { maxBytes: 1024 }).catch((caught: unknown) => caught);

      // assess
      expect(failure).toBeInstanceOf(ConsumerError);
      expect(failure).toMatchObject({ code: 'claim-check-unreadable', retryable, messageId: 'm-1' });
      expect((failure as Error).message).toMatch(/s3:\/\/bridge-state\/claim-check\/e-1\.json/);
      expect((failure as Error).message).toMatch(message);
    },
  );

  it.each([
    ['S3 says its size', true],
    ['S3 does not say its size', false],
  ])(
    'reads at most maxBytes and refuses a larger object with claim-check-invalid, quoting none of it, when %s',
    async (_case, withLength) => {
      // prepare: a confidential file where an event should be
      const secret = 'employee,salary\nalice,123456\n';
      const answer = (text: string) => ({
        // The SDK's stream in Node is a Readable; the fetcher only iterates it.
        Body: Readable.from([Buffer.from(text)]) as never,
        ...(withLength ? { ContentLength: Buffer.byteLength(text) } : {}),
      });
      const fetch = s3PayloadFetcher(new S3Client({ region: 'us-east-1' }));

      // act
      s3Mock.on(GetObjectCommand).resolves(answer(secret.slice(0, 20)));
      const atLimit = await fetch(pointer, 'm-1', { maxBytes: 20 });
      s3Mock.on(GetObjectCommand).resolves(answer(secret.slice(0, 21)));
      const failure = await fetch(pointer, 'm-1', { maxBytes: 20 }).catch((caught: unknown) => caught);

      // assess
      expect(atLimit).toBe(secret.slice(0, 20));
      expect(failure).toMatchObject({ code: 'claim-check-invalid', messageId: 'm-1' });
      expect((failure as Error).message).toMatch(/larger than claimCheck\.maxBytes \(20 bytes\)/);
      expect((failure as Error).message).not.toMatch(/employee|alice/);
    },
  );

  it('refuses something that is not an S3 client, up front', () => {
    expect(() => s3PayloadFetcher({} as S3Client)).toThrow(/needs an S3Client from @aws-sdk\/client-s3/);
  });
});
