/**
 * The claim primitive (packages/bridge/src/state/claim.ts) on any `StateStore`: call it from a test file with a factory
 * that returns an empty store. The cases that race acquirers at the same instant need conditional
 * writes that are atomic (every production adapter; moto only behind ./s3-proxy.ts): pass
 * `atomic: false` for a backend that checks and writes without a lock.
 */
import { describe, expect, it } from 'vitest';
import {
  acquireClaim,
  advanceClaim,
  type ClaimPolicy,
  releaseClaim,
} from '../../packages/bridge/src/state/claim.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';

/** A record of the simplest kind: who holds it, until when, and some work. */
interface JobRecord {
  holder: string;
  until: number;
  takeovers: number;
  step?: string;
  done?: boolean;
}

const KEY = 'jobs/one.json';
const LEASE = 1_000;

/** The policy of an acquirer named `holder`. */
function jobPolicy(holder: string): ClaimPolicy<JobRecord> {
  return {
    leaseEnd: (record) => record.until,
    fresh: (now) => ({ holder, until: now + LEASE, takeovers: 0 }),
    takeOver: (current, now) => ({
      ...current,
      holder,
      until: now + LEASE,
      takeovers: current.takeovers + 1,
    }),
    claimable: (record) => record.done !== true,
  };
}

export interface ClaimSuiteOptions {
  /** Two simultaneous conditional writes of one key never both succeed. Default true. */
  atomic?: boolean;
}

