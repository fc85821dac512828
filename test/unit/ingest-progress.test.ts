import { describe, expect, it } from 'vitest';
import { IngestInProgressError, inProgressUntil } from '../../lib/ingest/errors.ts';
import { claimIngest, type IngestProgressRecord } from '../../lib/ingest/progress.ts';
import { PdsServerError } from '../../lib/pds/errors.ts';
import { ingestProgressKey, type ObjectWrite } from '../../lib/state/keys.ts';
import { S3StateStore } from '../../lib/state/s3.ts';
import { mockConditionalS3 } from '../helpers/s3-conditional-mock.ts';

const WRITE: ObjectWrite = { bucket: 'drops', key: 'in/items.csv', etag: '9b2c', sequencer: '00A1' };

function s3Store() {
  const s3 = mockConditionalS3('state');
  return { s3, store: new S3StateStore({ client: s3.client, bucket: 'state' }) };
}

describe('claimIngest on S3 conditional writes', () => {
  it('lets exactly one of many concurrent deliveries claim a new write', async () => {
    // prepare
    const { store } = s3Store();

    // act
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => claimIngest(store, WRITE, { owner: `d${i}`, leaseMs: 60_000 })),
    );

    // assess
    const claimed = results.filter((r) => r.status === 'fulfilled' && r.value.kind === 'claimed');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(claimed).toHaveLength(1);
    expect(refused).toHaveLength(7);
    for (const r of refused)
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(IngestInProgressError);
  });

  it('lets exactly one of two deliveries take over an expired claim', async () => {
    // prepare
    let clock = 5_000;
    const { store } = s3Store();
    const first = await claimIngest(store, WRITE, { owner: 'crashed', leaseMs: 1_000, now: () => clock });
    expect(first.kind).toBe('claimed');
    clock += 1_001;

    // act
    const results = await Promise.allSettled([
      claimIngest(store, WRITE, { owner: 'a', leaseMs: 1_000, now: () => clock }),
      claimIngest(store, WRITE, { owner: 'b', leaseMs: 1_000, now: () => clock }),
    ]);

    // assess
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const stored = await store.get<IngestProgressRecord>(ingestProgressKey(WRITE));
    expect(stored?.value.attempts).toBe(2);
  });

  it('claims even when S3 first answers 409 ConditionalRequestConflict', async () => {
    const { s3, store } = s3Store();
    s3.injectConflicts(2);

    const result = await claimIngest(store, WRITE, { owner: 'd', leaseMs: 60_000 });

    expect(result.kind).toBe('claimed');
  });

  it('stops a holder whose claim was taken over at its next step', async () => {
    // prepare
    let clock = 0;
    const { store } = s3Store();
    const slow = await claimIngest(store, WRITE, { owner: 'slow', leaseMs: 1_000, now: () => clock });
    clock = 2_000;
    await claimIngest(store, WRITE, { owner: 'fast', leaseMs: 1_000, now: () => clock });

    // act
    const advance = slow.kind === 'claimed' ? slow.claim.advance({ status: 'uploaded' }) : Promise.resolve();

    // assess
    await expect(advance).rejects.toBeInstanceOf(IngestInProgressError);
    const stored = await store.get<IngestProgressRecord>(ingestProgressKey(WRITE));
    expect(stored?.value).toMatchObject({ owner: 'fast', status: 'claimed' });
  });

  it('releases a claim so the next delivery takes it over at once', async () => {
    const { store } = s3Store();
    const held = await claimIngest(store, WRITE, { owner: 'first', leaseMs: 600_000 });
    if (held.kind !== 'claimed') throw new Error('expected a claim');

    expect(await held.claim.release('PdsServerError: 503')).toBe(true);
    const next = await claimIngest(store, WRITE, { owner: 'second', leaseMs: 600_000 });

    expect(next).toMatchObject({ kind: 'claimed', takenOver: true });
    expect(next.kind === 'claimed' && next.claim.record).toMatchObject({
      owner: 'second',
      lastError: 'PdsServerError: 503',
    });
  });

  it('reports a finished write instead of claiming it', async () => {
    const { store } = s3Store();
    const held = await claimIngest(store, WRITE, { owner: 'first', leaseMs: 600_000 });
    if (held.kind !== 'claimed') throw new Error('expected a claim');
    await held.claim.advance({ status: 'done', outcome: 'imported', leaseUntil: 0 });

    const again = await claimIngest(store, WRITE, { owner: 'second', leaseMs: 600_000 });

    expect(again).toMatchObject({ kind: 'finished', record: { outcome: 'imported' } });
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
