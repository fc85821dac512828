/**
 * `why` and `replay` read the records the flows write: ingests in flight and stalled, a messaging
 * asset failing in the checkpoint's retry list, and a failed ingest recorded before records kept its
 * failure code (skipped by replay rather than guessed).
 */
import { describe, expect, it } from 'vitest';
import { claimIngest } from '../../lib/ingest/progress.ts';
import { planReplay } from '../../lib/ops/replay.ts';
import { explain, type ObjectExplanation } from '../../lib/ops/why.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '../../lib/polling/messaging-assets.ts';
import { ingestProgressKey } from '../../lib/state/keys.ts';
import { MemoryStateStore } from '../../lib/state/memory.ts';

const write = { bucket: 'drops', key: 'in/items.csv', etag: 'e1', sequencer: '01' };

describe('why, of an ingest that has not finished', () => {
  it('is in progress while a delivery holds the claim, and stalled with its last error once it gave it back', async () => {
    // prepare
    const store = new MemoryStateStore();
    const claimed = await claimIngest(store, write, {
      owner: 'req-1/msg-1',
      leaseMs: 60_000,
      now: () => 1000,
    });
    if (claimed.kind !== 'claimed') throw new Error('not claimed');

    // act
    const during = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'in/items.csv' },
      { now: 2000 },
    )) as ObjectExplanation;
    await claimed.claim.release('PDS answered 503');
    const after = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'in/items.csv' },
      { now: 3000 },
    )) as ObjectExplanation;

    // assess
    expect(during.writes[0]).toMatchObject({ state: 'in-progress', owner: 'req-1/msg-1', events: [] });
    expect(during.next).toContain('Wait');
    expect(after.writes[0]).toMatchObject({ state: 'stalled', lastError: 'PDS answered 503', attempts: 1 });
    expect(after.next).toContain('redrive ingest');
  });
});

describe('why, of a messaging asset', () => {
  it('is failing with its failed runs and last error while it is in the retry list', async () => {
    // prepare
    const store = new MemoryStateStore();
    await store.create(MESSAGING_ASSETS_CHECKPOINT, {
      version: 1,
      floor: 10,
      highestId: 14,
      seen: [13, 14],
      retry: [
        { id: 12, attempts: 3, firstFailedAt: '2026-05-04T10:00:00.000Z', lastError: 'PDS answered 500' },
      ],
      updatedAt: '2026-05-04T10:15:00.000Z',
    });

    // act
    const failing = await explain(store, { kind: 'messaging-asset', messagingAssetId: 12 });
    const emitted = await explain(store, { kind: 'messaging-asset', messagingAssetId: 13 });
    const below = await explain(store, { kind: 'messaging-asset', messagingAssetId: 7 });

    // assess
    expect(failing).toMatchObject({
      state: 'failing',
      attempts: 3,
      lastError: 'PDS answered 500',
      events: [],
    });
    expect(emitted).toMatchObject({ state: 'emitted', events: [{ type: 'pds.messaging-asset.received' }] });
    expect(below).toMatchObject({ state: 'emitted' });
  });
});

describe('replay', () => {
  it('skips a failed ingest recorded without its failure code instead of guessing it, and leaves out unfinished ones', async () => {
    // prepare
    const store = new MemoryStateStore();
    const record = {
      ...write,
      status: 'failed',
      outcome: 'failed',
      reason: 'PDS answered 400',
      owner: 'req-1',
      leaseUntil: 0,
      attempts: 1,
      claimedAt: 1000,
      updatedAt: 2000,
    };
    await store.create(ingestProgressKey(write), record);
    const other = { ...write, sequencer: '02' };
    await store.create(ingestProgressKey(other), {
      ...record,
      ...other,
      status: 'uploaded',
      outcome: undefined,
    });

    // act
    const plan = await planReplay(store, { since: 0, until: 10_000 });

    // assess
    expect(plan.events).toEqual([]);
    expect(plan.skipped).toEqual([
      { record: ingestProgressKey(write), reason: expect.stringContaining('before failure codes were kept') },
    ]);
  });
});
