import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeConfirmationLedger } from '../helpers/confirmation-ledger-suite.ts';
import { describeOnMoto, motoForBlock } from '../helpers/moto.ts';

describeOnMoto('confirmation ledger on moto', () => {
  const { aws, freshBucket } = motoForBlock('confirmations');

  describeConfirmationLedger(
    'S3StateStore against moto',
    async () => new S3StateStore({ client: aws().s3, bucket: await freshBucket(), listPageSize: 2 }),
    { concurrent: false },
  );
});
