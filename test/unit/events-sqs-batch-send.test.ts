import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMessageBatch, sqsEntryFate } from '../../packages/bridge/src/events/sqs/batch-send.ts';

const sqsMock = mockClient(SQSClient);
const sqs = new SQSClient({ region: 'us-east-1' });
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/any';

afterEach(() => sqsMock.reset());

const items = (...ids: string[]) => ids.map((id) => ({ id, body: `body of ${id}` }));
const taken = (id: string) => ({ Id: id, MessageId: `m-${id}`, MD5OfMessageBody: '' });

/** Records the waits instead of waiting. */
function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

describe('sqsEntryFate', () => {
  it('takes an entry only when SQS lists it as successful and not as failed', () => {
    expect(sqsEntryFate(undefined, true)).toBe('sent');
    expect(sqsEntryFate({ Id: 'a', Code: 'InternalError', SenderFault: false }, true)).toBe('retry');
    expect(sqsEntryFate(undefined, false)).toBe('retry');
    expect(sqsEntryFate({ Id: 'a', Code: 'InvalidMessageContents', SenderFault: true }, false)).toBe(
      'refused',
    );
  });
});

describe('sendMessageBatch', () => {
  it('sends again, alone, the entries SQS failed on its side, and never the ones it refused', async () => {
    // prepare: b fails once on SQS's side, c is refused as the sender's fault
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [taken('a')],
        Failed: [
          { Id: 'b', Code: 'InternalError', SenderFault: false },
          { Id: 'c', Code: 'InvalidMessageContents', Message: 'bad', SenderFault: true },
        ],
      })
      .resolves({ Successful: [taken('b')] });
    const { sleep, delays } = recordingSleep();

    // act
    const result = await sendMessageBatch(items('a', 'b', 'c'), {
      sqs,
      queueUrl: QUEUE,
      entry: (item) => ({ MessageBody: item.body }),
      policy: { maxAttempts: 3, baseDelayMs: 100 },
      run: { sleep },
    });

    // assess
    const sends = sqsMock.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input);
    expect(sends.map((input) => input.Entries?.map((entry) => [entry.Id, entry.MessageBody]))).toEqual([
      [
        ['a', 'body of a'],
        ['b', 'body of b'],
        ['c', 'body of c'],
      ],
      [['b', 'body of b']],
    ]);
    expect(sends.every((input) => input.QueueUrl === QUEUE)).toBe(true);
    expect(result.refused).toEqual([
      {
        item: items('c')[0],
        failure: { Id: 'c', Code: 'InvalidMessageContents', Message: 'bad', SenderFault: true },
      },
    ]);
    expect(result.left).toEqual([]);
    expect(result.attempts).toBe(2);
    expect(delays).toEqual([100]);
  });

  it('hands back what is still failing with what SQS said of it last, after doubling waits without jitter', async () => {
    // prepare: a fails every time; b is named in neither list
    sqsMock.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: 'a', Code: 'InternalError', Message: 'try later', SenderFault: false }],
    });
    const { sleep, delays } = recordingSleep();

    // act
    const result = await sendMessageBatch(items('a', 'b'), {
      sqs,
      queueUrl: QUEUE,
      entry: (item) => ({ MessageBody: item.body }),
      policy: { maxAttempts: 4, baseDelayMs: 200 },
      run: { sleep, random: () => 0.5 },
    });

    // assess
    expect(result.left).toEqual([
      {
        item: items('a')[0],
        failure: { Id: 'a', Code: 'InternalError', Message: 'try later', SenderFault: false },
      },
      { item: items('b')[0], failure: undefined },
    ]);
    expect(result.attempts).toBe(4);
    expect(delays).toEqual([200, 400, 800]);
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(4);
  });

  it("follows the caller's fate: a sender's fault sent again, an entry SQS did not name taken", async () => {
    // prepare
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: 'a', Code: 'InvalidMessageContents', SenderFault: true }] })
      .resolves({});

    // act
    const result = await sendMessageBatch(items('a', 'b'), {
      sqs,
      queueUrl: QUEUE,
      entry: (item) => ({ MessageBody: item.body }),
      policy: { maxAttempts: 3, baseDelayMs: 0 },
      fate: (failure) => (failure ? 'retry' : 'sent'),
    });

    // assess
    const sends = sqsMock.commandCalls(SendMessageBatchCommand);
    expect(sends.map((call) => call.args[0].input.Entries?.map((entry) => entry.Id))).toEqual([
      ['a', 'b'],
      ['a'],
    ]);
    expect(result).toEqual({ refused: [], left: [], attempts: 2 });
  });

  it('ends the send as it came when a request throws', async () => {
    // prepare
    sqsMock.on(SendMessageBatchCommand).rejects(new Error('AccessDenied'));

    // act & assess
    await expect(
      sendMessageBatch(items('a'), {
        sqs,
        queueUrl: QUEUE,
        entry: (item) => ({ MessageBody: item.body }),
        policy: { maxAttempts: 3, baseDelayMs: 0 },
      }),
    ).rejects.toThrow('AccessDenied');
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
  });
});
