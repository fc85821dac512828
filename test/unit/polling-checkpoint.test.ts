import { describe, expect, it } from 'vitest';
import type { MessagingAssetSummary } from '../../lib/pds/types.ts';
import {
  advanceCheckpoint,
  CheckpointFormatError,
  initialCheckpoint,
  type MessagingAssetCheckpoint,
  parseCheckpoint,
  selectCandidates,
} from '../../lib/polling/checkpoint.ts';

const NOW = new Date('2026-03-02T10:00:00Z');

function listing(...ids: number[]): MessagingAssetSummary[] {
  return ids.map((id) => ({ id, createdAt: 1_767_600_000_000 + id, contentType: 'application/xml' }));
}

function checkpoint(partial: Partial<MessagingAssetCheckpoint> = {}): MessagingAssetCheckpoint {
  return {
    version: 1,
    floor: null,
    highestId: null,
    seen: [],
    retry: [],
    updatedAt: NOW.toISOString(),
    ...partial,
  };
}

const idsOf = (assets: MessagingAssetSummary[]) => assets.map((asset) => asset.id);

describe('initialCheckpoint', () => {
  it('takes what is listed now as done on a first run "now"', () => {
    // act
    const initial = initialCheckpoint(listing(3, 9, 4), 'now', NOW);

    // assess
    expect(initial.floor).toBe(9);
    expect(selectCandidates(listing(3, 9, 4, 10), initial).candidates.map((asset) => asset.id)).toEqual([10]);
  });

  it('takes everything listed as new on a first run "backlog"', () => {
    // act
    const initial = initialCheckpoint(listing(3, 9, 4), 'backlog', NOW);

    // assess
    expect(idsOf(selectCandidates(listing(3, 9, 4), initial).candidates)).toEqual([3, 4, 9]);
  });

  it('leaves no floor when a first run "now" finds nothing, so every later asset is new', () => {
    // act
    const initial = initialCheckpoint([], 'now', NOW);

    // assess
    expect(idsOf(selectCandidates(listing(1, 2), initial).candidates)).toEqual([1, 2]);
  });
});

describe('selectCandidates', () => {
  it('takes ids above the floor not seen before, in id order, each once', () => {
    // prepare
    const current = checkpoint({ floor: 10, seen: [12, 14] });

    // act
    const { candidates } = selectCandidates(listing(9, 15, 11, 12, 13, 14, 13), current);

    // assess
    expect(idsOf(candidates)).toEqual([11, 13, 15]);
  });

  it('takes an id that shows up late below the highest seen id', () => {
    // prepare
    const current = checkpoint({ floor: 0, seen: [1, 2, 4], highestId: 4 });

    // act
    const { candidates } = selectCandidates(listing(1, 2, 3, 4), current);

    // assess
    expect(idsOf(candidates)).toEqual([3]);
  });

  it('retries listed retry entries even below the floor, and reports unlisted ones as gone', () => {
    // prepare
    const current = checkpoint({
      floor: 20,
      retry: [
        { id: 5, attempts: 2, firstFailedAt: NOW.toISOString(), lastError: '503' },
        { id: 6, attempts: 1, firstFailedAt: NOW.toISOString(), lastError: '503' },
      ],
    });

    // act
    const { candidates, gone } = selectCandidates(listing(5, 21), current);

    // assess
    expect(idsOf(candidates)).toEqual([5, 21]);
    expect(gone.map((entry) => entry.id)).toEqual([6]);
  });
});

