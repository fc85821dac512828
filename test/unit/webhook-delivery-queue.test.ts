import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryTask } from '../../packages/bridge/src/webhooks/queue.ts';
import { SqsDeliveryQueue } from '../../packages/bridge/src/webhooks/sqs/queue.ts';

const sqsMock = mockClient(SQSClient);
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/webhooks';
const task = (eventId: string): DeliveryTask => ({
  kind: 'deliver',
  endpointId: 'ep-1',
  eventId,
  attempt: 1,
});

afterEach(() => sqsMock.reset());

describe('SqsDeliveryQueue.enqueue', () => {
  it('sends again only the tasks SQS failed, until it takes them', async () => {
    // prepare
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: '0', MessageId: 'm0', MD5OfMessageBody: '' }],
        Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
      })
      .resolves({ Successful: [{ Id: '1', MessageId: 'm1', MD5OfMessageBody: '' }] });
    const queue = new SqsDeliveryQueue({ sqs: new SQSClient({ region: 'us-east-1' }), queueUrl: QUEUE });

    // act
    await queue.enqueue([task('e0'), task('e1')]);

    // assess
    const sends = sqsMock
      .commandCalls(SendMessageBatchCommand)
      .map((call) => call.args[0].input.Entries?.map((entry) => entry.Id));
    expect(sends).toEqual([['0', '1'], ['1']]);
  });

  it('reports the tasks SQS still failed after four sends, naming the reason', async () => {
    // prepare
    sqsMock
      .on(SendMessageBatchCommand)
      .resolves({ Failed: [{ Id: '0', Code: 'InternalError', Message: 'try later', SenderFault: false }] });
    const queue = new SqsDeliveryQueue({ sqs: new SQSClient({ region: 'us-east-1' }), queueUrl: QUEUE });

    // act & assess
    await expect(queue.enqueue([task('e0')])).rejects.toMatchObject({
      code: 'WEBHOOK_QUEUE_FAILED',
      retryable: true,
      message: expect.stringContaining(
        'SQS did not accept 1 webhook task(s) after 4 attempts: InternalError: try later',
      ),
    });
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(4);
  });
});
