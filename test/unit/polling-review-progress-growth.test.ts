/**
 * Regression (issue 20): the bytes the review poll writes to its progress per run grow with the keys
 * that changed, not with keys² as with 64 fixed shards (each fan-out chunk rewrote the whole shard it
 * covered, so a shard of many keys was rewritten by every chunk that touched it).
 */
import { describe, expect, it } from 'vitest';
import {
  pollReviewKeys,
  pollSupplierReviews,
} from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import {
  keysToPoll,
  type ReviewKeyChunk,
  type ReviewKeyQueue,
} from '../../packages/bridge/src/polling/supplier-reviews/review-queue.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { RecordingSink } from '../helpers/event-sink.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { TrafficCountingStore } from '../helpers/state-traffic.ts';

const DAY = 86_400_000;

class RecordingQueue implements ReviewKeyQueue {
  readonly chunks: ReviewKeyChunk[] = [];
  async send(chunks: readonly ReviewKeyChunk[]): Promise<void> {
    this.chunks.push(...chunks);
  }
}

/** Progress bytes written by one fanned-out run in which every key has one new review. */
async function progressBytesPerChangedKey(size: number): Promise<number> {
  const keys = Array.from({ length: size }, (_, index) => `04${String(index).padStart(12, '0')}`);
  const memory = new MemoryStateStore();
  for (let start = 0; start < size; start += 5000) {
    await watch(memory, keys.slice(start, start + 5000), { ttlMs: 30 * DAY, source: 'test' });
  }
  const store = new TrafficCountingStore(memory, (key) =>
    key.startsWith('review-progress/') ? 'progress' : 'other',
  );
  const pds = new FakePds();
  const deps = { pds, store, sink: new RecordingSink() };
  const run = async (runId: string) => {
    const queue = new RecordingQueue();
    await pollSupplierReviews(deps, { runId, queue });
    let emitted = 0;
    for (const chunk of queue.chunks) {
      const layout = chunk.levels ? { levels: chunk.levels } : undefined;
      emitted += (await pollReviewKeys(deps, keysToPoll(chunk), { layout })).reviewsEmitted;
    }
    return emitted;
  };
  // The first run after watching: every key has a review to emit and its progress to record.
  for (const key of keys) pds.addReview(key, '<review/>');
  const before = store.bytesByKind.get('progress') ?? 0;

  const emitted = await run('every key changed');

  expect(emitted).toBe(size);
  return ((store.bytesByKind.get('progress') ?? 0) - before) / size;
}

describe('review progress writes', () => {
  it('cost the same per changed key at 500 and 9,000 watched keys', async () => {
    // act
    const small = await progressBytesPerChangedKey(500);
    const large = await progressBytesPerChangedKey(9000);

    // assess: with 64 fixed shards the larger run wrote 1.7 times as much per key (0.99 now)
    expect(large / small).toBeLessThan(1.25);
  }, 60_000);
});
