import { describe, expect, it } from 'vitest';
import { IngestInProgressError, inProgressUntil } from '../../packages/bridge/src/ingest/errors.ts';
import type { ObjectWrite } from '../../packages/bridge/src/ingest/keys.ts';
import { claimIngest } from '../../packages/bridge/src/ingest/progress.ts';
import { PdsServerError } from '../../packages/bridge/src/pds/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/index.ts';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { describeIngestClaimBehaviour } from '../helpers/ingest-claim-suite.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';

const WRITE: ObjectWrite = { bucket: 'drops', key: 'in/items.csv', etag: '9b2c', sequencer: '00A1' };

function s3Store() {
  const s3 = mockConditionalS3('state');
  return { s3, store: new S3StateStore({ client: s3.client, bucket: 'state' }) };
}

describeIngestClaimBehaviour('claimIngest on S3 conditional writes (mocked S3)', () => s3Store().store);

describe('claimIngest on S3 conditional writes', () => {
  it('claims even when S3 first answers 409 ConditionalRequestConflict', async () => {
    const { s3, store } = s3Store();
    s3.injectConflicts(2);

    const result = await claimIngest(store, WRITE, { owner: 'd', leaseMs: 60_000 });

    expect(result.kind).toBe('claimed');
  });

  it('tells a delivery that meets a live claim when that claim ends, so it is retried then', async () => {
    // prepare
    const { store } = s3Store();
    const at = 1_700_000_000_000;
    await claimIngest(store, WRITE, { owner: 'streaming', leaseMs: 960_000, now: () => at });

    // act
    const refused = await claimIngest(store, WRITE, {
      owner: 'duplicate',
      leaseMs: 960_000,
      now: () => at + 5_000,
    })
      .then(() => undefined)
      .catch((error: unknown) => error);

    // assess
    expect(refused).toBeInstanceOf(IngestInProgressError);
    expect(inProgressUntil(refused)).toBe(at + 960_000);
  });
});

describe('claimIngest, a fresh record', () => {
  it('records the write as the ingest identifies it: its identifying fields set, nothing else the event carried', async () => {
    // prepare: an S3 event's write, with a size the record does not keep and an empty version
    const event = { ...WRITE, versionId: '', size: 42 } as ObjectWrite;

    // act
    const result = await claimIngest(new MemoryStateStore(), event, {
      owner: 'd',
      leaseMs: 60_000,
      now: () => 5,
    });

    // assess
    expect(result.kind === 'claimed' ? result.claim.record : undefined).toEqual({
      bucket: 'drops',
      key: 'in/items.csv',
      etag: '9b2c',
      sequencer: '00A1',
      status: 'claimed',
      owner: 'd',
      leaseUntil: 60_005,
      attempts: 1,
      claimedAt: 5,
      updatedAt: 5,
    });
  });
});

describe('inProgressUntil', () => {
  it('keeps the usual back-off when any failed write of a message was not waiting for a claim', () => {
    const waiting = new IngestInProgressError('k1', 'claimed', 2_000);
    const later = new IngestInProgressError('k2', 'claimed', 3_000);
    const down = new PdsServerError(503, { method: 'POST', path: '/api/v1/imports' }, '');

    expect(inProgressUntil(new AggregateError([waiting, later]))).toBe(3_000);
    expect(inProgressUntil(new AggregateError([waiting, down]))).toBeUndefined();
    expect(inProgressUntil(new IngestInProgressError('k', 'taken over'))).toBeUndefined();
  });
});
