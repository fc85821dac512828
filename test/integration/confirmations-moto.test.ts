/**
 * The confirmation ledger on moto: an S3 that enforces If-None-Match and If-Match, reached over HTTP
 * like the real one. Every transition, duplicates and replays, out-of-order confirmations and the
 * deadline (injected clock). The concurrent case runs on the local stack's conditional endpoint
 * (confirmations-local.test.ts): moto is not atomic when two writes meet at the same instant.
 */
import { afterAll, beforeAll } from 'vitest';
import { S3StateStore } from '../../lib/state/s3/store.ts';
import { describeConfirmationLedger } from '../helpers/confirmation-ledger-suite.ts';
import { describeOnMoto, type MotoServer, startMoto } from '../helpers/moto.ts';

describeOnMoto('confirmation ledger on moto', () => {
  let aws: MotoServer;
  let buckets = 0;

  beforeAll(async () => {
    aws = await startMoto();
  });

  afterAll(async () => {
    await aws?.close();
  });

  describeConfirmationLedger(
    'S3StateStore against moto',
    async () => {
      const bucket = `confirmations-${++buckets}`;
      await aws.createBucket(bucket);
      return new S3StateStore({ client: aws.s3, bucket, listPageSize: 2 });
    },
    { concurrent: false },
  );
});
