import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  QueueDoesNotExist,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/core/index.ts';
import { type CloudEvent, createEvent, EventPublishError } from '../../packages/bridge/src/events/index.ts';
import {
  SqsEventPublisher,
  type SqsEventPublisherOptions,
} from '../../packages/bridge/src/events/sqs/index.ts';
import { ingestFailed } from '../helpers/failed-events.ts';

const sqsMock = mockClient(SQSClient);
const s3Mock = mockClient(S3Client);
const sqs = new SQSClient({ region: 'us-east-1' });
const s3 = new S3Client({ region: 'us-east-1' });

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/pds-events';

afterEach(() => {
  sqsMock.reset();
  s3Mock.reset();
});

function assetEvent(id: number, rawXml = '<broken'): CloudEvent<'pds.messaging-asset.received'> {
  return createEvent({
    type: 'pds.messaging-asset.received',
    subject: `messaging-asset/${id}`,
    idParts: [id],
    time: '2026-11-20T09:15:00Z',
    data: { messagingAssetId: id, parseError: { name: 'XmlParseError', message: 'broken' }, rawXml },
  });
}

/** Records the delays instead of waiting. */
function recordingSleep(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

function publisher(options: Partial<SqsEventPublisherOptions> = {}): SqsEventPublisher {
  return new SqsEventPublisher({
    sqs,
    queueUrl: () => QUEUE,
    sleep: async () => {},
    ...options,
  });
}

/** Every entry accepted. */
function acceptAll(): void {
  sqsMock.on(SendMessageBatchCommand).callsFake((input: { Entries: SendMessageBatchRequestEntry[] }) => ({
    Successful: input.Entries.map((entry) => ({
      Id: entry.Id,
      MessageId: `msg-${entry.Id}`,
      MD5OfMessageBody: 'x',
    })),
    Failed: [],
  }));
}

const sentEntries = (): SendMessageBatchRequestEntry[][] =>
  sqsMock.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input.Entries ?? []);

const sentEventIds = (entries: SendMessageBatchRequestEntry[]): string[] =>
  entries.map((entry) => (JSON.parse(entry.MessageBody ?? '{}') as { id: string }).id);

async function publishError(sink: SqsEventPublisher, events: CloudEvent[]): Promise<EventPublishError> {
  try {
    await sink.publish(events);
  } catch (error) {
    if (error instanceof EventPublishError) return error;
    throw error;
  }
  throw new Error('expected an EventPublishError');
}

