/**
 * The StateStore behaviour suite, conditional cases included, on moto: an S3 that enforces
 * If-None-Match and If-Match, reached over HTTP like the real one.
 */
import { afterAll, beforeAll } from 'vitest';
import { S3StateStore } from '../../lib/state/s3/store.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

describeOnMoto('S3StateStore over HTTP', () => {
  let aws: MotoServer;
  let buckets = 0;

  beforeAll(async () => {
    aws = await startMoto();
  });

  afterAll(async () => {
    await aws?.close();
  });

  describeStateStoreBehaviour(
    'S3StateStore against moto',
    async () => {
      const bucket = `state-${++buckets}`;
      await aws.createBucket(bucket);
      return new S3StateStore({ client: aws.s3, bucket, listPageSize: 2 });
    },
    // moto is not atomic when two writes meet at the same instant (see ../helpers/moto.ts).
    { conditional: true, atomic: false },
  );
});
