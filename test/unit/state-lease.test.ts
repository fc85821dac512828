import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeLeaseBehaviour } from '../helpers/lease-suite.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';

describeLeaseBehaviour('leases on MemoryStateStore', () => new MemoryStateStore());
describeLeaseBehaviour(
  'leases on S3StateStore',
  () => new S3StateStore({ client: mockConditionalS3().client, bucket: 'state' }),
);
