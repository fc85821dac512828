import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  type ConfirmationRecorder,
  emptyLedgerReport,
} from '../../packages/bridge/src/confirmations/ports.ts';
import { eventId } from '../../packages/bridge/src/events/index.ts';
import {
  type MessagingAssetCheckpoint,
  parseCheckpoint,
} from '../../packages/bridge/src/polling/checkpoint.ts';
import {
  MESSAGING_ASSETS_CHECKPOINT,
  pollMessagingAssets,
} from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const SYNCHRONISED = readFileSync(path.join(fixtures, 'cic-3.1-synchronised.xml'), 'utf8');
const CIC_28 = readFileSync(path.join(fixtures, 'cic-2.8-state-attribute.xml'), 'utf8');

function setup(assets = 0) {
  const pds = new FakePds();
  for (let index = 0; index < assets; index++) pds.addAsset(SYNCHRONISED);
  const store = new MemoryStateStore();
  const sink = new RecordingSink();
  return { pds, store, sink, deps: { pds, store, sink } };
}

const emittedIds = (sink: RecordingSink) =>
  sink.dataOf('pds.messaging-asset.received').map((data) => data.messagingAssetId);

async function storedCheckpoint(store: MemoryStateStore): Promise<MessagingAssetCheckpoint> {
  const entry = await store.get(MESSAGING_ASSETS_CHECKPOINT);
  return parseCheckpoint(entry?.value, MESSAGING_ASSETS_CHECKPOINT);
}

