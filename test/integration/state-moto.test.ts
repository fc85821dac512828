import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeOnMoto, motoForBlock } from '../helpers/moto.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

describeOnMoto('S3StateStore over HTTP', () => {
  const { aws, freshBucket } = motoForBlock('state');

  describeStateStoreBehaviour(
    'S3StateStore against moto',
    async () => new S3StateStore({ client: aws().s3, bucket: await freshBucket(), listPageSize: 2 }),
    // moto is not atomic when two writes meet at the same instant (see ../helpers/moto.ts).
    { conditional: true, atomic: false },
  );
});
