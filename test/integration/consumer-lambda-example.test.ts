/**
 * examples/consumer-ts/lambda-handler.ts, the Lambda consumer of the docs, on moto (S3 conditional
 * writes for its deduplication): events the bridge's publisher sent, a claim-checked one among them,
 * plus records that are not readable events. Powertools reports exactly the bad records as batch item
 * failures; the good ones are processed and recorded.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import {
  consumerTestEvents,
  lambdaRecordOf,
  publishAsBridge,
  receiveMessages,
} from '../helpers/consumer-events.ts';
import { setEnv } from '../helpers/env.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { lambdaContext, sqsEvent, sqsRecord } from '../helpers/s3-events.ts';

describeOnMoto('the Lambda consumer example with Powertools batch processing', () => {
  let aws: MotoServer;
  let restoreEnv: () => void;

  beforeAll(async () => {
    aws = await startMoto({ buckets: ['bridge-state', 'consumer-state'], queues: ['events'] });
    restoreEnv = setEnv({ ...aws.env, DEDUP_BUCKET: 'consumer-state', STATE_BUCKET: 'bridge-state' });
  });

  afterAll(async () => {
    restoreEnv?.();
    await aws?.close();
  });

  it('fails only the records that are not readable events, and processes the others once', async () => {
    // prepare
    const { small, large } = consumerTestEvents();
    const queueUrl = aws.queueUrls.events ?? '';
    await publishAsBridge(aws, queueUrl, 'bridge-state', [...small, large]);
    const published = await receiveMessages(aws, queueUrl, 3);
    const good = published.map((message) => lambdaRecordOf(message, aws.queueArns.events ?? ''));
    expect(good.some((record) => record.messageAttributes.ExtendedPayloadSize !== undefined)).toBe(true);
    const notJson = sqsRecord('not json at all');
    const [first] = small;
    if (!first) throw new Error('no small event');
    const invalid = sqsRecord(
      JSON.stringify({ ...first, id: 'bad-data', data: { ...first.data, size: -1 } }),
    );
    const { handler } = await import('../../examples/consumer-ts/lambda-handler.ts');

    const logged: string[] = [];
    // The example logs each event it handles (warnings go to stderr).
    const capture = (chunk: unknown) => {
      logged.push(String(chunk));
      return true;
    };
    const writes = [
      vi.spyOn(process.stdout, 'write').mockImplementation(capture),
      vi.spyOn(process.stderr, 'write').mockImplementation(capture),
    ];

    // act
    const response = await handler(
      sqsEvent([good[0], notJson, good[1], invalid, good[2]].filter((r) => r !== undefined)),
      lambdaContext(),
    );
    const again = await handler(sqsEvent(good), lambdaContext());
    for (const write of writes) write.mockRestore();

    // assess
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      [notJson.messageId, invalid.messageId].sort(),
    );
    expect(again.batchItemFailures).toEqual([]);
    const handled = logged.flatMap((line) => line.split('\n')).filter((line) => line.includes('"id"'));
    expect(handled.map((line) => (JSON.parse(line) as { id: string }).id).sort()).toEqual(
      [...small, large].map((event) => event.id).sort(),
    );
    for (const event of [...small, large]) {
      const record = await aws.s3.send(
        new GetObjectCommand({ Bucket: 'consumer-state', Key: `pds-events/processed/${event.id}.json` }),
      );
      expect(JSON.parse((await record.Body?.transformToString()) ?? '')).toMatchObject({ status: 'done' });
    }
  });
});
