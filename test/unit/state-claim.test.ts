import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeClaimBehaviour } from '../helpers/claim-suite.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';

describeClaimBehaviour('claims on MemoryStateStore', () => new MemoryStateStore());
describeClaimBehaviour(
  'claims on S3StateStore (mocked conditional S3)',
  () => new S3StateStore({ client: mockConditionalS3().client, bucket: 'state' }),
);