describe('pollMessagingAssets', () => {
  it('emits nothing on a first run "now" and only later arrivals afterwards', async () => {
    // prepare
    const { pds, sink, deps } = setup(3);

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'now' });
    pds.addAsset(CIC_28);
    const second = await pollMessagingAssets(deps, { firstRun: 'now' });

    // assess
    expect(first.initialised).toBe(true);
    expect(second.emitted).toBe(1);
    expect(emittedIds(sink)).toEqual([4]);
  });

  it('tells the confirmation ledger of the accepted assets before the checkpoint moves; a ledger failure sends them again', async () => {
    // prepare
    const { sink, store, pds } = setup(3);
    const told: number[][] = [];
    let failures = 1;
    const confirmations: ConfirmationRecorder = {
      recordPublication: async () => emptyLedgerReport(),
      recordReviews: async () => emptyLedgerReport(),
      recordMessagingAssets: async (events) => {
        told.push(events.map((event) => event.data.messagingAssetId));
        if (failures-- > 0) throw new Error('the state bucket is unavailable (simulated)');
        return emptyLedgerReport();
      },
    };

    // act
    const failed = pollMessagingAssets({ pds, store, sink, confirmations }, { firstRun: 'backlog' });
    await expect(failed).rejects.toThrow(/unavailable/);
    const retried = await pollMessagingAssets({ pds, store, sink, confirmations }, { firstRun: 'backlog' });

    // assess
    expect(told).toEqual([
      [1, 2, 3],
      [1, 2, 3],
    ]);
    expect(retried.emitted).toBe(3);
    expect((await storedCheckpoint(store)).highestId).toBe(3);
  });

  it('emits a backlog in id order, page by page, and nothing twice across runs', async () => {
    // prepare
    const { pds, sink, store, deps } = setup(25);

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 10, concurrency: 3 });
    const second = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 10 });

    // assess
    expect(first).toMatchObject({ listed: 25, candidates: 25, emitted: 25, failed: 0, remaining: 0 });
    expect(second.emitted).toBe(0);
    expect(sink.requests).toEqual([10, 10, 5]);
    expect(emittedIds(sink)).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
    expect(pds.maxInFlight).toBeLessThanOrEqual(3);
    expect((await storedCheckpoint(store)).highestId).toBe(25);
  });

  it('fetches the next page in the slots the tail of the current page frees, within the concurrency', async () => {
    // prepare: asset 1 answers once asset 3 (the next page) was asked for, or after 500 ms
    const { pds, sink, store } = setup(4);
    let releaseFirst = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
      setTimeout(resolve, 500);
    });
    const order: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const slowFirst = {
      streamMessagingAssets: () => pds.streamMessagingAssets(),
      getMessagingAsset: async (id: number) => {
        order.push(`start ${id}`);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        try {
          if (id === 1) await firstHeld;
          if (id === 3) releaseFirst();
          return await pds.getMessagingAsset(id);
        } finally {
          inFlight--;
          order.push(`end ${id}`);
        }
      },
    };

    // act
    const report = await pollMessagingAssets(
      { pds: slowFirst, store, sink },
      { firstRun: 'backlog', pageSize: 2, concurrency: 2 },
    );

    // assess
    expect(report.emitted).toBe(4);
    expect(order.indexOf('start 3')).toBeLessThan(order.indexOf('end 1'));
    expect(maxInFlight).toBe(2);
    expect(sink.requests).toEqual([2, 2]);
    expect(emittedIds(sink)).toEqual([1, 2, 3, 4]);
  });

  it('carries the parsed document and the CIC summary, or the parse error and the raw text', async () => {
    // prepare
    const { pds, sink, deps } = setup();
    pds.addAsset(CIC_28, { primaryKey: '00614141123476' });
    pds.addAsset('<catalogueItemConfirmation><gtin>1</gtin></catalogue>');

    // act
    const report = await pollMessagingAssets(deps, { firstRun: 'backlog' });

    // assess
    const [good, broken] = sink.dataOf('pds.messaging-asset.received');
    expect(good?.cic?.[0]).toMatchObject({ gdsnVersion: '2.8', state: 'ACCEPTED', gtin: '00614141123476' });
    expect(good?.primaryKey).toBe('00614141123476');
    expect(broken?.parseError?.code).toBe('MALFORMED');
    expect(broken?.rawXml).toBe('<catalogueItemConfirmation><gtin>1</gtin></catalogue>');
    expect(report.parseErrors).toBe(1);
  });

  it('reports how far the checkpoint lags behind: the age of the oldest asset still to pass, 0 once caught up', async () => {
    // prepare: three assets created ten, five and one minute ago; the second cannot be fetched
    const { pds, deps } = setup();
    const now = new Date('2026-01-05T12:00:00Z');
    for (const minutes of [10, 5, 1]) {
      pds.addAsset(SYNCHRONISED, { createdAt: now.getTime() - minutes * 60_000 });
    }
    pds.failAsset.set(2, 'server');

    // act
    const stuck = await pollMessagingAssets(deps, { firstRun: 'backlog', now: () => now });
    pds.failAsset.delete(2);
    const caughtUp = await pollMessagingAssets(deps, { firstRun: 'backlog', now: () => now });

    // assess
    expect(stuck.checkpointAgeSeconds).toBe(5 * 60);
    expect(caughtUp.checkpointAgeSeconds).toBe(0);
  });

  it('goes on past an asset whose fetch fails and fetches it again on the next run', async () => {
    // prepare
    const { pds, sink, store, deps } = setup(5);
    pds.failAsset.set(3, 'server');

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog' });
    pds.failAsset.delete(3);
    const second = await pollMessagingAssets(deps, { firstRun: 'backlog' });

    // assess
    expect(first).toMatchObject({ emitted: 4, failed: 1, retryPending: 1 });
    expect(second).toMatchObject({ emitted: 1, failed: 0, retryPending: 0 });
    expect(emittedIds(sink)).toEqual([1, 2, 4, 5, 3]);
    expect((await storedCheckpoint(store)).retry).toEqual([]);
  });

  it('drops a failed asset from the retry list once the PDS no longer lists it', async () => {
    // prepare
    const { pds, deps } = setup(3);
    pds.failAsset.set(2, 'missing');
    await pollMessagingAssets(deps, { firstRun: 'backlog' });

    // act
    pds.assets.delete(2);
    const report = await pollMessagingAssets(deps, { firstRun: 'backlog' });

    // assess
    expect(report).toMatchObject({ gone: 1, retryPending: 0, emitted: 0 });
  });

  it('emits an asset that shows up late at any distance below the newest, once, with its own id', async () => {
    // prepare: 6000 assets emitted; then assets 3 and 4567 turn up (the PDS listed them late)
    const { pds, sink, deps } = setup();
    for (let id = 1; id <= 6000; id++) if (id !== 3 && id !== 4567) pds.addAsset('<a/>', { id });
    await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 1000 });
    sink.events.length = 0;

    // act
    pds.addAsset(SYNCHRONISED, { id: 4567 });
    pds.addAsset(SYNCHRONISED, { id: 3 });
    const late = await pollMessagingAssets(deps);
    const again = await pollMessagingAssets(deps);

    // assess
    expect(late.emitted).toBe(2);
    expect(emittedIds(sink)).toEqual([3, 4567]);
    expect(sink.events.map((event) => event.id)).toEqual([
      eventId('pds.messaging-asset.received', [3]),
      eventId('pds.messaging-asset.received', [4567]),
    ]);
    expect(again.emitted).toBe(0);
    expect(again.emittedRanges).toBe(1);
  });

  it('carries a version-1 checkpoint over: nothing at or below its floor again, late ones above it and retries go on', async () => {
    // prepare: floor 5, 7 seen above it, 6 waiting for a retry; the PDS lists 1..8
    const { pds, sink, store, deps } = setup(8);
    await store.create(MESSAGING_ASSETS_CHECKPOINT, {
      version: 1,
      floor: 5,
      highestId: 7,
      seen: [7],
      retry: [{ id: 6, attempts: 1, firstFailedAt: '2026-01-05T08:00:00.000Z', lastError: '503' }],
      updatedAt: '2026-01-05T08:00:00.000Z',
    });

    // act
    const report = await pollMessagingAssets(deps);
    pds.addAsset(SYNCHRONISED, { id: 0 }); // below the old floor, never listed before: a late asset
    const later = await pollMessagingAssets(deps);

    // assess
    expect(emittedIds(sink)).toEqual([6, 8, 0]);
    expect(report).toMatchObject({ emitted: 2, recordedAsDone: 5, retryPending: 0 });
    expect(later.emitted).toBe(1);
    const stored = await storedCheckpoint(store);
    expect(stored.legacyFloor).toBeNull();
    expect([...stored.emitted.ranges()]).toEqual([[0, 8]]);
  });

  it('takes at most maxAssetsPerRun new assets a run and the rest on the next', async () => {
    // prepare
    const { sink, deps } = setup(25);

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog', maxAssetsPerRun: 10 });
    const second = await pollMessagingAssets(deps, { maxAssetsPerRun: 10 });
    const third = await pollMessagingAssets(deps, { maxAssetsPerRun: 10 });

    // assess
    expect([first.emitted, first.remaining, second.emitted, third.emitted, third.remaining]).toEqual([
      10, 15, 10, 5, 0,
    ]);
    expect(emittedIds(sink)).toEqual(Array.from({ length: 25 }, (_, index) => index + 1));
  });

  it('stops without recording anything when every fetch of a page fails for a PDS-wide reason', async () => {
    // prepare
    const { pds, sink, store, deps } = setup(4);
    for (const id of [1, 2, 3, 4]) pds.failAsset.set(id, 'server');

    // act
    const report = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 2 });

    // assess
    expect(report).toMatchObject({
      stopped: 'pds-unavailable',
      emitted: 0,
      failed: 2,
      remaining: 4,
      retryPending: 0,
    });
    // The first page, and at most the next one fetched ahead; never the whole backlog.
    expect(pds.calls.filter((call) => call.startsWith('asset:')).length).toBeLessThanOrEqual(4);
    expect(sink.events).toEqual([]);
    // Only the pages in flight were written down while they were fetched; nothing is left of them.
    expect((await store.get(MESSAGING_ASSETS_CHECKPOINT))?.value).toMatchObject({
      emitted: [],
      retry: [],
      highestId: null,
    });
    expect((await store.get(MESSAGING_ASSETS_CHECKPOINT))?.value).not.toHaveProperty('inFlight');
  });

  it('does not record events SQS refused, and sends them again on the next run', async () => {
    // prepare
    const { sink, deps } = setup(4);
    sink.refuse = (event) => event.subject === 'messaging-asset/3';

    // act
    const first = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 2 });
    sink.refuse = () => false;
    const second = await pollMessagingAssets(deps, { firstRun: 'backlog', pageSize: 2 });

    // assess
    expect(first).toMatchObject({ stopped: 'publish-failed', emitted: 3, unpublished: 1, remaining: 1 });
    expect(second.emitted).toBe(1);
    expect(emittedIds(sink)).toEqual([1, 2, 4, 3]);
  });

  it('emits an asset whose fetch fails on consecutive runs with messageError once the failure limit is reached, and passes it', async () => {
    // prepare: asset 2 fails for itself on every run (404 while listed: not a PDS-wide failure, so it
    // counts even on runs where it is the only asset fetched)
    const { pds, sink, store, deps } = setup(3);
    pds.failAsset.set(2, 'missing');
    const options = { firstRun: 'backlog' as const, failureLimit: 3 };

    // act
    const runs = [];
    for (let run = 0; run < 4; run++) runs.push(await pollMessagingAssets(deps, options));

    // assess
    expect(runs.map((report) => report.retryPending)).toEqual([1, 1, 0, 0]);
    expect(runs.map((report) => report.emittedAsFailed)).toEqual([0, 0, 1, 0]);
    expect(emittedIds(sink)).toEqual([1, 3, 2]);
    const passed = sink.dataOf('pds.messaging-asset.received')[2];
    expect(passed?.document).toBeUndefined();
    expect(passed?.messageError).toMatchObject({ name: 'PdsNotFoundError', status: 404, failedRuns: 3 });
    expect(passed?.messageError?.message).toMatch(/not found.*failed on 3 consecutive runs/);
    expect(sink.events[2]?.id).toBe(eventId('pds.messaging-asset.received', [2]));
    expect((await storedCheckpoint(store)).retry).toEqual([]);
  });

  it('counts a run that dies on an asset (out of memory) as its failed run and passes it at the limit, blaming only it', async () => {
    // prepare: fetching asset 2 kills the process: its answer never comes and the run never goes on,
    // exactly as a run that died (nothing after that point runs, nothing is caught)
    const { pds, sink, store, deps } = setup(4);
    let killerFetches = 0;
    const original = pds.getMessagingAsset.bind(pds);
    pds.getMessagingAsset = (id: number) => {
      if (id !== 2) return original(id);
      killerFetches++;
      return new Promise<string>(() => {});
    };
    const options = { firstRun: 'backlog' as const, failureLimit: 3 };
    const runUntilDeath = async (deaths: number) => {
      void pollMessagingAssets(deps, options);
      await vi.waitFor(() => expect(killerFetches).toBe(deaths));
    };

    // act: three runs die on asset 2; the fourth passes it without fetching it
    await runUntilDeath(1);
    await runUntilDeath(2);
    await runUntilDeath(3);
    const report = await pollMessagingAssets(deps, options);

    // assess
    expect(killerFetches).toBe(3);
    expect(report).toMatchObject({ emittedAsFailed: 1, retryPending: 0 });
    expect(emittedIds(sink).sort()).toEqual([1, 2, 3, 4]);
    const passed = sink.dataOf('pds.messaging-asset.received').find((data) => data.messagingAssetId === 2);
    expect(passed?.messageError).toMatchObject({ name: 'PollInterruptedError', failedRuns: 3 });
    // The assets that shared its page were proven alone and emitted whole, never passed.
    for (const data of sink.dataOf('pds.messaging-asset.received')) {
      if (data.messagingAssetId !== 2) expect(data.messageError).toBeUndefined();
    }
    const checkpoint = await storedCheckpoint(store);
    expect(checkpoint.retry).toEqual([]);
    expect(checkpoint.inFlight).toEqual([]);
  });

  it('does not count a run that failed alive (a sink error) as interrupted', async () => {
    // prepare
    const { sink, store, deps } = setup(2);
    const failing = {
      publish: () => Promise.reject(new Error('misconfigured queue')),
    } as unknown as RecordingSink;

    // act
    await expect(pollMessagingAssets({ ...deps, sink: failing }, { firstRun: 'backlog' })).rejects.toThrow(
      'misconfigured queue',
    );
    const report = await pollMessagingAssets(deps, { firstRun: 'backlog' });

    // assess
    expect(report).toMatchObject({ emitted: 2, retryPending: 0 });
    expect(emittedIds(sink)).toEqual([1, 2]);
    expect((await storedCheckpoint(store)).retry).toEqual([]);
  });

  it('goes on past an event SQS refuses as invalid, and passes its asset with messageError at the failure limit', async () => {
    // prepare: SQS refuses the ordinary event of asset 2 as the sender's fault, on every run
    const { sink, store, deps } = setup(4);
    sink.refuseAsInvalid = true;
    sink.refuse = (event) =>
      event.type === 'pds.messaging-asset.received' &&
      event.subject === 'messaging-asset/2' &&
      event.data.messageError === undefined;
    const options = { firstRun: 'backlog' as const, pageSize: 2, failureLimit: 2 };

    // act
    const first = await pollMessagingAssets(deps, options);
    const checkpointAfterFirst = await storedCheckpoint(store);
    const second = await pollMessagingAssets(deps, options);
    const third = await pollMessagingAssets(deps, options);

    // assess
    expect(first).toMatchObject({ emitted: 3, failed: 1, retryPending: 1, unpublished: 0 });
    expect(first.stopped).toBeUndefined();
    expect(checkpointAfterFirst.retry).toMatchObject([
      { id: 2, attempts: 1, lastError: 'SQS refused the event: InvalidMessageContents: refused by the test' },
    ]);
    expect(second).toMatchObject({ emitted: 1, emittedAsFailed: 1, retryPending: 0 });
    expect(third.emitted).toBe(0);
    expect(emittedIds(sink)).toEqual([1, 3, 4, 2]);
    expect(sink.dataOf('pds.messaging-asset.received')[3]?.messageError).toMatchObject({
      name: 'InvalidMessageContents',
      failedRuns: 2,
    });
  });

  it('passes nothing when SQS refuses whole requests (permissions), however often', async () => {
    // prepare
    const { sink, store, deps } = setup(3);
    sink.refuseWholeRequest = true;
    sink.refuse = () => true;
    const options = { firstRun: 'backlog' as const, failureLimit: 1 };

    // act
    const first = await pollMessagingAssets(deps, options);
    const second = await pollMessagingAssets(deps, options);

    // assess
    for (const report of [first, second]) {
      expect(report).toMatchObject({ stopped: 'publish-failed', unpublished: 3, emittedAsFailed: 0 });
    }
    expect(sink.events).toEqual([]);
    expect((await storedCheckpoint(store)).retry).toEqual([]);
  });

  it('sends a page again with identical ids after a crash between publish and checkpoint', async () => {
    // prepare
    const pds = new FakePds();
    for (let index = 0; index < 3; index++) pds.addAsset(SYNCHRONISED);
    let crash = true;
    let writes = 0;
    const store = new MemoryStateStore({
      beforeOperation: (operation) => {
        if (operation.key !== MESSAGING_ASSETS_CHECKPOINT || operation.kind === 'get') return;
        // The first write records the page in flight; the one after the publish fails.
        if (crash && ++writes > 1) throw new Error('crash before the checkpoint');
      },
    });
    const sink = new RecordingSink();

    // act
    await expect(pollMessagingAssets({ pds, store, sink }, { firstRun: 'backlog' })).rejects.toThrow('crash');
    crash = false;
    await pollMessagingAssets({ pds, store, sink }, { firstRun: 'backlog' });
    await pollMessagingAssets({ pds, store, sink }, { firstRun: 'backlog' });

    // assess
    const ids = sink.events.map((event) => event.id);
    const expected = [1, 2, 3].map((id) => eventId('pds.messaging-asset.received', [id]));
    expect(ids).toEqual([...expected, ...expected]);
  });

  it('starts no new page after the deadline and leaves the rest for the next run', async () => {
    // prepare
    const { deps } = setup(5);

    // act
    const report = await pollMessagingAssets(deps, {
      firstRun: 'backlog',
      pageSize: 2,
      deadline: Date.now() - 1,
    });

    // assess
    expect(report).toMatchObject({ stopped: 'deadline', emitted: 0, remaining: 5 });
  });

  it('refuses to go on when another run changed the checkpoint meanwhile', async () => {
    // prepare
    const { pds, store, sink } = setup(2);
    await pollMessagingAssets({ pds, store, sink }, { firstRun: 'backlog' });
    pds.addAsset(SYNCHRONISED);
    let raced = false;
    const racing = new MemoryStateStore({
      beforeOperation: async (operation) => {
        if (!raced && operation.kind === 'update') {
          raced = true;
          const current = await racing.get<MessagingAssetCheckpoint>(MESSAGING_ASSETS_CHECKPOINT);
          if (current) await racing.update(MESSAGING_ASSETS_CHECKPOINT, { ...current.value }, current.etag);
        }
      },
    });
    await racing.create(MESSAGING_ASSETS_CHECKPOINT, (await store.get(MESSAGING_ASSETS_CHECKPOINT))?.value);

    // act / assess
    await expect(pollMessagingAssets({ pds, store: racing, sink }, {})).rejects.toThrow(
      /changed by someone else/,
    );
  });
});