/** Registers the claim primitive's tests under `describe(name)`. */
export function describeClaimBehaviour(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
  { atomic = true }: ClaimSuiteOptions = {},
): void {
  describe(name, () => {
    it('creates a free record and tells the next acquirer who holds it until when', async () => {
      // prepare
      const store = await makeStore();

      // act
      const first = await acquireClaim(store, KEY, jobPolicy('a'), { now: () => 5_000 });
      const second = await acquireClaim(store, KEY, jobPolicy('b'), { now: () => 5_999 });

      // assess
      expect(first).toMatchObject({
        outcome: 'acquired',
        takenOver: false,
        claim: { key: KEY, record: { holder: 'a', until: 6_000 } },
      });
      expect(second).toEqual({
        outcome: 'held',
        record: { holder: 'a', until: 6_000, takeovers: 0 },
        leaseEnd: 6_000,
      });
      expect((await store.get<JobRecord>(KEY))?.value.holder).toBe('a');
    });

    it('takes over a record whose lease has ended, from what the record says', async () => {
      // prepare
      const store = await makeStore();
      await acquireClaim(store, KEY, jobPolicy('crashed'), { now: () => 0 });

      // act
      const takeover = await acquireClaim(store, KEY, jobPolicy('b'), { now: () => LEASE });

      // assess
      expect(takeover).toMatchObject({
        outcome: 'acquired',
        takenOver: true,
        claim: { record: { holder: 'b', until: 2 * LEASE, takeovers: 1 } },
      });
      expect((await store.get<JobRecord>(KEY))?.value).toEqual({
        holder: 'b',
        until: 2 * LEASE,
        takeovers: 1,
      });
    });

    it('reports a record the policy calls settled without writing it', async () => {
      // prepare
      const store = await makeStore();
      await store.create(KEY, { holder: 'a', until: 0, takeovers: 0, done: true });

      // act
      const result = await acquireClaim(store, KEY, jobPolicy('b'), { now: () => 10 * LEASE });

      // assess
      expect(result).toEqual({
        outcome: 'settled',
        record: { holder: 'a', until: 0, takeovers: 0, done: true },
      });
      expect((await store.get<JobRecord>(KEY))?.value.holder).toBe('a');
    });

    it('reports a create lost to an acquirer that wrote between the read and the write', async () => {
      // prepare: the fresh record is built after the read, when a competitor has just created the key
      const store = await makeStore();
      const policy: ClaimPolicy<JobRecord> = {
        ...jobPolicy('late'),
        fresh: async (now) => {
          await store.create(KEY, { holder: 'early', until: now + LEASE, takeovers: 0 });
          return { holder: 'late', until: now + LEASE, takeovers: 0 };
        },
      };

      // act
      const result = await acquireClaim(store, KEY, policy, { now: () => 0 });

      // assess
      expect(result).toEqual({ outcome: 'raced', step: 'create', leaseEnd: LEASE });
      expect((await store.get<JobRecord>(KEY))?.value.holder).toBe('early');
    });

    it('with createFirst, claims a free key without reading it and otherwise decides as after a read', async () => {
      // prepare: count the reads the acquirers make
      const store = await makeStore();
      let reads = 0;
      const counting = new Proxy(store, {
        get(target, property) {
          if (property === 'get') reads += 1;
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });

      // act
      const created = await acquireClaim(counting, KEY, jobPolicy('a'), { now: () => 0, createFirst: true });
      const readsToCreate = reads;
      const held = await acquireClaim(counting, KEY, jobPolicy('b'), { now: () => 10, createFirst: true });
      const takenOver = await acquireClaim(counting, KEY, jobPolicy('c'), {
        now: () => 2 * LEASE,
        createFirst: true,
      });

      // assess
      expect(created).toMatchObject({ outcome: 'acquired', takenOver: false });
      expect(readsToCreate).toBe(0);
      expect(held).toMatchObject({ outcome: 'held', leaseEnd: LEASE, record: { holder: 'a' } });
      expect(takenOver).toMatchObject({
        outcome: 'acquired',
        takenOver: true,
        claim: { record: { holder: 'c' } },
      });
      expect((await store.get<JobRecord>(KEY))?.value).toMatchObject({ holder: 'c', takeovers: 1 });
    });

    it('advances the holder on its own ETag, step after step', async () => {
      // prepare
      const store = await makeStore();
      const acquired = await acquireClaim(store, KEY, jobPolicy('a'), { now: () => 0 });
      if (acquired.outcome !== 'acquired') throw new Error('expected a claim');

      // act
      const first = await advanceClaim(store, acquired.claim, { ...acquired.claim.record, step: 'one' });
      const second =
        first.outcome === 'advanced'
          ? await advanceClaim(store, first.claim, { ...first.claim.record, step: 'two' })
          : first;

      // assess
      expect(second).toMatchObject({ outcome: 'advanced', claim: { record: { holder: 'a', step: 'two' } } });
      expect((await store.get<JobRecord>(KEY))?.value.step).toBe('two');
    });

    it('tells an overtaken holder it lost, at its next advance and release, and keeps the new holder', async () => {
      // prepare
      const store = await makeStore();
      const stale = await acquireClaim(store, KEY, jobPolicy('slow'), { now: () => 0 });
      if (stale.outcome !== 'acquired') throw new Error('expected a claim');
      await acquireClaim(store, KEY, jobPolicy('fast'), { now: () => 2 * LEASE });

      // act
      const advanced = await advanceClaim(store, stale.claim, { ...stale.claim.record, step: 'late' });
      const released = await releaseClaim(store, stale.claim);
      const releasedWithRecord = await releaseClaim(store, stale.claim, { ...stale.claim.record, until: 0 });

      // assess
      expect(advanced).toEqual({ outcome: 'lost' });
      expect(released).toEqual({ outcome: 'lost' });
      expect(releasedWithRecord).toEqual({ outcome: 'lost' });
      expect((await store.get<JobRecord>(KEY))?.value).toMatchObject({ holder: 'fast', takeovers: 1 });
    });

    it('frees the key when released, so the next acquirer creates it afresh', async () => {
      // prepare
      const store = await makeStore();
      const held = await acquireClaim(store, KEY, jobPolicy('a'), { now: () => 0 });
      if (held.outcome !== 'acquired') throw new Error('expected a claim');

      // act
      const released = await releaseClaim(store, held.claim);
      const next = await acquireClaim(store, KEY, jobPolicy('b'), { now: () => 1 });

      // assess
      expect(released).toEqual({ outcome: 'released' });
      expect(next).toMatchObject({
        outcome: 'acquired',
        takenOver: false,
        claim: { record: { holder: 'b' } },
      });
    });

    it('keeps a record released with an ended lease, for the next acquirer to take over at once', async () => {
      // prepare
      const store = await makeStore();
      const held = await acquireClaim(store, KEY, jobPolicy('a'), { now: () => 0 });
      if (held.outcome !== 'acquired') throw new Error('expected a claim');

      // act
      const released = await releaseClaim(store, held.claim, {
        ...held.claim.record,
        until: 0,
        step: 'half',
      });
      const next = await acquireClaim(store, KEY, jobPolicy('b'), { now: () => 1 });

      // assess
      expect(released).toEqual({ outcome: 'released' });
      expect(next).toMatchObject({
        outcome: 'acquired',
        takenOver: true,
        claim: { record: { holder: 'b', step: 'half', takeovers: 1 } },
      });
    });

    it.runIf(atomic)('lets exactly one of many racing acquirers create a free record', async () => {
      // prepare
      const store = await makeStore();

      // act
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          acquireClaim(store, KEY, jobPolicy(`run-${i}`), { now: () => 0 }),
        ),
      );

      // assess
      const winners = results.flatMap((r) => (r.outcome === 'acquired' ? [r.claim] : []));
      expect(winners).toHaveLength(1);
      for (const r of results.filter((each) => each.outcome !== 'acquired')) {
        expect(['raced', 'held']).toContain(r.outcome);
      }
      expect((await store.get<JobRecord>(KEY))?.value.holder).toBe(winners[0]?.record.holder);
    });

    it.runIf(atomic)('lets exactly one of two racing acquirers take over an ended lease', async () => {
      // prepare
      const store = await makeStore();
      await acquireClaim(store, KEY, jobPolicy('crashed'), { now: () => 0 });

      // act
      const results = await Promise.all([
        acquireClaim(store, KEY, jobPolicy('a'), { now: () => 2 * LEASE }),
        acquireClaim(store, KEY, jobPolicy('b'), { now: () => 2 * LEASE }),
      ]);

      // assess
      const outcomes = results.map((r) => r.outcome).sort();
      expect(outcomes).toEqual(['acquired', 'raced']);
      expect(results.find((r) => r.outcome === 'raced')).toEqual({
        outcome: 'raced',
        step: 'take-over',
        leaseEnd: 3 * LEASE,
      });
      expect((await store.get<JobRecord>(KEY))?.value.takeovers).toBe(1);
    });
  });
}
