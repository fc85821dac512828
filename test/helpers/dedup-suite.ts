/**
 * One behaviour suite for every `DedupStore` the consumer kit offers: call it with a factory that
 * returns an empty store. The clock is injected into the `Deduplicator` (and the memory store), so
 * expiry is tested the same way on every backend (the records carry their own end times).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ConsumerError, Deduplicator, type DedupStore } from '../../packages/consumer/src/index.ts';

const MINUTE = 60_000;

/** A promise with its resolver, to hold a piece of work open while another consumer arrives. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Registers the shared deduplication tests under `describe(name)`. */
export function describeDedupBehaviour(
  name: string,
  /** An empty store; `clock` is the suite's, for stores that keep time themselves. */
  makeStore: (clock: () => number) => DedupStore | Promise<DedupStore>,
): void {
  describe(name, () => {
    let store: DedupStore;
    let now: number;
    const clock = () => now;
    const dedup = (options: { ttlMs?: number; inProgressMs?: number; keyPrefix?: string } = {}) =>
      new Deduplicator({ store, now: clock, ttlMs: 60 * MINUTE, inProgressMs: 5 * MINUTE, ...options });

    beforeEach(async () => {
      store = await makeStore(clock);
      now = Date.parse('2026-11-20T09:00:00Z');
    });

    it('processes an event once and reports its redelivery as a duplicate', async () => {
      // prepare
      const processed: string[] = [];
      const consumer = dedup();

      // act
      const first = await consumer.once({ id: 'e-1' }, () => processed.push('e-1'));
      const second = await consumer.once({ id: 'e-1' }, () => processed.push('e-1 again'));

      // assess
      expect(first).toEqual({ duplicate: false, value: 1 });
      expect(second).toEqual({ duplicate: true });
      expect(processed).toEqual(['e-1']);
    });

    it('keeps events with different ids, and consumers with different prefixes, apart', async () => {
      // prepare
      const orders = dedup({ keyPrefix: 'orders/' });
      const audit = dedup({ keyPrefix: 'audit/' });

      // act
      const results = [
        await orders.once({ id: 'e-1' }, () => 'orders e-1'),
        await orders.once({ id: 'e-2' }, () => 'orders e-2'),
        await audit.once({ id: 'e-1' }, () => 'audit e-1'),
      ];

      // assess
      expect(results.map((result) => result.duplicate)).toEqual([false, false, false]);
    });

    it('lets the redelivery of an event whose processing failed process it', async () => {
      // prepare
      const consumer = dedup();

      // act
      const failure = consumer.once({ id: 'e-1' }, () => {
        throw new Error('database down');
      });
      await expect(failure).rejects.toThrow('database down');
      const retry = await consumer.once({ id: 'e-1' }, () => 'done');

      // assess
      expect(retry).toEqual({ duplicate: false, value: 'done' });
    });

    it('answers a retryable duplicate-in-progress while another consumer works on the event', async () => {
      // prepare
      const first = dedup();
      const second = dedup();
      const working = deferred();
      const started = deferred();
      const firstRun = first.once({ id: 'e-1' }, async () => {
        started.resolve();
        await working.promise;
        return 'first';
      });
      await started.promise;

      // act
      const error = await second.once({ id: 'e-1' }, () => 'second').catch((caught: unknown) => caught);
      working.resolve();
      const firstResult = await firstRun;
      const afterwards = await second.once({ id: 'e-1' }, () => 'second');

      // assess
      expect(error).toBeInstanceOf(ConsumerError);
      expect(error).toMatchObject({ code: 'duplicate-in-progress', retryable: true, eventId: 'e-1' });
      expect(firstResult).toEqual({ duplicate: false, value: 'first' });
      expect(afterwards).toEqual({ duplicate: true });
    });

    it('takes over an event whose consumer died mid-work once its lease has ended', async () => {
      // prepare: the first consumer claims and never finishes
      const never = deferred();
      const started = deferred();
      void dedup().once({ id: 'e-1' }, async () => {
        started.resolve();
        await never.promise;
      });
      await started.promise;
      now += 5 * MINUTE + 1;

      // act
      const result = await dedup().once({ id: 'e-1' }, () => 'taken over');

      // assess
      expect(result).toEqual({ duplicate: false, value: 'taken over' });
    });

    it('processes an event again once it is older than ttlMs', async () => {
      // prepare
      const consumer = dedup({ ttlMs: 10 * MINUTE });
      await consumer.once({ id: 'e-1' }, () => 'first');

      // act
      now += 10 * MINUTE - 1;
      const within = await consumer.once({ id: 'e-1' }, () => 'second');
      now += 2;
      const after = await consumer.once({ id: 'e-1' }, () => 'third');

      // assess
      expect(within).toEqual({ duplicate: true });
      expect(after).toEqual({ duplicate: false, value: 'third' });
    });

    it('stores ids whatever characters they hold', async () => {
      // prepare
      const consumer = dedup();
      const id = 'urn:other/producer?id=Äpfel 100%';

      // act
      await consumer.once({ id }, () => 1);
      const again = await consumer.once({ id }, () => 2);

      // assess
      expect(again).toEqual({ duplicate: true });
    });
  });
}
