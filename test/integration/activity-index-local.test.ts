/**
 * The activity index behind `pds bridge status` and `replay` on the local stack's S3 endpoint
 * (fauxqs behind the conditional endpoint), over HTTP with the AWS SDK.
 */
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeActivityIndex } from '../helpers/activity-index-suite.ts';
import { useLocalEndpoint } from '../helpers/local-endpoint.ts';

const local = useLocalEndpoint();

describeActivityIndex(
  'activity index on the local stack endpoint (pages of 3 keys)',
  () => new S3StateStore({ client: local.s3, bucket: local.newBucket('activity'), listPageSize: 3 }),
);
