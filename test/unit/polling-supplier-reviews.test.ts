import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfirmationLedger } from '../../packages/bridge/src/confirmations/ledger.ts';
import { listEntries } from '../../packages/bridge/src/confirmations/read.ts';
import { eventId } from '../../packages/bridge/src/events/index.ts';
import { reviewFingerprint } from '../../packages/bridge/src/polling/supplier-reviews/fingerprint.ts';
import {
  pollReviewKeys,
  pollSupplierReviews,
} from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import {
  BASE_LEVEL,
  type KeyProgress,
  progressShardOf,
  readProgress,
} from '../../packages/bridge/src/polling/supplier-reviews/review-progress.ts';
import type {
  ReviewKeyChunk,
  ReviewKeyQueue,
} from '../../packages/bridge/src/polling/supplier-reviews/review-queue.ts';
import { watchKey } from '../../packages/bridge/src/state/keys.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import type { StateStore } from '../../packages/bridge/src/state/store.ts';
import { getWatchEntry, watch, watchedKeys } from '../../packages/bridge/src/state/watch-list.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';

async function progressOf(store: StateStore, primaryKey: string): Promise<KeyProgress | undefined> {
  return (await readProgress(store, [primaryKey])).get(primaryKey);
}

const fixtures = path.resolve(import.meta.dirname, '../fixtures/gdsn');
const REVIEW_XML = readFileSync(path.join(fixtures, 'cic-3.1-review.xml'), 'utf8');
const DAY = 86_400_000;

async function setup(keys: string[]) {
  const pds = new FakePds();
  const store = new MemoryStateStore();
  const sink = new RecordingSink();
  await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
  return { pds, store, sink, deps: { pds, store, sink } };
}

class RecordingQueue implements ReviewKeyQueue {
  readonly chunks: ReviewKeyChunk[] = [];
  async send(chunks: readonly ReviewKeyChunk[]): Promise<void> {
    this.chunks.push(...chunks);
  }
}

