/**
 * The confirmation ledger on the local stack's S3 endpoint (fauxqs behind the conditional endpoint),
 * over HTTP with the AWS SDK, where conditional writes hold atomically: every case of the suite,
 * several workers updating one entry at once among them.
 */
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeConfirmationLedger } from '../helpers/confirmation-ledger-suite.ts';
import { useLocalEndpoint } from '../helpers/local-endpoint.ts';

const local = useLocalEndpoint();

describeConfirmationLedger(
  'confirmation ledger on the local stack endpoint',
  () => new S3StateStore({ client: local.s3, bucket: local.newBucket('confirmations') }),
);
