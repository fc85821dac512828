/**
 * The consumer kit's deduplication on S3 conditional writes, against moto (fauxqs ignores
 * If-None-Match, so two consumers would both think they were first).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { expect, it } from 'vitest';
import { Deduplicator, s3DedupStore } from '../../packages/consumer/src/index.ts';
import { describeDedupBehaviour } from '../helpers/dedup-suite.ts';
import { describeOnMoto, motoForBlock } from '../helpers/moto.ts';

describeOnMoto('consumer deduplication on S3', () => {
  const { aws, freshBucket } = motoForBlock('consumer');

  describeDedupBehaviour('Deduplicator on s3DedupStore against moto', async () =>
    s3DedupStore({ client: aws().s3, bucket: await freshBucket() }),
  );

  it('records a processed id as a small object under the key prefix, where a lifecycle rule can expire it', async () => {
    // prepare
    await aws().createBucket('consumer-layout');
    const dedup = new Deduplicator({ store: s3DedupStore({ client: aws().s3, bucket: 'consumer-layout' }) });

    // act
    await dedup.once({ id: '0a04acb2-171b-8ff2-bff2-2781a9849da0' }, () => undefined);

    // assess
    const stored = await aws().s3.send(
      new GetObjectCommand({
        Bucket: 'consumer-layout',
        Key: 'pds-events/processed/0a04acb2-171b-8ff2-bff2-2781a9849da0.json',
      }),
    );
    expect(JSON.parse((await stored.Body?.transformToString()) ?? '')).toMatchObject({ status: 'done' });
  });
});