describe('SqsEventPublisher', () => {
  it('sends 25 events in 3 requests of at most 10, each with the event as body and type and id attributes', async () => {
    // prepare
    acceptAll();
    const events = Array.from({ length: 25 }, (_, index) => assetEvent(index + 1));

    // act
    await publisher().publish(events);

    // assess
    const batches = sentEntries();
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    for (const batch of batches) expect(new Set(batch.map((entry) => entry.Id)).size).toBe(batch.length);
    expect(batches.flat().map((entry) => JSON.parse(entry.MessageBody ?? ''))).toEqual(events);
    const first = batches[0]?.[0];
    expect(first?.MessageAttributes).toEqual({
      type: { DataType: 'String', StringValue: 'pds.messaging-asset.received' },
      id: { DataType: 'String', StringValue: events[0]?.id },
    });
    expect(first?.MessageGroupId).toBeUndefined();
    expect(sqsMock.commandCalls(SendMessageBatchCommand)[0]?.args[0].input.QueueUrl).toBe(QUEUE);
  });

  it('sends an entry again when SQS failed it without blaming the sender, then succeeds', async () => {
    // prepare
    const { delays, sleep } = recordingSleep();
    const events = [assetEvent(1), assetEvent(2), assetEvent(3)];
    sqsMock
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [
          { Id: 'm0', MessageId: 'a', MD5OfMessageBody: 'x' },
          { Id: 'm2', MessageId: 'c', MD5OfMessageBody: 'x' },
        ],
        Failed: [{ Id: 'm1', SenderFault: false, Code: 'InternalError', Message: 'try again' }],
      })
      .resolvesOnce({ Successful: [{ Id: 'm1', MessageId: 'b', MD5OfMessageBody: 'x' }], Failed: [] });

    // act
    await publisher({ sleep }).publish(events);

    // assess
    const batches = sentEntries();
    expect(batches).toHaveLength(2);
    expect(sentEventIds(batches[1] ?? [])).toEqual([events[1]?.id]);
    expect(delays).toEqual([100]);
  });

  it('does not resend an entry SQS refused as the sender’s fault, and names it in the error', async () => {
    // prepare
    const events = [assetEvent(1), assetEvent(2)];
    sqsMock.on(SendMessageBatchCommand).resolves({
      Successful: [{ Id: 'm0', MessageId: 'a', MD5OfMessageBody: 'x' }],
      Failed: [{ Id: 'm1', SenderFault: true, Code: 'InvalidParameterValue', Message: 'invalid characters' }],
    });

    // act
    const error = await publishError(publisher(), events);

    // assess
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(error.publishedIds).toEqual([events[0]?.id]);
    expect(error.failures).toEqual([
      {
        eventId: events[1]?.id,
        type: 'pds.messaging-asset.received',
        code: 'InvalidParameterValue',
        reason: 'invalid characters',
        senderFault: true,
        attempts: 1,
      },
    ]);
    expect(error.message).toContain(`${events[1]?.id} (pds.messaging-asset.received): InvalidParameterValue`);
    expect(error.message).toContain('checkpoint');
  });

  it('refuses an event no JSON text can hold as the sender’s fault, alone, and sends the others', async () => {
    // prepare: a value JSON cannot write (as a summary too large for any string is)
    acceptAll();
    const unwritable = assetEvent(2);
    (unwritable.data as unknown as { extra: bigint }).extra = 10n;

    // act
    const attempt = publisher().publish([assetEvent(1), unwritable, assetEvent(3)]);

    // assess
    const error = (await attempt.catch((caught: unknown) => caught)) as EventPublishError;
    expect(error).toBeInstanceOf(EventPublishError);
    expect(error.publishedIds.sort()).toEqual([assetEvent(1).id, assetEvent(3).id].sort());
    expect(error.failures).toEqual([
      expect.objectContaining({ eventId: unwritable.id, code: 'EVENT_NOT_SERIALISABLE', senderFault: true }),
    ]);
    expect(error.failures[0]?.requestFailed).toBeUndefined();
  });

  it('gives up after the bounded attempts, backing off, and names every event still failing', async () => {
    // prepare
    const { delays, sleep } = recordingSleep();
    const events = [assetEvent(1), assetEvent(2), assetEvent(3)];
    sqsMock.on(SendMessageBatchCommand).callsFake((input: { Entries: SendMessageBatchRequestEntry[] }) => ({
      Successful: input.Entries.filter((entry) => entry.Id === 'm0').map((entry) => ({
        Id: entry.Id,
        MessageId: 'a',
        MD5OfMessageBody: 'x',
      })),
      Failed: input.Entries.filter((entry) => entry.Id !== 'm0').map((entry) => ({
        Id: entry.Id,
        SenderFault: false,
        Code: 'ServiceUnavailable',
        Message: 'busy',
      })),
    }));

    // act
    const error = await publishError(publisher({ sleep, maxAttempts: 3 }), events);

    // assess
    expect(sqsMock.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
    expect(delays).toEqual([100, 200]);
    expect(error.failures.map((failure) => failure.eventId)).toEqual([events[1]?.id, events[2]?.id]);
    expect(error.failures.every((failure) => failure.attempts === 3 && !failure.senderFault)).toBe(true);
    expect(error.message).toContain(events[1]?.id);
    expect(error.message).toContain(events[2]?.id);
    expect(error.message).toContain('still failing after 3 attempts');
    expect(error.publishedIds).toEqual([events[0]?.id]);
  });

  it('caps the backoff at maxDelayMs', async () => {
    // prepare
    const { delays, sleep } = recordingSleep();
    sqsMock.on(SendMessageBatchCommand).resolves({
      Successful: [],
      Failed: [{ Id: 'm0', SenderFault: false, Code: 'InternalError' }],
    });

    // act
    await publishError(publisher({ sleep, maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 250 }), [
      assetEvent(1),
    ]);

    // assess
    expect(delays).toEqual([100, 200, 250, 250]);
  });

  it('reports every event of a request SQS rejected as a whole, and still sends the other requests', async () => {
    // prepare
    const events = Array.from({ length: 12 }, (_, index) => assetEvent(index + 1));
    sqsMock
      .on(SendMessageBatchCommand)
      .rejectsOnce(new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} }))
      .callsFake((input: { Entries: SendMessageBatchRequestEntry[] }) => ({
        Successful: input.Entries.map((entry) => ({ Id: entry.Id, MessageId: 'a', MD5OfMessageBody: 'x' })),
        Failed: [],
      }));

    // act
    const error = await publishError(publisher({ concurrency: 1 }), events);

    // assess
    expect(error.failures).toHaveLength(10);
    expect(error.failures[0]).toMatchObject({ code: 'QueueDoesNotExist', senderFault: true, attempts: 1 });
    expect(error.publishedIds).toEqual([events[10]?.id, events[11]?.id]);
  });

  it('sends each family to its own queue when one is configured', async () => {
    // prepare
    acceptAll();
    const resolver = (type: string) => (type.startsWith('pds.ingest.') ? `${QUEUE}-ingest` : QUEUE);

    // act
    await publisher({ queueUrl: resolver }).publish([assetEvent(1), ingestFailed('a.csv'), assetEvent(2)]);

    // assess
    const byQueue = Object.fromEntries(
      sqsMock
        .commandCalls(SendMessageBatchCommand)
        .map((call) => [call.args[0].input.QueueUrl, sentEventIds(call.args[0].input.Entries ?? []).length]),
    );
    expect(byQueue).toEqual({ [QUEUE]: 2, [`${QUEUE}-ingest`]: 1 });
  });

  it('sets MessageGroupId from the subject and MessageDeduplicationId from the id on FIFO queues', async () => {
    // prepare
    acceptAll();
    const fifo = `${QUEUE}.fifo`;
    const odd = ingestFailed('folder with spaces/ä.csv');

    // act
    await publisher({ queueUrl: () => fifo }).publish([assetEvent(1), odd]);

    // assess
    const [plain, hashed] = sentEntries().flat();
    expect(plain?.MessageGroupId).toBe('messaging-asset/1');
    expect(plain?.MessageDeduplicationId).toBe(assetEvent(1).id);
    expect(hashed?.MessageGroupId).toMatch(/^[0-9a-f]{64}$/);
    expect(hashed?.MessageDeduplicationId).toBe(odd.id);
  });

  it('sends an event given twice in one call once', async () => {
    // prepare
    acceptAll();

    // act
    await publisher().publish([assetEvent(1), assetEvent(1), assetEvent(2)]);

    // assess
    expect(sentEntries().flat()).toHaveLength(2);
  });

  it('keeps each request within 1 MiB', async () => {
    // prepare: messages of about 300 KiB, sent inline under a 1 MiB limit
    acceptAll();
    const events = Array.from({ length: 7 }, (_, index) => assetEvent(index + 1, 'x'.repeat(300 * 1024)));

    // act
    await publisher({ inlineLimitBytes: 1_048_576 }).publish(events);

    // assess
    const batches = sentEntries();
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 1]);
    for (const batch of batches) {
      const bytes = batch.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
      expect(bytes).toBeLessThanOrEqual(1_048_576);
    }
  });

  it('stores a body above the inline limit in the state bucket and sends the extended-client pointer', async () => {
    // prepare
    acceptAll();
    s3Mock.on(PutObjectCommand).resolves({});
    const big = assetEvent(1, 'é'.repeat(150 * 1024));
    const small = assetEvent(2);

    // act
    await publisher({ claimCheck: { s3, bucket: 'pds-state' } }).publish([big, small]);

    // assess
    const put = s3Mock.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(1);
    expect(put?.Bucket).toBe('pds-state');
    expect(put?.Key).toBe(`claim-check/${big.id}.json`);
    expect(JSON.parse(String(put?.Body))).toEqual(big);
    const [pointer, inline] = sentEntries().flat();
    expect(pointer?.MessageBody).toBe(
      `["software.amazon.payloadoffloading.PayloadS3Pointer",{"s3BucketName":"pds-state","s3Key":"claim-check/${big.id}.json"}]`,
    );
    expect(pointer?.MessageAttributes?.ExtendedPayloadSize).toEqual({
      DataType: 'Number',
      StringValue: String(Buffer.byteLength(JSON.stringify(big))),
    });
    expect(pointer?.MessageAttributes?.id?.StringValue).toBe(big.id);
    expect(JSON.parse(inline?.MessageBody ?? '')).toEqual(small);
  });

  it('fails an oversized event with a clear reason when no claim-check bucket is configured', async () => {
    // prepare
    acceptAll();
    const big = assetEvent(1, 'x'.repeat(300 * 1024));

    // act
    const error = await publishError(publisher(), [big, assetEvent(2)]);

    // assess
    expect(error.failures).toHaveLength(1);
    expect(error.failures[0]?.eventId).toBe(big.id);
    expect(error.failures[0]?.reason).toMatch(/exceeds the inline limit of 262144 bytes.*STATE_BUCKET/);
    expect(error.failures[0]?.senderFault).toBe(true);
    expect(sentEntries().flat()).toHaveLength(1);
  });

  it('fails the event whose body could not be stored, and sends the others', async () => {
    // prepare
    acceptAll();
    s3Mock.on(PutObjectCommand).rejects(new Error('Access Denied'));
    const big = assetEvent(1, 'x'.repeat(300 * 1024));

    // act
    const error = await publishError(publisher({ claimCheck: { s3, bucket: 'pds-state' } }), [
      big,
      assetEvent(2),
    ]);

    // assess
    expect(error.failures.map((failure) => [failure.eventId, failure.reason])).toEqual([
      [big.id, 'Access Denied'],
    ]);
    expect(error.publishedIds).toEqual([assetEvent(2).id]);
  });

  it('refuses an inline limit above what SQS accepts', () => {
    expect(() => publisher({ inlineLimitBytes: 2 * 1024 * 1024 })).toThrow(ConfigError);
    expect(() => publisher({ inlineLimitBytes: 2 * 1024 * 1024 })).toThrow(
      /inlineLimitBytes must be an integer from 1024 to 1048576/,
    );
  });

  it('sends nothing for no events', async () => {
    // act
    await publisher().publish([]);

    // assess
    expect(sqsMock.calls()).toHaveLength(0);
  });
});