describe('pollReviewKeys', () => {
  it('emits each new review once, with its parsed message, and records its fingerprint', async () => {
    // prepare
    const { pds, store, sink, deps } = await setup(['A1']);
    const review = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'REVIEW' });

    // act
    const first = await pollReviewKeys(deps, ['A1']);
    const second = await pollReviewKeys(deps, ['A1']);

    // assess
    expect(first).toMatchObject({ keysPolled: 1, reviewsEmitted: 1 });
    expect(second.reviewsEmitted).toBe(0);
    const [event] = sink.events;
    expect(event?.id).toBe(eventId('pds.supplier-review.received', ['A1', reviewFingerprint(review)]));
    expect(event?.subject).toBe('item/A1');
    const data = sink.dataOf('pds.supplier-review.received')[0];
    expect(data?.review).toEqual(review);
    expect(data?.cic?.[0]).toMatchObject({ gdsnVersion: '3.1', state: 'REVIEW', gtin: '00614141123469' });
    expect((await progressOf(store, 'A1'))?.seen).toEqual([reviewFingerprint(review)]);
  });

  it('tells the confirmation ledger of each emitted review, and polls the review again when the ledger failed', async () => {
    // prepare
    const { pds, store, sink } = await setup(['00614141123469']);
    const ledgerSink = new RecordingSink();
    // The fixture's confirmation was created on 2026-11-20 at 09:02:31 UTC.
    const now = () => new Date('2026-11-20T12:00:00.000Z');
    const confirmations = new ConfirmationLedger({
      store,
      sink: ledgerSink,
      deadlineMs: 48 * 3_600_000,
      now,
    });
    await confirmations.recordPublication({
      publicationId: 'p1',
      publishedAt: '2026-11-20T08:00:00.000Z',
      primaryKeys: ['00614141123469'],
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
    });
    pds.addReview('00614141123469', REVIEW_XML, { reviewStatus: 'REVIEW' });
    ledgerSink.failNext(1);

    // act
    const failed = await pollReviewKeys({ pds, store, sink, confirmations }, ['00614141123469']);
    const retried = await pollReviewKeys({ pds, store, sink, confirmations }, ['00614141123469']);

    // assess
    expect(failed).toMatchObject({ keysFailed: 1, reviewsEmitted: 1 });
    expect(retried).toMatchObject({ keysPolled: 1, reviewsEmitted: 1 });
    expect(new Set(sink.events.map((event) => event.id)).size).toBe(1);
    const { entries } = await listEntries(store);
    expect(entries.map((stored) => stored.entry.state)).toEqual(['REVIEW']);
    expect(ledgerSink.dataOf('pds.confirmation.changed').map((data) => data.state)).toEqual([
      'AWAITING',
      'REVIEW',
    ]);
  });

  it('emits only the reviews that arrived since the last run', async () => {
    // prepare
    const { pds, sink, deps } = await setup(['A1']);
    pds.addReview('A1', REVIEW_XML);
    await pollReviewKeys(deps, ['A1']);

    // act
    const later = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'APPROVED' });
    const report = await pollReviewKeys(deps, ['A1']);

    // assess
    expect(report.reviewsEmitted).toBe(1);
    expect(sink.dataOf('pds.supplier-review.received').map((data) => data.messagingAssetId)).toEqual([
      1,
      later.messagingAssetId,
    ]);
  });

  it('counts a key the PDS does not know and keeps watching it', async () => {
    // prepare
    const { store, deps } = await setup(['GONE']);

    // act
    const report = await pollReviewKeys(deps, ['GONE']);

    // assess
    expect(report).toMatchObject({ keysNotFound: 1, keysFailed: 0 });
    expect(await getWatchEntry(store, 'GONE')).toBeDefined();
  });

  it('warns once about a watched key the PDS does not know, not on every run, and again after it was back', async () => {
    // prepare
    const { pds, store, deps } = await setup(['GONE']);
    const warnings: string[] = [];
    const logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message: string) => warnings.push(message),
      error: () => undefined,
    };
    const unknown = 'The PDS does not know this watched item; it stays watched until it expires';

    // act: three runs while missing, one after it came back, one after it went again
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await pollReviewKeys({ ...deps, logger }, ['GONE']));
    const missing = await progressOf(store, 'GONE');
    pds.addReview('GONE', REVIEW_XML);
    const back = await pollReviewKeys({ ...deps, logger }, ['GONE']);
    const present = await progressOf(store, 'GONE');
    pds.failKey.set('GONE', 'missing');
    await pollReviewKeys({ ...deps, logger }, ['GONE']);

    // assess
    expect(runs.map((report) => report.keysNotFound)).toEqual([1, 1, 1]);
    expect(missing?.missingSince).toEqual(expect.any(String));
    expect(back).toMatchObject({ keysPolled: 1, reviewsEmitted: 1 });
    expect(present?.missingSince).toBeUndefined();
    expect(warnings.filter((message) => message === unknown)).toHaveLength(2);
  });

  it('purges an expired key without asking the PDS', async () => {
    // prepare
    const pds = new FakePds();
    const store = new MemoryStateStore();
    const sink = new RecordingSink();
    await watch(store, ['OLD'], { ttlMs: DAY, source: 'test', now: new Date(Date.now() - 2 * DAY) });

    // act
    const report = await pollReviewKeys({ pds, store, sink }, ['OLD']);

    // assess
    expect(report.keysPurged).toBe(1);
    expect(await getWatchEntry(store, 'OLD')).toBeUndefined();
    expect(pds.calls).toEqual([]);
  });

  it('goes on past a failing key and emits its reviews on a later run', async () => {
    // prepare
    const { pds, sink, deps } = await setup(['A1', 'B2']);
    pds.addReview('A1', REVIEW_XML);
    pds.addReview('B2', REVIEW_XML);
    pds.failKey.set('A1', 'server');

    // act
    const first = await pollReviewKeys(deps, ['A1', 'B2']);
    pds.failKey.delete('A1');
    const second = await pollReviewKeys(deps, ['A1', 'B2']);

    // assess
    expect(first).toMatchObject({ keysFailed: 1, failedKeys: ['A1'], keysPolled: 1, reviewsEmitted: 1 });
    expect(second).toMatchObject({ keysFailed: 0, reviewsEmitted: 1 });
    expect(sink.events.map((event) => event.subject)).toEqual(['item/B2', 'item/A1']);
  });

  it('retries a review whose message failed, and emits one whose message is gone with messageError', async () => {
    // prepare
    const { pds, sink, deps } = await setup(['A1']);
    const flaky = pds.addReview('A1', REVIEW_XML);
    const gone = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'REVIEW' });
    pds.failAsset.set(flaky.messagingAssetId, 'server');
    pds.failAsset.set(gone.messagingAssetId, 'missing');

    // act
    const first = await pollReviewKeys(deps, ['A1']);
    pds.failAsset.delete(flaky.messagingAssetId);
    const second = await pollReviewKeys(deps, ['A1']);

    // assess
    expect(first).toMatchObject({ keysFailed: 1, reviewsEmitted: 1, reviewsFailed: 1 });
    expect(second).toMatchObject({ keysFailed: 0, reviewsEmitted: 1 });
    const [withoutMessage, recovered] = sink.dataOf('pds.supplier-review.received');
    expect(withoutMessage?.messageError).toMatchObject({ name: 'PdsNotFoundError', status: 404 });
    expect(withoutMessage?.document).toBeUndefined();
    expect(recovered?.messagingAssetId).toBe(flaky.messagingAssetId);
  });

  it('emits a review whose message is broken XML with the parse error and the raw text', async () => {
    // prepare
    const { pds, sink, deps } = await setup(['A1']);
    pds.addReview('A1', '<cic><state>REVIEW</cic>');

    // act
    const report = await pollReviewKeys(deps, ['A1']);

    // assess
    expect(report.parseErrors).toBe(1);
    const [data] = sink.dataOf('pds.supplier-review.received');
    expect(data?.parseError?.code).toBe('MALFORMED');
    expect(data?.rawXml).toBe('<cic><state>REVIEW</cic>');
  });

  it('does not record reviews SQS refused, so the next run emits them', async () => {
    // prepare
    const { pds, sink, store, deps } = await setup(['A1']);
    pds.addReview('A1', REVIEW_XML);
    sink.refuse = () => true;

    // act
    const first = await pollReviewKeys(deps, ['A1']);
    sink.refuse = () => false;
    const second = await pollReviewKeys(deps, ['A1']);

    // assess
    expect(first).toMatchObject({ keysFailed: 1, reviewsEmitted: 0, reviewsFailed: 1 });
    expect(second.reviewsEmitted).toBe(1);
    expect((await progressOf(store, 'A1'))?.seen).toHaveLength(1);
  });

  it('emits a review whose message fails on consecutive runs with messageError at the failure limit, and the key recovers', async () => {
    // prepare
    const { pds, store, sink, deps } = await setup(['A1']);
    const review = pds.addReview('A1', REVIEW_XML);
    pds.failAsset.set(review.messagingAssetId, 'server');

    // act
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await pollReviewKeys(deps, ['A1'], { failureLimit: 2 }));

    // assess
    expect(runs.map((report) => report.keysFailed)).toEqual([1, 0, 0]);
    expect(runs.map((report) => report.reviewsEmittedAsFailed)).toEqual([0, 1, 0]);
    expect(sink.events).toHaveLength(1);
    expect(sink.dataOf('pds.supplier-review.received')[0]?.messageError).toMatchObject({
      name: 'PdsServerError',
      status: 503,
      failedRuns: 2,
    });
    const entry = await progressOf(store, 'A1');
    expect(entry?.seen).toEqual([reviewFingerprint(review)]);
    expect(entry?.failing).toBeUndefined();
  });

  it('passes a review whose event SQS refuses as invalid at the failure limit, without holding its key', async () => {
    // prepare
    const { pds, store, sink, deps } = await setup(['A1']);
    const refused = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'REVIEW' });
    const ordinary = pds.addReview('A1', REVIEW_XML, { reviewStatus: 'APPROVED' });
    sink.refuseAsInvalid = true;
    sink.refuse = (event) =>
      event.type === 'pds.supplier-review.received' &&
      event.data.review.reviewStatus === 'REVIEW' &&
      event.data.messageError === undefined;

    // act
    const first = await pollReviewKeys(deps, ['A1'], { failureLimit: 2 });
    const failingAfterFirst = (await progressOf(store, 'A1'))?.failing;
    const second = await pollReviewKeys(deps, ['A1'], { failureLimit: 2 });
    const third = await pollReviewKeys(deps, ['A1'], { failureLimit: 2 });

    // assess
    expect(first).toMatchObject({ keysFailed: 1, reviewsEmitted: 1 });
    expect(failingAfterFirst).toMatchObject([{ fingerprint: reviewFingerprint(refused), attempts: 1 }]);
    expect(second).toMatchObject({ keysFailed: 0, reviewsEmitted: 1, reviewsEmittedAsFailed: 1 });
    expect(third).toMatchObject({ keysFailed: 0, reviewsEmitted: 0 });
    const data = sink.dataOf('pds.supplier-review.received');
    expect(data.map((item) => item.review.reviewStatus)).toEqual(['APPROVED', 'REVIEW']);
    expect(data[1]?.messageError).toMatchObject({ name: 'InvalidMessageContents', failedRuns: 2 });
    expect(data[1]?.document).toBeUndefined();
    expect((await progressOf(store, 'A1'))?.seen.sort()).toEqual(
      [reviewFingerprint(refused), reviewFingerprint(ordinary)].sort(),
    );
  });

  it('never has more PDS requests in flight than the concurrency, across keys', async () => {
    // prepare
    const keys = Array.from({ length: 30 }, (_, index) => `K${index}`);
    const { pds, deps } = await setup(keys);
    pds.delayMs = 2;
    for (const key of keys) {
      pds.addReview(key, REVIEW_XML);
      pds.addReview(key, REVIEW_XML, { reviewStatus: 'REVIEW' });
    }

    // act
    const report = await pollReviewKeys(deps, keys, { concurrency: 4 });

    // assess
    expect(report.reviewsEmitted).toBe(60);
    expect(pds.maxInFlight).toBe(4);
  });

  it('leaves keys it did not reach before the deadline for the next run', async () => {
    // prepare
    const { deps } = await setup(['A1', 'B2']);

    // act
    const report = await pollReviewKeys(deps, ['A1', 'B2'], { deadline: Date.now() - 1 });

    // assess
    expect(report).toMatchObject({ keysDeferred: 2, keysPolled: 0 });
  });
});

