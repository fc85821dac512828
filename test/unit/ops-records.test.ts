/**
 * `why` and `replay` read the records the flows write: ingests in flight and stalled, a messaging
 * asset failing in the checkpoint's retry list, and a failed ingest recorded before records kept its
 * failure code (skipped by replay rather than guessed).
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ingestObject } from '../../packages/bridge/src/ingest/ingest-object.ts';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { claimIngest, type IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '../../packages/bridge/src/polling/messaging-assets/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { reindexActivity } from '../../packages/cli/src/ops/reindex.ts';
import { planReplay } from '../../packages/cli/src/ops/replay.ts';
import { explain, type ObjectExplanation } from '../../packages/cli/src/ops/why.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

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

describe('why, of a key the bridge saw no write of', () => {
  it('names the INGEST_PREFIX that skipped it, when the filters are known', async () => {
    const store = new MemoryStateStore();

    const answer = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'other/items.csv' },
      { filters: { prefix: 'incoming/', suffixes: [] } },
    )) as ObjectExplanation;

    expect(answer.writes).toEqual([]);
    expect(answer.next).toMatch(
      /^s3:\/\/drops\/other\/items\.csv is outside INGEST_PREFIX "incoming\/": the ingest skips such keys/,
    );
  });

  it('names the INGEST_SUFFIXES rule that skipped it', async () => {
    const answer = (await explain(
      new MemoryStateStore(),
      { kind: 'object', bucket: 'drops', key: 'incoming/notes.txt' },
      { filters: { prefix: 'incoming/', suffixes: ['.csv', '.zip'] } },
    )) as ObjectExplanation;

    expect(answer.next).toContain('is not ending in one of INGEST_SUFFIXES .csv, .zip');
  });

  it('gives the general checklist for a key the filters accept, or when they are not known', async () => {
    const store = new MemoryStateStore();
    const accepted = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'incoming/items.csv' },
      { filters: { prefix: 'incoming/' } },
    )) as ObjectExplanation;
    const unknown = (await explain(store, {
      kind: 'object',
      bucket: 'drops',
      key: 'other/items.csv',
    })) as ObjectExplanation;

    expect(accepted.next).toContain('saw no write');
    expect(unknown.next).toContain('saw no write');
  });
});

describe('why, of a key given URL-encoded as S3 notifications and consoles show it', () => {
  it('finds the writes of the decoded key and says which form matched', async () => {
    // prepare
    const store = new MemoryStateStore();
    const plusWrite = { ...write, key: 'in/my items +plus ü.csv' };
    const claimed = await claimIngest(store, plusWrite, { owner: 'r/m', leaseMs: 60_000, now: () => 1000 });
    if (claimed.kind !== 'claimed') throw new Error('not claimed');

    // act
    const encoded = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'in/my+items+%2Bplus+%C3%BC.csv' },
      { now: 2000 },
    )) as ObjectExplanation;
    const plain = (await explain(
      store,
      { kind: 'object', bucket: 'drops', key: 'in/my items +plus ü.csv' },
      { now: 2000 },
    )) as ObjectExplanation;

    // assess
    expect(encoded).toMatchObject({
      key: 'in/my items +plus ü.csv',
      keyMatched: 'url-decoded',
      keyGiven: 'in/my+items+%2Bplus+%C3%BC.csv',
    });
    expect(encoded.writes).toHaveLength(1);
    expect(plain).toMatchObject({ key: 'in/my items +plus ü.csv', keyMatched: 'as-given' });
    expect(plain.keyGiven).toBeUndefined();
    expect(plain.writes).toHaveLength(1);
  });

  it('keeps a key with a literal + as given when that key has writes', async () => {
    const store = new MemoryStateStore();
    const literal = { ...write, key: 'in/a+b.csv' };
    await claimIngest(store, literal, { owner: 'r/m', leaseMs: 60_000, now: () => 1000 });

    const answer = (await explain(store, {
      kind: 'object',
      bucket: 'drops',
      key: 'in/a+b.csv',
    })) as ObjectExplanation;

    expect(answer).toMatchObject({ key: 'in/a+b.csv', keyMatched: 'as-given' });
    expect(answer.writes).toHaveLength(1);
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

    // act: records written without the activity index (before it existed) are found once reindexed
    const unindexed = await planReplay(store, { since: 0, until: 10_000 });
    const full = await planReplay(store, { since: 0, until: 10_000, read: 'full' });
    await reindexActivity(store);
    const plan = await planReplay(store, { since: 0, until: 10_000 });

    // assess
    expect(unindexed.skipped).toEqual([]);
    expect(full).toEqual(plan);
    expect(plan.events).toEqual([]);
    expect(plan.skipped).toEqual([
      { record: ingestProgressKey(write), reason: expect.stringContaining('before failure codes were kept') },
    ]);
  });
});

describe('why and replay of an ingest, in either layout of its progress record', () => {
  /** Ingests a three-member ZIP through the real ingest, leaving a record of the current layout. */
  async function ingested(store: MemoryStateStore) {
    const pds = new FakePds();
    pds.archives.set('batch.zip', ['a.csv', 'b.csv', 'c.csv']);
    const events = new RecordingSink();
    const zip = {
      bucket: 'drops',
      key: 'batch.zip',
      etag: 'z1',
      sequencer: '01',
      size: 3,
      eventName: 'ObjectCreated:Put',
    };
    await ingestObject(zip, {
      pds,
      store,
      events,
      source: { open: async () => ({ stream: Readable.from([Buffer.from('zip')]), size: 3 }) },
      owner: 'req-1',
      leaseMs: 60_000,
    });
    return { zip, emitted: events.events[0] };
  }

  it('lists every entry as import-accepted and rebuilds the completed event with the id that was sent (current layout)', async () => {
    // prepare
    const store = new MemoryStateStore();
    const { emitted } = await ingested(store);

    // act
    const why = (await explain(store, {
      kind: 'object',
      bucket: 'drops',
      key: 'batch.zip',
    })) as ObjectExplanation;
    const plan = await planReplay(store, { since: 0, until: Date.now() + 1000 });

    // assess: one write (the entries stored beside the record are not taken for a write)
    expect(why.writes).toHaveLength(1);
    expect(why.writes[0]).toMatchObject({ state: 'import-accepted', gatheringKey: 'g-1' });
    expect(why.writes[0]?.entries).toEqual([
      { path: 'batch/a.csv', assetKey: 'g-1-a0', importAccepted: true },
      { path: 'batch/b.csv', assetKey: 'g-1-a1', importAccepted: true },
      { path: 'batch/c.csv', assetKey: 'g-1-a2', importAccepted: true },
    ]);
    expect(plan.events).toHaveLength(1);
    expect(plan.events[0]).toMatchObject({ id: emitted?.id, data: emitted?.data });
  });

  it('reads a record of the earlier layout (entries inline) the same way', async () => {
    // prepare
    const store = new MemoryStateStore();
    const { zip, emitted } = await ingested(store);
    const key = ingestProgressKey(zip);
    const current = await store.get<IngestProgressRecord>(key);
    if (!current) throw new Error('the ingest left no record');
    const { entryCount: _count, importedRanges: _ranges, ...earlier } = current.value;
    await store.update(
      key,
      {
        ...earlier,
        entries: [
          { path: 'batch/a.csv', assetKey: 'g-1-a0', imported: true },
          { path: 'batch/b.csv', assetKey: 'g-1-a1', imported: true },
          { path: 'batch/c.csv', assetKey: 'g-1-a2', imported: true },
        ],
      },
      current.etag,
    );
    for await (const stored of store.list('ingest/')) if (stored !== key) await store.delete(stored);

    // act
    const why = (await explain(store, {
      kind: 'object',
      bucket: 'drops',
      key: 'batch.zip',
    })) as ObjectExplanation;
    const plan = await planReplay(store, { since: 0, until: Date.now() + 1000 });

    // assess
    expect(why.writes[0]?.entries.map((entry) => entry.importAccepted)).toEqual([true, true, true]);
    expect(plan.events[0]).toMatchObject({ id: emitted?.id, data: emitted?.data });
  });
});
