import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeActivityIndex } from '../helpers/activity-index-suite.ts';
import { describeOnMoto, motoForBlock } from '../helpers/moto.ts';

describeOnMoto('activity index on moto', () => {
  const { aws, freshBucket } = motoForBlock('activity');

  describeActivityIndex(
    'S3StateStore against moto (pages of 2 keys)',
    async () => new S3StateStore({ client: aws().s3, bucket: await freshBucket(), listPageSize: 2 }),
  );
});
