/**
 * The ingest claim (claimIngest in packages/bridge/src/ingest/progress.ts) on any `StateStore`: call it from a test file
 * with a factory that returns an empty store. The racing cases need conditional writes that are atomic
 * (S3 itself; moto only behind ./s3-proxy.ts).
 */
import { describe, expect, it } from 'vitest';
import { IngestInProgressError } from '../../packages/bridge/src/ingest/errors.ts';
import { ingestProgressKey, type ObjectWrite } from '../../packages/bridge/src/ingest/keys.ts';
import { claimIngest, type IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';

const WRITE: ObjectWrite = { bucket: 'drops', key: 'in/items.csv', etag: '9b2c', sequencer: '00A1' };

/** Registers the claim tests under `describe(name)`. */
export function describeIngestClaimBehaviour(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
): void {
  describe(name, () => {
    it('lets exactly one of many concurrent deliveries claim a new write', async () => {
      // prepare
      const store = await makeStore();

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
      const store = await makeStore();
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

    it('stops a holder whose claim was taken over at its next step', async () => {
      // prepare
      let clock = 0;
      const store = await makeStore();
      const slow = await claimIngest(store, WRITE, { owner: 'slow', leaseMs: 1_000, now: () => clock });
      clock = 2_000;
      await claimIngest(store, WRITE, { owner: 'fast', leaseMs: 1_000, now: () => clock });

      // act
      const advance =
        slow.kind === 'claimed' ? slow.claim.advance({ status: 'uploaded' }) : Promise.resolve();

      // assess
      await expect(advance).rejects.toBeInstanceOf(IngestInProgressError);
      const stored = await store.get<IngestProgressRecord>(ingestProgressKey(WRITE));
      expect(stored?.value).toMatchObject({ owner: 'fast', status: 'claimed' });
    });

    it('releases a claim so the next delivery takes it over at once', async () => {
      // prepare
      const store = await makeStore();
      const held = await claimIngest(store, WRITE, { owner: 'first', leaseMs: 600_000 });
      if (held.kind !== 'claimed') throw new Error('expected a claim');

      // act
      const released = await held.claim.release('PdsServerError: 503');
      const next = await claimIngest(store, WRITE, { owner: 'second', leaseMs: 600_000 });

      // assess
      expect(released).toBe(true);
      expect(next).toMatchObject({ kind: 'claimed', takenOver: true });
      expect(next.kind === 'claimed' && next.claim.record).toMatchObject({
        owner: 'second',
        lastError: 'PdsServerError: 503',
      });
    });

    it('reports a finished write instead of claiming it', async () => {
      // prepare
      const store = await makeStore();
      const held = await claimIngest(store, WRITE, { owner: 'first', leaseMs: 600_000 });
      if (held.kind !== 'claimed') throw new Error('expected a claim');
      await held.claim.advance({ status: 'done', outcome: 'imported', leaseUntil: 0 });

      // act
      const again = await claimIngest(store, WRITE, { owner: 'second', leaseMs: 600_000 });

      // assess
      expect(again).toMatchObject({ kind: 'finished', record: { outcome: 'imported' } });
    });
  });
}
