import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ReviewChunkFormatError, ReviewFanOutError } from '../../packages/bridge/src/polling/errors.ts';
import {
  chunkKeys,
  chunkLayout,
  MAX_CHUNK_BYTES,
  parseReviewKeyChunk,
} from '../../packages/bridge/src/polling/supplier-reviews/review-queue.ts';
import { SqsReviewKeyQueue } from '../../packages/bridge/src/polling/supplier-reviews/sqs/review-queue.ts';

const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'us-east-1' });
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/review-poll';
const NOW = new Date('2026-03-02T10:00:00Z');

afterEach(() => sqsMock.reset());

describe('chunkKeys', () => {
  it('splits keys into chunks of the given size, in order', () => {
    // act
    const chunks = chunkKeys(['a', 'b', 'c', 'd', 'e'], { chunkSize: 2, runId: 'r1', now: NOW });

    // assess
    expect(chunks.map((chunk) => chunk.keys)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(chunks[0]).toMatchObject({ version: 1, runId: 'r1', enqueuedAt: NOW.toISOString() });
  });

  it('keeps every chunk body below the byte limit, however long the keys', () => {
    // prepare
    const keys = Array.from({ length: 100 }, (_, index) => `${index}-${'x'.repeat(5000)}`);

    // act
    const chunks = chunkKeys(keys, { chunkSize: 100, runId: 'r1', now: NOW });

    // assess
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((chunk) => chunk.keys)).toEqual(keys);
    for (const chunk of chunks)
      expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
  });
});

describe('parseReviewKeyChunk', () => {
  it('reads what chunkKeys writes', () => {
    // prepare
    const [chunk] = chunkKeys(['04012345678901', 'Äpfel/1'], { runId: 'r1', now: NOW });

    // act / assess
    expect(parseReviewKeyChunk(JSON.stringify(chunk))).toEqual(chunk);
  });

  it('reads the progress layout a chunk was grouped by', () => {
    // prepare
    const [chunk] = chunkKeys(['a', 'b'], {
      runId: 'r1',
      now: NOW,
      shards: { levels: [6, 9], of: () => 0 },
    });

    // act
    const parsed = parseReviewKeyChunk(JSON.stringify(chunk));

    // assess
    expect(parsed.levels).toEqual([6, 9]);
    expect(chunkLayout(parsed)).toEqual({ levels: [6, 9] });
    expect(chunkLayout(parseReviewKeyChunk('{"version":1,"keys":["a"]}'))).toBeUndefined();
  });

  it('reads the sample worker event in events/', () => {
    // prepare
    const sample = JSON.parse(
      readFileSync(
        path.resolve(import.meta.dirname, '../../events/poll-supplier-reviews-worker.json'),
        'utf8',
      ),
    ) as { Records: Array<{ body: string }> };

    // act
    const chunk = parseReviewKeyChunk(sample.Records[0]?.body ?? '');

    // assess
    expect(chunk.keys).toHaveLength(3);
  });

  it.each([
    ['not JSON', 'not json'],
    ['another message', '{"hello":"world"}'],
    ['keys that are not strings', '{"version":1,"keys":[1,2]}'],
    ['levels that are not integers', '{"version":1,"keys":["a"],"levels":["6"]}'],
  ])('refuses %s with an error saying where the message goes', (_, body) => {
    expect(() => parseReviewKeyChunk(body)).toThrow(ReviewChunkFormatError);
    expect(() => parseReviewKeyChunk(body)).toThrow(/DLQ/);
  });
});

describe('SqsReviewKeyQueue', () => {
  it('sends ten chunks per request', async () => {
    // prepare
    sqsMock.on(SendMessageBatchCommand).callsFake((input) => ({
      Successful: input.Entries.map((entry: { Id: string }) => ({
        Id: entry.Id,
        MessageId: 'm',
        MD5OfMessageBody: '',
      })),
      Failed: [],
    }));
    const keys = Array.from({ length: 25 }, (_, index) => `K${index}`);

    // act
    await new SqsReviewKeyQueue({ sqs, queueUrl: QUEUE }).send(
      chunkKeys(keys, { chunkSize: 1, runId: 'r', now: NOW }),
    );

    // assess
    const calls = sqsMock.commandCalls(SendMessageBatchCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 5]);
    expect(calls[0]?.args[0].input.QueueUrl).toBe(QUEUE);
  });

  it('retries entries SQS failed on its side and raises for what still fails', async () => {
    // prepare: c1 fails once then succeeds, c2 is refused as the sender's fault
    let round = 0;
    sqsMock.on(SendMessageBatchCommand).callsFake((input) => {
      round++;
      const entries = input.Entries as Array<{ Id: string }>;
      return {
        Successful: entries
          .filter((entry) => entry.Id === 'c0' || (entry.Id === 'c1' && round > 1))
          .map((entry) => ({ Id: entry.Id, MessageId: 'm', MD5OfMessageBody: '' })),
        Failed: entries
          .filter((entry) => (entry.Id === 'c1' && round === 1) || entry.Id === 'c2')
          .map((entry) => ({
            Id: entry.Id,
            Code: entry.Id === 'c2' ? 'InvalidMessageContents' : 'InternalError',
            SenderFault: entry.Id === 'c2',
          })),
      };
    });

    // act
    const sending = new SqsReviewKeyQueue({ sqs, queueUrl: QUEUE }).send(
      chunkKeys(['a', 'b', 'c'], { chunkSize: 1, runId: 'r', now: NOW }),
    );

    // assess
    await expect(sending).rejects.toThrow(ReviewFanOutError);
    await expect(sending).rejects.toThrow(/1 of 3 review-poll chunks/);
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(2);
  });
});
