import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IngestInProgressError, ObjectSourceError } from '../../packages/bridge/src/ingest/errors.ts';
import { countIndexes } from '../../packages/bridge/src/ingest/index-ranges.ts';
import { type IngestObjectDeps, ingestObject } from '../../packages/bridge/src/ingest/ingest-object.ts';
import { ingestProgressKey } from '../../packages/bridge/src/ingest/keys.ts';
import { MemoryObjectTagger } from '../../packages/bridge/src/ingest/memory-tagger.ts';
import type { ObjectRef, ObjectSource, OpenedObject } from '../../packages/bridge/src/ingest/ports.ts';
import type { IngestProgressRecord } from '../../packages/bridge/src/ingest/progress.ts';
import type { ObjectWriteEvent } from '../../packages/bridge/src/ingest/s3-event.ts';
import {
  PdsBadRequestError,
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsRateLimitedError,
  PdsServerError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { ImportRequest } from '../../packages/bridge/src/pds/types.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { TrafficCountingStore } from '../helpers/state-traffic.ts';

const BUCKET = 'drops';
const UPLOAD_LINE = { method: 'POST', path: '/api/v1/gatherings' };
const IMPORT_LINE = { method: 'POST', path: '/api/v1/imports' };

/** Objects in memory; an ETag condition that no longer holds fails the way S3's If-Match does. */
class MemorySource implements ObjectSource {
  readonly objects = new Map<string, { body: Buffer; etag: string; contentType?: string }>();
  opens = 0;

  put(key: string, body: string, etag: string, contentType?: string): void {
    this.objects.set(key, { body: Buffer.from(body), etag, ...(contentType ? { contentType } : {}) });
  }

  async open(ref: ObjectRef): Promise<OpenedObject> {
    this.opens += 1;
    const object = this.objects.get(ref.key);
    if (!object) throw new ObjectSourceError('gone', ref, 'the object no longer exists (NoSuchKey)', false);
    if (ref.etag && ref.etag !== object.etag) {
      throw new ObjectSourceError(
        'superseded',
        ref,
        'the object no longer has the ETag of the notification',
        false,
      );
    }
    return {
      stream: Readable.from([object.body]),
      size: object.body.length,
      ...(object.contentType ? { contentType: object.contentType } : {}),
    };
  }
}

function setup(options: { store?: StateStore; now?: () => number; pds?: FakePds } = {}) {
  const pds = options.pds ?? new FakePds();
  const source = new MemorySource();
  const events = new RecordingSink();
  const tagger = new MemoryObjectTagger();
  const store = options.store ?? new MemoryStateStore();
  const deps = (owner = 'delivery-1'): IngestObjectDeps => ({
    pds,
    store,
    events,
    source,
    tagger,
    owner,
    leaseMs: 60_000,
    ...(options.now ? { now: options.now } : {}),
  });
  return { pds, source, events, tagger, store, deps };
}

function write(key: string, etag: string, extra: Partial<ObjectWriteEvent> = {}): ObjectWriteEvent {
  return { bucket: BUCKET, key, etag, sequencer: '00A1', size: 0, eventName: 'ObjectCreated:Put', ...extra };
}

async function recordOf(store: StateStore, w: ObjectWriteEvent): Promise<IngestProgressRecord | undefined> {
  return (await store.get<IngestProgressRecord>(ingestProgressKey(w)))?.value;
}

describe('ingestObject', () => {
  it('streams a CSV into one gathering, imports it, reports it and tags the object next to its own tags', async () => {
    // prepare
    const { pds, source, events, tagger, store, deps } = setup();
    source.put('in/Q1 items.csv', 'primaryKey__,name\n1,Water\n', 'e1', 'binary/octet-stream');
    tagger.setTags(BUCKET, 'in/Q1 items.csv', { team: 'buying' });
    const w = write('in/Q1 items.csv', 'e1');

    // act
    const outcome = await ingestObject(w, deps());

    // assess
    expect(outcome).toMatchObject({
      status: 'imported',
      gatheringKey: 'g-1',
      entries: 1,
      importsStarted: 1,
      resumed: false,
    });
    expect(pds.uploads).toEqual([
      {
        fileName: 'Q1 items.csv',
        contentType: 'text/csv',
        bytes: Buffer.from('primaryKey__,name\n1,Water\n'),
      },
    ]);
    expect(pds.imports).toEqual([{ gatheringKey: 'g-1', path: 'Q1 items.csv' }]);
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({
      type: 'pds.ingest.completed',
      subject: 's3://drops/in/Q1 items.csv',
      data: {
        bucket: BUCKET,
        key: 'in/Q1 items.csv',
        size: 26,
        gatheringKey: 'g-1',
        entriesImported: [{ path: 'Q1 items.csv', assetKey: 'g-1-a0' }],
      },
    });
    expect(tagger.tagsOf(BUCKET, 'in/Q1 items.csv')).toEqual({
      team: 'buying',
      'pds-gathering-key': 'g-1',
      'pds-ingest-outcome': 'imported',
    });
    expect(await recordOf(store, w)).toMatchObject({ status: 'done', outcome: 'imported', leaseUntil: 0 });
  });

  it('imports every member of a ZIP exactly once', async () => {
    const { pds, source, events, deps } = setup();
    source.put('drops/batch.zip', 'zip-bytes', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv', 'nested/c.json']);

    const outcome = await ingestObject(write('drops/batch.zip', 'z1'), deps());

    expect(outcome).toMatchObject({ status: 'imported', entries: 3, importsStarted: 3 });
    expect(pds.imports.map((i) => i.path)).toEqual(['batch/a.csv', 'batch/b.csv', 'batch/nested/c.json']);
    expect(
      events.events[0]?.type === 'pds.ingest.completed' && events.events[0].data.entriesImported,
    ).toHaveLength(3);
  });

  it('does nothing for a duplicate notification of a finished write', async () => {
    const { pds, source, events, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    const w = write('items.csv', 'e1');
    await ingestObject(w, deps('first'));

    const again = await ingestObject({ ...w }, deps('second'));

    expect(again).toMatchObject({ status: 'duplicate', previous: 'imported' });
    expect(pds.uploads).toHaveLength(1);
    expect(pds.imports).toHaveLength(1);
    expect(events.events).toHaveLength(1);
  });

  it('imports an identical file dropped twice twice, but one write notified twice once', async () => {
    const { pds, source, deps } = setup();
    source.put('items.csv', 'same', 'e1');

    await ingestObject(write('items.csv', 'e1', { sequencer: '00A1' }), deps());
    await ingestObject(write('items.csv', 'e1', { sequencer: '00A1' }), deps());
    await ingestObject(write('items.csv', 'e1', { sequencer: '00B7' }), deps());

    expect(pds.uploads).toHaveLength(2);
    expect(pds.imports).toHaveLength(2);
  });

  it('resumes after a crash between two imports: uploads nothing again and imports only what is left', async () => {
    // prepare: the process dies right after the PDS accepted the first import and it was recorded
    const { pds, source, store, deps } = setup();
    source.put('batch.zip', 'zip', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv', 'c.csv']);
    pds.importFault = (_request, index) => (index === 1 ? new Error('process killed') : undefined);
    const w = write('batch.zip', 'z1');
    await expect(ingestObject(w, deps('crashed'))).rejects.toThrow('process killed');

    // act
    pds.importFault = undefined;
    const outcome = await ingestObject(w, deps('retry'));

    // assess
    expect(outcome).toMatchObject({ status: 'imported', importsStarted: 2, bytesUploaded: 0, resumed: true });
    expect(pds.uploads).toHaveLength(1);
    expect(source.opens).toBe(1);
    expect(pds.imports.map((i) => i.path)).toEqual(['batch/a.csv', 'batch/b.csv', 'batch/c.csv']);
    expect(await recordOf(store, w)).toMatchObject({ status: 'done', attempts: 2, owner: 'retry' });
  });

  it('repeats exactly one import when the process dies after the PDS accepted it but before it was recorded', async () => {
    // prepare: the state write recording the second import never happens
    let failNextRecord = false;
    let entryUpdates = 0;
    const store = new MemoryStateStore({
      beforeOperation: async ({ kind }) => {
        if (kind !== 'update') return;
        entryUpdates += 1;
        // updates: 1 uploaded, 2 first import, 3 second import
        if (failNextRecord && entryUpdates === 3)
          throw new Error('process killed before the record was written');
      },
    });
    const { pds, source, deps } = setup({ store });
    source.put('batch.zip', 'zip', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv']);
    failNextRecord = true;
    const w = write('batch.zip', 'z1');
    await expect(ingestObject(w, deps('crashed'))).rejects.toThrow('process killed');
    failNextRecord = false;

    // act
    await ingestObject(w, deps('retry'));

    // assess: the documented window, and nothing more
    expect(pds.imports.map((i) => i.path)).toEqual(['batch/a.csv', 'batch/b.csv', 'batch/b.csv']);
    expect(pds.uploads).toHaveLength(1);
  });

  it('lets only one of two concurrent deliveries upload; the other is told to come back later', async () => {
    // prepare
    const { pds, source, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    let open: () => void = () => undefined;
    pds.uploadGate = new Promise((resolve) => {
      open = resolve;
    });
    const w = write('items.csv', 'e1');

    // act
    const first = ingestObject(w, deps('first'));
    const second = ingestObject({ ...w }, deps('second'));
    const secondResult = await second.catch((error: unknown) => error);
    open();
    const firstResult = await first;

    // assess
    expect(secondResult).toBeInstanceOf(IngestInProgressError);
    expect((secondResult as IngestInProgressError).retryable).toBe(true);
    expect(firstResult.status).toBe('imported');
    expect(pds.uploads).toHaveLength(1);
    expect(pds.imports).toHaveLength(1);
  });

  it('takes over a claim whose lease ran out, and refuses one that is still held', async () => {
    // prepare: a delivery claimed the write and died
    let clock = 1_000_000;
    const { pds, source, store, deps } = setup({ now: () => clock });
    source.put('items.csv', 'x', 'e1');
    const w = write('items.csv', 'e1');
    await store.create(ingestProgressKey(w), {
      bucket: BUCKET,
      key: 'items.csv',
      etag: 'e1',
      sequencer: '00A1',
      status: 'claimed',
      owner: 'dead',
      leaseUntil: clock + 30_000,
      attempts: 1,
      claimedAt: clock,
      updatedAt: clock,
    } satisfies IngestProgressRecord);

    // act + assess: while the lease holds
    await expect(ingestObject(w, deps('early'))).rejects.toBeInstanceOf(IngestInProgressError);
    expect(pds.uploads).toHaveLength(0);

    // act + assess: after it ran out
    clock += 30_001;
    const outcome = await ingestObject(w, deps('late'));
    expect(outcome).toMatchObject({ status: 'imported', resumed: true });
    expect(pds.uploads).toHaveLength(1);
  });

  it('gives the claim back after a transient PDS failure so the retry proceeds at once', async () => {
    const { pds, source, store, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.uploadFault = () => new PdsServerError(503, UPLOAD_LINE, 'unavailable');
    const w = write('items.csv', 'e1');

    await expect(ingestObject(w, deps('first'))).rejects.toMatchObject({
      name: 'PdsServerError',
      retryable: true,
    });
    const released = await recordOf(store, w);
    pds.uploadFault = undefined;
    const outcome = await ingestObject(w, deps('retry'));

    expect(released).toMatchObject({
      status: 'claimed',
      leaseUntil: 0,
      lastError: expect.stringContaining('503'),
    });
    expect(outcome.status).toBe('imported');
    expect(pds.uploads).toHaveLength(1);
  });

  it('treats 429 on an import as transient and keeps the imports already done', async () => {
    const { pds, source, deps } = setup();
    source.put('batch.zip', 'zip', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv']);
    pds.importFault = (_r, index) =>
      index === 1 ? new PdsRateLimitedError(429, IMPORT_LINE, '', 1000) : undefined;
    const w = write('batch.zip', 'z1');

    await expect(ingestObject(w, deps())).rejects.toBeInstanceOf(PdsRateLimitedError);
    pds.importFault = undefined;
    await ingestObject(w, deps('retry'));

    expect(pds.imports.map((i) => i.path)).toEqual(['batch/a.csv', 'batch/b.csv']);
  });

  it('ends with a failed event and no retry when the object was deleted before processing', async () => {
    const { pds, events, tagger, store, deps } = setup();
    const w = write('gone.csv', 'e1');

    const outcome = await ingestObject(w, deps());
    const again = await ingestObject({ ...w }, deps('redelivery'));

    expect(outcome).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('deleted before it could be ingested'),
    });
    expect(again).toMatchObject({ status: 'duplicate', previous: 'failed' });
    expect(events.events).toHaveLength(1);
    expect(events.events[0]).toMatchObject({
      type: 'pds.ingest.failed',
      data: { key: 'gone.csv', code: 'gone', retryable: false },
    });
    expect(events.events[0]?.data).not.toHaveProperty('pdsStatus');
    expect(tagger.calls).toHaveLength(0);
    expect(pds.uploads).toHaveLength(0);
    expect(await recordOf(store, w)).toMatchObject({ status: 'failed', outcome: 'failed', code: 'gone' });
  });

  it('reports a write replaced since its notification as superseded, without tagging the newer object', async () => {
    const { source, events, tagger, store, deps } = setup();
    source.put('items.csv', 'newer', 'e2');
    const w = write('items.csv', 'e1');

    const outcome = await ingestObject(w, deps());

    expect(outcome).toMatchObject({
      status: 'superseded',
      reason: expect.stringContaining('replaced by a newer upload'),
    });
    expect(events.events[0]).toMatchObject({
      type: 'pds.ingest.failed',
      data: { code: 'superseded', retryable: false },
    });
    expect(tagger.calls).toHaveLength(0);
    expect(await recordOf(store, w)).toMatchObject({
      status: 'failed',
      outcome: 'superseded',
      code: 'superseded',
    });
  });

  it('ends with a failed event carrying the PDS status when the PDS refuses an import with a 4xx', async () => {
    const { pds, source, events, tagger, deps } = setup();
    source.put('batch.zip', 'zip', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv']);
    pds.importFault = (_r, index) =>
      index === 1 ? new PdsBadRequestError(400, IMPORT_LINE, 'bad file') : undefined;

    const outcome = await ingestObject(write('batch.zip', 'z1'), deps());

    expect(outcome).toMatchObject({ status: 'failed', pdsStatus: 400 });
    expect(events.events[0]).toMatchObject({
      type: 'pds.ingest.failed',
      data: {
        code: 'rejected',
        pdsStatus: 400,
        retryable: false,
        reason: expect.stringContaining('1 of 2 entries were imported before'),
      },
    });
    expect(tagger.tagsOf(BUCKET, 'batch.zip')).toEqual({
      'pds-gathering-key': 'g-1',
      'pds-ingest-outcome': 'failed',
      'pds-ingest-code': 'rejected',
    });
  });

  it('emits the event again with the same id when publishing failed, without importing again', async () => {
    const { pds, source, events, store, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    events.failNext(1, () => Object.assign(new Error('SQS refused the batch'), { retryable: true }));
    const w = write('items.csv', 'e1');

    await expect(ingestObject(w, deps())).rejects.toThrow('SQS refused the batch');
    expect(await recordOf(store, w)).toMatchObject({ status: 'uploaded', leaseUntil: 0 });
    await ingestObject(w, deps('retry'));

    expect(pds.imports).toHaveLength(1);
    expect(events.events).toHaveLength(1);
    expect(events.events[0]?.type).toBe('pds.ingest.completed');
  });

  it('gives every event of one write the same id, and different writes different ids', async () => {
    const { source, events, deps } = setup();
    source.put('a.csv', 'x', 'e1');
    source.put('b.csv', 'y', 'e2');

    await ingestObject(write('a.csv', 'e1'), deps());
    await ingestObject(write('b.csv', 'e2'), deps());

    expect(events.events[0]?.id).not.toBe(events.events[1]?.id);
  });

  it("leaves the owner's ten tags alone and still completes when the ingest tags do not fit", async () => {
    const { source, tagger, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    const own = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`t${i}`, 'v']));
    tagger.setTags(BUCKET, 'items.csv', own);

    const outcome = await ingestObject(write('items.csv', 'e1'), deps());

    expect(outcome).toMatchObject({ status: 'imported', tag: { tagged: false } });
    expect(tagger.tagsOf(BUCKET, 'items.csv')).toEqual(own);
  });

  it('records a write whose tagging threw as imported and done, so no retry imports it again', async () => {
    // prepare
    const { pds, source, events, store, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    const w = write('items.csv', 'e1');
    const throwing = {
      async tag(object: ObjectRef): Promise<never> {
        throw new ObjectSourceError(
          'unavailable',
          object,
          'tagging the object failed (SlowDown (503))',
          true,
        );
      },
    };

    // act
    const outcome = await ingestObject(w, { ...deps(), tagger: throwing });

    // assess
    expect(outcome).toMatchObject({
      status: 'imported',
      tag: { tagged: false, reason: expect.stringContaining('SlowDown') },
    });
    expect(await recordOf(store, w)).toMatchObject({ status: 'done', outcome: 'imported' });
    expect(events.events.map((event) => event.type)).toEqual(['pds.ingest.completed']);
    expect(pds.imports).toHaveLength(1);
  });

  it('still ends a permanently failed write as failed when tagging it throws', async () => {
    const { pds, source, store, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.uploadFault = () => new PdsBadRequestError(400, UPLOAD_LINE, 'bad file');
    const w = write('items.csv', 'e1');
    const throwing = {
      async tag(): Promise<never> {
        throw new Error('socket hang up');
      },
    };

    const outcome = await ingestObject(w, { ...deps(), tagger: throwing });

    expect(outcome).toMatchObject({ status: 'failed', pdsStatus: 400, tag: { tagged: false } });
    expect(await recordOf(store, w)).toMatchObject({ status: 'failed' });
  });

  it('tags the version of a versioned object', async () => {
    const { source, tagger, deps } = setup();
    source.put('items.csv', 'x', 'e1');

    await ingestObject(write('items.csv', 'e1', { versionId: 'v7' }), deps());

    expect(tagger.tagsOf(BUCKET, 'items.csv', 'v7')).toMatchObject({ 'pds-ingest-outcome': 'imported' });
  });

  it('fails permanently when the PDS lists no entries for the upload', async () => {
    const { pds, source, events, deps } = setup();
    source.put('empty.zip', 'zip', 'z1');
    pds.archives.set('empty.zip', []);

    const outcome = await ingestObject(write('empty.zip', 'z1'), deps());

    expect(outcome).toMatchObject({ status: 'failed', reason: expect.stringContaining('lists no entries') });
    expect(events.events[0]).toMatchObject({ type: 'pds.ingest.failed', data: { code: 'no-entries' } });
  });

  it('writes no tags when tagging is off', async () => {
    const { source, tagger, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    const { tagger: _off, ...withoutTagger } = deps();

    const outcome = await ingestObject(write('items.csv', 'e1'), withoutTagger);

    expect(outcome.status).toBe('imported');
    expect(outcome).not.toHaveProperty('tag');
    expect(tagger.calls).toHaveLength(0);
  });
});

describe('ingestObject failure codes', () => {
  it('codes an object in an archive storage class as archived', async () => {
    // prepare
    const { source, events, deps } = setup();
    const w = write('cold.csv', 'e1');
    source.open = async (ref) => {
      throw new ObjectSourceError('archived', ref, 'the object is in GLACIER; restore it first', false);
    };

    // act
    await ingestObject(w, deps());

    // assess
    expect(events.events[0]).toMatchObject({ type: 'pds.ingest.failed', data: { code: 'archived' } });
  });

  it.each([
    ['unauthorized', 401],
    ['unauthorized', 403],
  ])('codes a PDS refusing the credentials as %s (%i)', async (code, status) => {
    // prepare
    const { pds, source, events, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.uploadFault = () => new PdsUnauthorizedError(status, UPLOAD_LINE, '');

    // act
    await ingestObject(write('items.csv', 'e1'), deps());

    // assess
    expect(events.events[0]).toMatchObject({ data: { code, pdsStatus: status, retryable: false } });
  });

  it('codes an upload the PDS refuses with a 4xx as rejected', async () => {
    // prepare
    const { pds, source, events, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.uploadFault = () => new PdsBadRequestError(400, UPLOAD_LINE, 'not a CSV');

    // act
    await ingestObject(write('items.csv', 'e1'), deps());

    // assess
    expect(events.events[0]).toMatchObject({ data: { code: 'rejected', pdsStatus: 400 } });
  });

  it('codes an unreadable PDS answer as invalid-answer', async () => {
    // prepare
    const { pds, source, events, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.uploadFault = () => new PdsInvalidResponseError('not JSON', UPLOAD_LINE);

    // act
    await ingestObject(write('items.csv', 'e1'), deps());

    // assess
    expect(events.events[0]).toMatchObject({ data: { code: 'invalid-answer' } });
    expect(events.events[0]?.data).not.toHaveProperty('pdsStatus');
  });

  it('codes an upload answer whose entries name several gatherings as invalid-answer', async () => {
    // prepare
    const { pds, source, events, deps } = setup();
    source.put('batch.zip', 'zip', 'z1');
    pds.archives.set('batch.zip', ['a.csv', 'b.csv']);
    const mixed: IngestObjectDeps['pds'] = {
      uploadGathering: async (request) =>
        (await pds.uploadGathering(request)).map((entry, i) => ({ ...entry, gatheringKey: `g-${i}` })),
      startImport: (request) => pds.startImport(request),
    };

    // act
    await ingestObject(write('batch.zip', 'z1'), { ...deps(), pds: mixed });

    // assess
    expect(events.events[0]).toMatchObject({
      data: { code: 'invalid-answer', reason: expect.stringContaining('more than one gatheringKey') },
    });
  });

  it('codes a request the PDS client refuses to send as internal', async () => {
    // prepare
    const { pds, source, events, deps } = setup();
    source.put('items.csv', 'x', 'e1');
    pds.importFault = () => new PdsInvalidRequestError('empty path segment', IMPORT_LINE);

    // act
    await ingestObject(write('items.csv', 'e1'), deps());

    // assess
    expect(events.events[0]).toMatchObject({ data: { code: 'internal' } });
  });
});

/** A PDS whose imports take a few milliseconds each and that tracks how many run at once. */
class SlowImportPds extends FakePds {
  importsInFlight = 0;
  maxImportsInFlight = 0;

  override async startImport(request: ImportRequest): Promise<void> {
    this.importsInFlight += 1;
    this.maxImportsInFlight = Math.max(this.maxImportsInFlight, this.importsInFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1));
      await super.startImport(request);
    } finally {
      this.importsInFlight -= 1;
    }
  }
}

function members(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `m${String(i).padStart(5, '0')}.csv`);
}

/** How many times each path was imported. */
function importCounts(pds: FakePds): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { path } of pds.imports) counts.set(path, (counts.get(path) ?? 0) + 1);
  return counts;
}

describe('ingestObject: large archives', () => {
  it('imports every member once with at most importConcurrency imports in flight', async () => {
    // prepare
    const pds = new SlowImportPds();
    const { source, events, deps } = setup({ pds });
    source.put('big.zip', 'zip', 'z1');
    pds.archives.set('big.zip', members(300));

    // act
    const outcome = await ingestObject(write('big.zip', 'z1'), { ...deps(), importConcurrency: 6 });

    // assess
    expect(outcome).toMatchObject({ status: 'imported', entries: 300, importsStarted: 300 });
    expect(pds.maxImportsInFlight).toBe(6);
    expect(importCounts(pds).size).toBe(300);
    expect(pds.imports).toHaveLength(300);
    const completed = events.events[0];
    expect(completed?.type === 'pds.ingest.completed' && completed.data.entriesImported).toHaveLength(300);
  });

  it('writes progress whose bytes grow linearly with the number of members, not with its square', async () => {
    // prepare
    async function progressBytes(count: number): Promise<{ record: number; entries: number }> {
      const pds = new FakePds();
      const store = new TrafficCountingStore(new MemoryStateStore(), (key) =>
        key.includes('/entries/') ? 'entries' : 'record',
      );
      const { source, deps } = setup({ pds, store });
      source.put('big.zip', 'zip', 'z1');
      pds.archives.set('big.zip', members(count));
      await ingestObject(write('big.zip', 'z1'), deps());
      expect(pds.imports).toHaveLength(count);
      return {
        record: store.bytesByKind.get('record') ?? 0,
        entries: store.bytesByKind.get('entries') ?? 0,
      };
    }

    // act
    const small = await progressBytes(100);
    const large = await progressBytes(1000);

    // assess: ten times the members, about ten times the bytes (the square would be a hundred)
    expect(large.entries / small.entries).toBeLessThan(11);
    expect(large.record / small.record).toBeLessThan(12);
    // and each record write stays small: a few hundred bytes per import at most
    expect(large.record / 1000).toBeLessThan(800);
  });

  it("drops the last holder's error with the first import it records, so each record write stays small", async () => {
    // prepare: a delivery gave the claim back with a long error after the upload
    const pds = new FakePds();
    const store = new TrafficCountingStore(new MemoryStateStore(), (key) =>
      key.includes('/entries/') ? 'entries' : 'record',
    );
    const { source, deps } = setup({ pds, store });
    source.put('big.zip', 'zip', 'z1');
    pds.archives.set('big.zip', members(200));
    const w = write('big.zip', 'z1');
    let failOnce = true;
    pds.importFault = () => {
      if (!failOnce) return undefined;
      failOnce = false;
      return new PdsServerError(503, IMPORT_LINE, 'x'.repeat(2000));
    };
    await expect(ingestObject(w, { ...deps('first'), importConcurrency: 1 })).rejects.toThrow();
    expect((await recordOf(store, w))?.lastError?.length).toBeGreaterThan(500);
    const before = { bytes: store.bytesByKind.get('record') ?? 0, updates: store.requests.update };

    // act
    await ingestObject(w, { ...deps('retry'), importConcurrency: 1 });

    // assess
    const bytes = (store.bytesByKind.get('record') ?? 0) - before.bytes;
    const updates = store.requests.update - before.updates;
    expect(bytes / updates).toBeLessThan(600);
    expect((await recordOf(store, w))?.lastError).toBeUndefined();
  });

  it('after a kill at any progress write, imports each member again at most once, and only up to importConcurrency of them', async () => {
    for (const killAt of [2, 5, 17, 40]) {
      // prepare: the process dies at the killAt-th record update (1 is `uploaded`)
      let updates = 0;
      let dead = false;
      const store = new MemoryStateStore({
        beforeOperation: ({ kind, key }) => {
          if (dead) throw new Error('process killed');
          if (kind !== 'update' || key.includes('/entries/')) return;
          updates += 1;
          if (updates === killAt) {
            dead = true;
            throw new Error('process killed');
          }
        },
      });
      const pds = new SlowImportPds();
      const { source, deps } = setup({ pds, store });
      source.put('big.zip', 'zip', 'z1');
      pds.archives.set('big.zip', members(120));
      const w = write('big.zip', 'z1');
      await expect(ingestObject(w, { ...deps('killed'), importConcurrency: 4 })).rejects.toThrow(
        'process killed',
      );
      dead = false;
      await store.update(
        ingestProgressKey(w),
        { ...(await recordOf(store, w)), leaseUntil: 0 },
        (await store.get(ingestProgressKey(w)))?.etag ?? '',
      );

      // act
      const outcome = await ingestObject(w, { ...deps('retry'), importConcurrency: 4 });

      // assess
      expect(outcome.status).toBe('imported');
      const counts = importCounts(pds);
      expect(counts.size).toBe(120);
      const repeated = [...counts.values()].filter((count) => count > 1);
      expect(repeated.every((count) => count === 2)).toBe(true);
      expect(repeated.length).toBeLessThanOrEqual(4);
      expect(pds.uploads).toHaveLength(1);
    }
  });

  it('after a failed import, records the imports in flight, starts no new one, and the retry imports only the rest', async () => {
    // prepare
    const pds = new SlowImportPds();
    const { source, store, deps } = setup({ pds });
    source.put('big.zip', 'zip', 'z1');
    pds.archives.set('big.zip', members(50));
    let failed = false;
    pds.importFault = (request) => {
      if (failed || !request.path.endsWith('m00010.csv')) return undefined;
      failed = true;
      return new PdsServerError(503, IMPORT_LINE, 'unavailable');
    };
    const w = write('big.zip', 'z1');
    await expect(ingestObject(w, { ...deps('first'), importConcurrency: 4 })).rejects.toMatchObject({
      retryable: true,
    });
    const afterFailure = await recordOf(store, w);

    // act
    const outcome = await ingestObject(w, { ...deps('retry'), importConcurrency: 4 });

    // assess: what the first delivery got accepted is on record; nothing imported twice
    const acceptedFirst = pds.imports.length - (outcome.status === 'imported' ? outcome.importsStarted : 0);
    expect(countIndexes(afterFailure?.importedRanges ?? [])).toBe(acceptedFirst);
    expect(acceptedFirst).toBeLessThan(50);
    expect(afterFailure).toMatchObject({ status: 'uploaded', leaseUntil: 0, entryCount: 50 });
    expect([...importCounts(pds).values()].every((count) => count === 1)).toBe(true);
    expect(importCounts(pds).size).toBe(50);
  });

  it('resumes a record of the earlier layout (entries inline with flags), importing only the rest, and carries it over', async () => {
    // prepare: a delivery before issue 20 uploaded and imported the first entry, then died
    const { pds, source, store, events, deps } = setup();
    source.put('batch.zip', 'zip', 'z1');
    const w = write('batch.zip', 'z1');
    await store.create(ingestProgressKey(w), {
      bucket: BUCKET,
      key: 'batch.zip',
      etag: 'z1',
      sequencer: '00A1',
      status: 'uploaded',
      owner: 'old',
      leaseUntil: 0,
      attempts: 1,
      claimedAt: 1,
      updatedAt: 1,
      size: 3,
      gatheringKey: 'g-old',
      entries: [
        { path: 'batch/a.csv', assetKey: 'g-old-a0', imported: true },
        { path: 'batch/b.csv', assetKey: 'g-old-a1', imported: false },
        { path: 'batch/c.csv', assetKey: 'g-old-a2', imported: false },
      ],
    } satisfies IngestProgressRecord);

    // act
    const outcome = await ingestObject(w, deps('new'));

    // assess
    expect(outcome).toMatchObject({ status: 'imported', importsStarted: 2, bytesUploaded: 0, resumed: true });
    expect(pds.uploads).toHaveLength(0);
    expect(pds.imports.map((i) => i.path)).toEqual(['batch/b.csv', 'batch/c.csv']);
    const record = await recordOf(store, w);
    expect(record).toMatchObject({ status: 'done', entryCount: 3, importedRanges: [[0, 3]] });
    expect(record?.entries).toBeUndefined();
    const completed = events.events[0];
    expect(completed?.type === 'pds.ingest.completed' && completed.data.entriesImported).toEqual([
      { path: 'batch/a.csv', assetKey: 'g-old-a0' },
      { path: 'batch/b.csv', assetKey: 'g-old-a1' },
      { path: 'batch/c.csv', assetKey: 'g-old-a2' },
    ]);
  });
});