describe('advanceCheckpoint', () => {
  it('records accepted ids as seen and failed ids for a retry with their attempts', () => {
    // prepare
    const current = checkpoint({ retry: [{ id: 3, attempts: 1, firstFailedAt: 'earlier', lastError: 'x' }] });

    // act
    const { checkpoint: next } = advanceCheckpoint(
      current,
      {
        emitted: [1, 2],
        failed: [
          { id: 3, reason: 'PdsServerError: 503' },
          { id: 4, reason: 'PdsServerError: 503' },
        ],
      },
      { now: NOW },
    );

    // assess
    expect(next.seen).toEqual([1, 2]);
    expect(next.highestId).toBe(2);
    expect(next.retry).toEqual([
      { id: 3, attempts: 2, firstFailedAt: 'earlier', lastError: 'PdsServerError: 503' },
      { id: 4, attempts: 1, firstFailedAt: NOW.toISOString(), lastError: 'PdsServerError: 503' },
    ]);
    expect(idsOf(selectCandidates(listing(1, 2, 3, 4, 5), next).candidates)).toEqual([3, 4, 5]);
  });

  it('drops a retry entry once its asset was emitted or is gone', () => {
    // prepare
    const retry = [3, 4].map((id) => ({ id, attempts: 1, firstFailedAt: 'earlier', lastError: 'x' }));

    // act
    const { checkpoint: next } = advanceCheckpoint(
      checkpoint({ retry }),
      { emitted: [3], failed: [], gone: [4] },
      { now: NOW },
    );

    // assess
    expect(next.retry).toEqual([]);
  });

  it('merges the accepted ids into seen in order, each once, whatever order they come in', () => {
    // prepare: late ids between seen ones, a repeat of a seen id, a duplicate within the page
    const current = checkpoint({ seen: [2, 5, 9] });

    // act
    const { checkpoint: next } = advanceCheckpoint(
      current,
      { emitted: [12, 3, 5, 10, 3, 1], failed: [] },
      { now: NOW },
    );

    // assess
    expect(next.seen).toEqual([1, 2, 3, 5, 9, 10, 12]);
    expect(next.highestId).toBe(12);
  });

  it('sorts a stored seen list that is not ascending (edited by hand) before merging', () => {
    // prepare
    const current = checkpoint({ seen: [9, 2, 5, 5] });

    // act
    const { checkpoint: next } = advanceCheckpoint(current, { emitted: [7, 2], failed: [] }, { now: NOW });

    // assess
    expect(next.seen).toEqual([2, 5, 7, 9]);
  });

  it('keeps the seen window bounded by raising the floor past the oldest ids', () => {
    // prepare
    const current = checkpoint({ seen: [1, 2, 3] });

    // act
    const { checkpoint: next } = advanceCheckpoint(
      current,
      { emitted: [4, 5], failed: [] },
      { now: NOW, seenWindow: 3 },
    );

    // assess
    expect(next.floor).toBe(2);
    expect(next.seen).toEqual([3, 4, 5]);
    expect(idsOf(selectCandidates(listing(1, 2, 3, 4, 5, 6), next).candidates)).toEqual([6]);
  });

  it('never raises the floor to an id that is still pending', () => {
    // prepare
    const current = checkpoint({ seen: [1, 2, 3, 5, 6] });

    // act: 4 was not accepted by SQS yet
    const { checkpoint: next } = advanceCheckpoint(
      current,
      { emitted: [7], failed: [], lowestPending: 4 },
      { now: NOW, seenWindow: 2 },
    );

    // assess
    expect(next.floor).toBe(3);
    expect(idsOf(selectCandidates(listing(1, 2, 3, 4, 5, 6, 7), next).candidates)).toEqual([4]);
  });

  it('abandons the oldest retry entries beyond the cap', () => {
    // act
    const { checkpoint: next, abandoned } = advanceCheckpoint(
      checkpoint(),
      { emitted: [], failed: [7, 8, 9].map((id) => ({ id, reason: 'x' })) },
      { now: NOW, maxRetry: 2 },
    );

    // assess
    expect(abandoned.map((entry) => entry.id)).toEqual([7]);
    expect(next.retry.map((entry) => entry.id)).toEqual([8, 9]);
  });
});

describe('parseCheckpoint', () => {
  it('accepts what advanceCheckpoint writes', () => {
    // prepare
    const written = advanceCheckpoint(
      checkpoint(),
      { emitted: [1], failed: [{ id: 2, reason: 'x' }] },
      { now: NOW },
    );

    // act / assess
    expect(parseCheckpoint(JSON.parse(JSON.stringify(written.checkpoint)), 'k')).toEqual(written.checkpoint);
  });

  it('refuses a foreign document with an error that says how to recover', () => {
    // act / assess
    expect(() => parseCheckpoint({ lastId: 5 }, 'checkpoints/messaging-assets.json')).toThrow(
      CheckpointFormatError,
    );
    expect(() => parseCheckpoint({ lastId: 5 }, 'checkpoints/messaging-assets.json')).toThrow(
      /delete it to start again/,
    );
  });
});
