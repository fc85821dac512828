/**
 * The lease behaviour (packages/bridge/src/state/lease.ts) on any `StateStore`: call it from a test file with a factory
 * that returns an empty store. Racing runs need a store whose conditional writes are atomic (every
 * StateStore adapter in production; moto only behind ./s3-proxy.ts).
 */
import { describe, expect, it } from 'vitest';
import { OptionError } from '../../packages/bridge/src/core/index.ts';
import { leaseKey } from '../../packages/bridge/src/state/keys.ts';
import {
  acquireLease,
  type LeaseRecord,
  releaseLease,
  renewLease,
} from '../../packages/bridge/src/state/lease.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';

/** Registers the lease tests under `describe(name)`. */
export function describeLeaseBehaviour(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
): void {
  describe(name, () => {
    const TTL = 60_000;

    it('is held by one run at a time', async () => {
      // prepare
      const store = await makeStore();
      const now = () => 1_000;

      // act
      const first = await acquireLease(store, 'poll', TTL, 'run-1', { now });
      const second = await acquireLease(store, 'poll', TTL, 'run-2', { now });

      // assess
      expect(first).toMatchObject({ name: 'poll', owner: 'run-1', acquiredAt: 1_000, expiresAt: 61_000 });
      expect(second).toBeUndefined();
      expect((await store.get<LeaseRecord>(leaseKey('poll')))?.value.owner).toBe('run-1');
    });

    it('lets exactly one of many racing runs take a free lease', async () => {
      // prepare
      const store = await makeStore();

      // act
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => acquireLease(store, 'fan-out', TTL, `run-${i}`)),
      );

      // assess
      const winners = results.filter((lease) => lease !== undefined);
      expect(winners).toHaveLength(1);
      expect((await store.get<LeaseRecord>(leaseKey('fan-out')))?.value.token).toBe(winners[0]?.token);
    });

    it('can be taken over once expired, and the old holder then loses it', async () => {
      // prepare
      const store = await makeStore();
      const stale = await acquireLease(store, 'poll', TTL, 'run-1', { now: () => 0 });
      if (!stale) throw new Error('first acquisition failed');

      // act
      const early = await acquireLease(store, 'poll', TTL, 'run-2', { now: () => TTL - 1 });
      const takeover = await acquireLease(store, 'poll', TTL, 'run-2', { now: () => TTL });
      const renewedByStale = await renewLease(store, stale, TTL, { now: () => TTL + 1 });
      const releasedByStale = await releaseLease(store, stale);

      // assess
      expect(early).toBeUndefined();
      expect(takeover).toMatchObject({ owner: 'run-2', expiresAt: 2 * TTL });
      expect(renewedByStale).toBeUndefined();
      expect(releasedByStale).toBe(false);
      expect((await store.get<LeaseRecord>(leaseKey('poll')))?.value.owner).toBe('run-2');
    });

    it('lets only one of two runs take over an expired lease', async () => {
      // prepare
      const store = await makeStore();
      await acquireLease(store, 'poll', TTL, 'crashed', { now: () => 0 });

      // act
      const [a, b] = await Promise.all([
        acquireLease(store, 'poll', TTL, 'run-a', { now: () => 2 * TTL }),
        acquireLease(store, 'poll', TTL, 'run-b', { now: () => 2 * TTL }),
      ]);

      // assess
      expect([a, b].filter((lease) => lease !== undefined)).toHaveLength(1);
    });

    it('extends on renewal and is free again after release', async () => {
      // prepare
      const store = await makeStore();
      const lease = await acquireLease(store, 'poll', TTL, 'run-1', { now: () => 0 });
      if (!lease) throw new Error('acquisition failed');

      // act
      const renewed = await renewLease(store, lease, TTL, { now: () => 30_000 });
      const blocked = await acquireLease(store, 'poll', TTL, 'run-2', { now: () => 80_000 });
      const released = renewed ? await releaseLease(store, renewed) : false;
      const next = await acquireLease(store, 'poll', TTL, 'run-2', { now: () => 80_000 });

      // assess
      expect(renewed).toMatchObject({ owner: 'run-1', token: lease.token, expiresAt: 90_000 });
      expect(blocked).toBeUndefined();
      expect(released).toBe(true);
      expect(next).toMatchObject({ owner: 'run-2' });
    });

    it('keeps how each run ended when released with an outcome, across later runs, and frees the lease', async () => {
      // prepare
      const store = await makeStore();
      const first = await acquireLease(store, 'poll', TTL, 'run-1', { now: () => 0 });
      if (!first) throw new Error('acquisition failed');

      // act: run-1 succeeds, run-2 fails, run-3 is still running
      await releaseLease(store, first, { ok: true }, { now: () => 1000 });
      const second = await acquireLease(store, 'poll', TTL, 'run-2', { now: () => 2000 });
      if (!second) throw new Error('the released lease was not free');
      await releaseLease(store, second, { ok: false, error: 'PDS unavailable' }, { now: () => 3000 });
      const third = await acquireLease(store, 'poll', TTL, 'run-3', { now: () => 4000 });
      const stored = (await store.get<LeaseRecord>(leaseKey('poll')))?.value;

      // assess
      expect(third).toMatchObject({ owner: 'run-3', expiresAt: 4000 + TTL });
      expect(stored).toMatchObject({
        owner: 'run-3',
        lastSuccessAt: 1000,
        lastRun: { owner: 'run-2', startedAt: 2000, endedAt: 3000, ok: false, error: 'PDS unavailable' },
      });
    });

    it('refuses a TTL that is not a positive duration', async () => {
      // prepare
      const store = await makeStore();

      // act & assess
      await expect(acquireLease(store, 'poll', 0, 'run-1')).rejects.toThrow(OptionError);
      await expect(acquireLease(store, 'poll', Number.NaN, 'run-1')).rejects.toThrow(OptionError);
    });
  });
}
