/**
 * The activity index (packages/bridge/src/state/activity-index.ts) behind `pds bridge status` and `replay`, on any
 * `StateStore`: call it from a test file with a factory that returns an empty store. Records are
 * written through the real ingest write path (claimIngest, advance) with an injected clock; every
 * answer read through the index is compared with the full read of every record (the reference).
 */
import { describe, expect, it } from 'vitest';
import type { ObjectWrite } from '../../packages/bridge/src/ingest/keys.ts';
import { INGEST_PROGRESS_PREFIX, ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { claimIngest, INGEST_ACTIVITY } from '../../packages/bridge/src/ingest/progress.ts';
import { publicationKey } from '../../packages/bridge/src/publications/keys.ts';
import {
  ACTIVITY_MARKER_GRACE_MS,
  openMarkerKey,
  openMarkerPrefix,
} from '../../packages/bridge/src/state/activity-index.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import type { OperatorQueues } from '../../packages/cli/src/ops/ports.ts';
import { reindexActivity } from '../../packages/cli/src/ops/reindex.ts';
import { planReplay } from '../../packages/cli/src/ops/replay.ts';
import { bridgeStatus } from '../../packages/cli/src/ops/status.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

/** No queues: status's queue part is not what these tests are about. */
const noQueues: OperatorQueues = {
  depth: async () => undefined,
  peek: async () => [],
  move: async () => {
    throw new Error('not used');
  },
};

function writeOf(n: number): ObjectWrite {
  return { bucket: 'drops', key: `in/file ${n}.csv`, etag: `e${n}`, sequencer: String(n).padStart(4, '0') };
}

/** Claims and fails (with a code) the write `n` at `at`: through the real write path. */
async function finish(store: StateStore, n: number, at: number): Promise<void> {
  const claimed = await claimIngest(store, writeOf(n), { owner: `req-${n}`, leaseMs: 60_000, now: () => at });
  if (claimed.kind !== 'claimed') throw new Error(`write ${n} was already finished`);
  await claimed.claim.advance({ status: 'failed', outcome: 'failed', code: 'gone', reason: 'deleted' });
}

/** `store` with some of its methods replaced (a crash injected between two writes). */
function withFaults(store: StateStore, faults: Partial<StateStore>): StateStore {
  return {
    get: (key) => store.get(key),
    create: (key, value) => store.create(key, value),
    update: (key, value, etag) => store.update(key, value, etag),
    delete: (key, etag) => store.delete(key, etag),
    list: (prefix, options) => store.list(prefix, options),
    listEntries: (prefix, options) => store.listEntries(prefix, options),
    mutate: (key, fn, options) => store.mutate(key, fn, options),
    ...faults,
  } as StateStore;
}

/** A store that fails the next `update` of `key` (a crash between the marker and the record). */
function crashingOnUpdate(store: StateStore, key: string): StateStore {
  let armed = true;
  return withFaults(store, {
    update: async (updated, value, etag) => {
      if (armed && updated === key) {
        armed = false;
        throw new Error('injected crash before the record write');
      }
      return store.update(updated, value, etag);
    },
  });
}

/** A replay plan without the trace context (each build of an event gets its own). */
async function replay(store: StateStore, window: Parameters<typeof planReplay>[1]) {
  const plan = await planReplay(store, window);
  return { ...plan, events: plan.events.map(({ traceparent: _trace, ...event }) => event) };
}

async function status(store: StateStore, read: 'index' | 'full', now: number) {
  return (await bridgeStatus(store, noQueues, { stage: 't', stateBucket: 'b', now, read })).ingests;
}

export function describeActivityIndex(name: string, makeStore: () => StateStore | Promise<StateStore>): void {
  describe(name, () => {
    it('answers every replay window exactly as the full read, and windows concatenate to the whole', async () => {
      // prepare: 30 ingests finishing every 20 minutes over 10 hours, 3 left open
      const store = await makeStore();
      for (let n = 0; n < 30; n++) await finish(store, n, T0 + n * 20 * 60_000 + 7_000);
      for (let n = 30; n < 33; n++) {
        await claimIngest(store, writeOf(n), { owner: 'open', leaseMs: 60_000, now: () => T0 + n * 60_000 });
      }
      const since = T0 - HOUR;
      const until = T0 + 11 * HOUR;

      // act
      const whole = await replay(store, { since, until });
      const reference = await replay(store, { since, until, read: 'full' });
      const cuts = [
        since,
        T0 + 25 * 60_000,
        T0 + HOUR,
        T0 + 3.5 * HOUR,
        T0 + 3.5 * HOUR + 1,
        T0 + 8 * HOUR,
        until,
      ];
      const pieces = [];
      for (let k = 0; k + 1 < cuts.length; k++) {
        const window = { since: cuts[k] as number, until: cuts[k + 1] as number };
        const piece = await replay(store, window);
        expect(piece).toEqual(await replay(store, { ...window, read: 'full' }));
        pieces.push(...piece.events);
      }

      // assess
      expect(whole.events).toHaveLength(30);
      expect(whole).toEqual(reference);
      expect(pieces.map((event) => event.id)).toEqual(whole.events.map((event) => event.id));
    });

    it('lists the ingests in flight as the full read does, and drops the open marker once one finishes', async () => {
      // prepare
      const store = await makeStore();
      for (let n = 0; n < 5; n++) {
        await claimIngest(store, writeOf(n), { owner: 'open', leaseMs: 60_000, now: () => T0 + n });
      }
      await finish(store, 5, T0);
      const claimed = await claimIngest(store, writeOf(6), { owner: 'x', leaseMs: 60_000, now: () => T0 });
      if (claimed.kind === 'claimed')
        await claimed.claim.advance({ status: 'failed', code: 'gone', reason: 'r' });

      // act
      const indexed = await status(store, 'index', T0 + 10);
      const reference = await status(store, 'full', T0 + 10);
      const open: string[] = [];
      for await (const key of store.list(openMarkerPrefix(INGEST_ACTIVITY))) open.push(key);

      // assess
      expect(indexed).toEqual(reference);
      expect(indexed.window).toMatchObject({ finished: 2, failedCount: 2 });
      expect(indexed.window.failed.map((ingest) => ingest.code)).toEqual(['gone', 'gone']);
      expect(indexed.inFlight.map((ingest) => ingest.key).sort()).toEqual(
        [0, 1, 2, 3, 4].map((n) => writeOf(n).key).sort(),
      );
      expect(open).toHaveLength(5);
    });

    it('reads ingests by window: what finished before it and the progress records as a whole are never read', async () => {
      // prepare: 12 ingests failed two days ago, 2 in the last hour, 1 in flight
      const store = await makeStore();
      for (let n = 0; n < 12; n++) await finish(store, n, T0 - 48 * HOUR + n * 60_000);
      for (let n = 12; n < 14; n++) await finish(store, n, T0 - 30 * 60_000 + n);
      await claimIngest(store, writeOf(14), { owner: 'open', leaseMs: 60_000, now: () => T0 });
      const touched: string[] = [];
      const counting = withFaults(store, {
        get: (key) => {
          touched.push(`get ${key}`);
          return store.get(key);
        },
        list: (prefix, options) => {
          touched.push(`list ${prefix}`);
          return store.list(prefix, options);
        },
      });

      // act
      const answer = await status(counting, 'index', T0 + 10);

      // assess
      expect(answer.window).toMatchObject({ finished: 2, failedCount: 2 });
      expect(answer.inFlight.map((ingest) => ingest.key)).toEqual([writeOf(14).key]);
      const progressReads = touched.filter((call) => call.startsWith(`get ${INGEST_PROGRESS_PREFIX}`));
      expect(progressReads.sort()).toEqual(
        [12, 13, 14].map((n) => `get ${ingestProgressKey(writeOf(n))}`).sort(),
      );
      expect(touched).not.toContain(`list ${INGEST_PROGRESS_PREFIX}`);
    });

    it('stays exact through a crash between the marker and the record, and after the retry', async () => {
      // prepare: a delivery writes the replay marker, then crashes before the record is finished
      const store = await makeStore();
      await finish(store, 0, T0 + 5 * 60_000);
      const key = ingestProgressKey(writeOf(1));
      const crashing = crashingOnUpdate(store, key);
      const first = await claimIngest(crashing, writeOf(1), { owner: 'a', leaseMs: 1000, now: () => T0 });
      if (first.kind !== 'claimed') throw new Error('not claimed');
      await expect(
        first.claim.advance({ status: 'failed', outcome: 'failed', code: 'gone', reason: 'r' }),
      ).rejects.toThrow('injected crash');
      const window = { since: T0 - HOUR, until: T0 + 2 * HOUR };

      // act + assess: the stale marker is not taken for a finished record
      const afterCrash = await replay(store, window);
      expect(afterCrash).toEqual(await replay(store, { ...window, read: 'full' }));
      expect(afterCrash.events).toHaveLength(1);
      expect((await status(store, 'index', T0 + 2000)).inFlight.map((ingest) => ingest.key)).toEqual([
        writeOf(1).key,
      ]);

      // the next delivery takes over an hour later and finishes it: found in its own hour, once
      await finish(store, 1, T0 + HOUR + 60_000);
      const afterRetry = await replay(store, window);
      expect(afterRetry).toEqual(await replay(store, { ...window, read: 'full' }));
      expect(afterRetry.events).toHaveLength(2);
      expect(await status(store, 'index', T0 + 2 * HOUR)).toEqual(await status(store, 'full', T0 + 2 * HOUR));
    });

    it('retires an open marker whose record was never written, only after the grace period', async () => {
      // prepare: a crash between the open marker and the record's create
      const store = await makeStore();
      const key = ingestProgressKey(writeOf(9));
      const failingCreate = withFaults(store, {
        create: async () => {
          throw new Error('injected crash before the record create');
        },
      });
      await expect(
        claimIngest(failingCreate, writeOf(9), { owner: 'a', leaseMs: 1000, now: () => Date.now() }),
      ).rejects.toThrow('injected crash');
      const marker = openMarkerKey(INGEST_ACTIVITY, key);

      // act
      const young = await status(store, 'index', Date.now());
      const stillThere = await store.get(marker);
      const old = await status(store, 'index', Date.now() + ACTIVITY_MARKER_GRACE_MS + 1000);

      // assess
      expect(young).toMatchObject({ window: { finished: 0 }, inFlight: [] });
      expect(stillThere).toBeDefined();
      expect(old).toMatchObject({ window: { finished: 0 }, inFlight: [] });
      expect(await store.get(marker)).toBeUndefined();
    });

    it('finds records written before the index once `reindex` ran, as the full read does', async () => {
      // prepare: records without markers (written by an earlier version)
      const store = await makeStore();
      const base = {
        owner: 'old',
        leaseUntil: 0,
        attempts: 1,
        claimedAt: T0,
        outcome: 'failed',
        code: 'gone',
        reason: 'r',
      };
      for (let n = 0; n < 4; n++) {
        const write = writeOf(n);
        await store.create(ingestProgressKey(write), {
          ...write,
          ...base,
          status: n === 3 ? 'claimed' : 'failed',
          updatedAt: T0 + n * HOUR,
        });
      }
      await store.create(publicationKey('p-old'), {
        publicationId: 'p-old',
        status: 'failed',
        request: { primaryKeys: ['04000000000001'], destinations: [] },
        bodyHash: 'h',
        requestedBy: 'local',
        attempts: 1,
        createdAt: new Date(T0).toISOString(),
        updatedAt: new Date(T0 + HOUR).toISOString(),
        failedAt: new Date(T0 + HOUR).toISOString(),
        notifiedAt: new Date(T0 + HOUR).toISOString(),
        error: { reason: 'no', retryable: false, at: new Date(T0 + HOUR).toISOString() },
      });
      const window = { since: T0 - HOUR, until: T0 + 5 * HOUR };

      // act
      const before = await replay(store, window);
      const report = await reindexActivity(store);
      const again = await reindexActivity(store);
      const after = await replay(store, window);

      // assess
      expect(before.events).toEqual([]);
      expect(report).toEqual({ ingests: 4, publications: 1, markersWritten: 5 });
      expect(again.markersWritten).toBe(0);
      expect(after).toEqual(await replay(store, { ...window, read: 'full' }));
      expect(after.events.length).toBeGreaterThanOrEqual(3);
      expect(await status(store, 'index', T0)).toEqual(await status(store, 'full', T0));
    });
  });
}