describe('pollSupplierReviews: state requests', () => {
  /** A store that counts its operations by kind and key prefix (`get watch/`, `update review-progress/`, …). */
  function countingStore() {
    const counts = new Map<string, number>();
    const store = new MemoryStateStore({
      beforeOperation: ({ kind, key }) => {
        const name = `${kind} ${key.slice(0, key.indexOf('/') + 1)}`;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      },
    });
    const count = (name: string) => counts.get(name) ?? 0;
    const reset = () => counts.clear();
    return { store, count, reset, counts };
  }
  const keys = Array.from({ length: 200 }, (_, index) => `K${String(index).padStart(3, '0')}`);

  it('reads no watch entry and writes nothing when nothing is new', async () => {
    // prepare
    const pds = new FakePds();
    const { store, count, reset } = countingStore();
    await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
    for (const key of keys) pds.addReview(key, REVIEW_XML);
    const deps = { pds, store, sink: new RecordingSink() };
    await pollSupplierReviews(deps, { runId: 'first', inlineMax: 1000 });
    reset();

    // act
    const report = await pollSupplierReviews(deps, { runId: 'second', inlineMax: 1000 });

    // assess
    expect(report).toMatchObject({ mode: 'inline', keysPolled: 200, reviewsEmitted: 0 });
    expect(count('get watch/')).toBe(0);
    expect(count('get review-progress/')).toBeLessThanOrEqual(2 ** BASE_LEVEL + 1);
    expect(count('create review-progress/') + count('update review-progress/')).toBe(0);
    expect(count('update watch/') + count('create watch/')).toBe(0);
  });

  it('writes the progress only of the shards whose keys got new reviews', async () => {
    // prepare
    const pds = new FakePds();
    const { store, count, reset } = countingStore();
    await watch(store, keys, { ttlMs: 30 * DAY, source: 'test' });
    const deps = { pds, store, sink: new RecordingSink() };
    await pollSupplierReviews(deps, { runId: 'first', inlineMax: 1000 });
    reset();
    const changed = ['K007', 'K123'];
    for (const key of changed) pds.addReview(key, REVIEW_XML);

    // act
    const report = await pollSupplierReviews(deps, { runId: 'second', inlineMax: 1000 });

    // assess
    expect(report).toMatchObject({ reviewsEmitted: 2, keysFailed: 0 });
    const shards = new Set(changed.map((key) => progressShardOf(key))).size;
    expect(count('update review-progress/')).toBe(shards);
    expect(count('get watch/')).toBe(0);
  });

  it('reads an entry again once it changed, and polls it until its new expiry', async () => {
    // prepare
    const pds = new FakePds();
    const store = new MemoryStateStore();
    const t0 = new Date('2026-11-20T10:00:00.000Z');
    await watch(store, ['A1'], { ttlMs: DAY, source: 'test', now: t0 });
    const deps = { pds, store, sink: new RecordingSink() };
    await pollSupplierReviews(deps, { runId: 'first', now: () => t0 });
    await watch(store, ['A1'], { ttlMs: 10 * DAY, source: 'publication:p2', now: t0 });
    pds.addReview('A1', REVIEW_XML);

    // act: two days later the remembered expiry has passed, the entry's has not
    const later = new Date(t0.getTime() + 2 * DAY);
    const report = await pollSupplierReviews(deps, { runId: 'later', now: () => later });

    // assess
    expect(report).toMatchObject({ keysPolled: 1, keysPurged: 0, reviewsEmitted: 1 });
    expect((await progressOf(store, 'A1'))?.expiresAt).toBe(new Date(t0.getTime() + 10 * DAY).toISOString());
  });

  it('purges an expired key and forgets its progress', async () => {
    // prepare
    const pds = new FakePds();
    const store = new MemoryStateStore();
    const t0 = new Date('2026-11-20T10:00:00.000Z');
    await watch(store, ['A1'], { ttlMs: DAY, source: 'test', now: t0 });
    pds.addReview('A1', REVIEW_XML);
    const deps = { pds, store, sink: new RecordingSink() };
    await pollSupplierReviews(deps, { runId: 'first', now: () => t0 });

    // act
    const later = new Date(t0.getTime() + 2 * DAY);
    const report = await pollSupplierReviews(deps, { runId: 'later', now: () => later });

    // assess
    expect(report).toMatchObject({ keysPurged: 1 });
    expect(await getWatchEntry(store, 'A1')).toBeUndefined();
    expect(await progressOf(store, 'A1')).toBeUndefined();
  });

  it('carries over the reviews an entry written before the progress shards had seen', async () => {
    // prepare: an entry of the former layout, its one review already emitted
    const pds = new FakePds();
    const store = new MemoryStateStore();
    const review = pds.addReview('A1', REVIEW_XML);
    await store.create(watchKey('A1'), {
      primaryKey: 'A1',
      addedAt: '2026-11-01T00:00:00.000Z',
      expiresAt: '2099-01-01T00:00:00.000Z',
      sources: ['operator'],
      seen: [reviewFingerprint(review)],
    });
    const sink = new RecordingSink();

    // act
    const report = await pollSupplierReviews({ pds, store, sink }, { runId: 'upgraded' });

    // assess
    expect(report).toMatchObject({ keysPolled: 1, reviewsEmitted: 0 });
    expect(sink.events).toEqual([]);
    expect((await progressOf(store, 'A1'))?.seen).toEqual([reviewFingerprint(review)]);
  });
});

describe('pollSupplierReviews', () => {
  it('polls a small watch list inline', async () => {
    // prepare
    const { pds, sink, deps } = await setup(['A1', 'B2']);
    pds.addReview('A1', REVIEW_XML);
    pds.addReview('B2', REVIEW_XML);
    const queue = new RecordingQueue();

    // act
    const report = await pollSupplierReviews(deps, { runId: 'run-1', inlineMax: 2, queue });

    // assess
    expect(report).toMatchObject({ mode: 'inline', watched: 2, reviewsEmitted: 2 });
    expect(queue.chunks).toEqual([]);
    expect(sink.events).toHaveLength(2);
  });

  it('fans a large watch list out in chunks and polls nothing itself', async () => {
    // prepare
    const keys = Array.from({ length: 7 }, (_, index) => `K${index}`);
    const { pds, deps } = await setup(keys);
    const queue = new RecordingQueue();

    // act
    const report = await pollSupplierReviews(deps, { runId: 'run-1', inlineMax: 5, chunkSize: 3, queue });

    // assess
    expect(report).toEqual({ mode: 'fan-out', watched: 7, chunks: 3 });
    const sent = queue.chunks.flatMap((chunk) => chunk.keys);
    expect(queue.chunks.map((chunk) => chunk.keys.length)).toEqual([3, 3, 1]);
    expect(sent.toSorted()).toEqual(keys);
    // A shard's keys travel together, each with the ETag its watch entry was listed with.
    const shards = sent.map((key) => progressShardOf(key));
    expect(shards).toEqual(shards.toSorted((a, b) => a - b));
    const listed = new Map<string, string>();
    for await (const key of watchedKeys(deps.store)) listed.set(key.primaryKey, key.etag);
    expect(queue.chunks.flatMap((chunk) => chunk.etags)).toEqual(sent.map((key) => listed.get(key)));
    expect(queue.chunks.every((chunk) => chunk.runId === 'run-1')).toBe(true);
    expect(pds.calls).toEqual([]);
  });
});
