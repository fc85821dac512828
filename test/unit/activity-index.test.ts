import { describe, expect, it } from 'vitest';
import {
  hourOf,
  markedInWindow,
  timeMarkerKey,
  writeActivityMarker,
} from '../../packages/bridge/src/state/activity-index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { describeActivityIndex } from '../helpers/activity-index-suite.ts';

describeActivityIndex('activity index on the memory store', () => new MemoryStateStore());

describe('markedInWindow', () => {
  it('reads only the hours of the window, each record once, in hour order', async () => {
    // prepare
    const store = new MemoryStateStore();
    const t = Date.parse('2026-11-20T10:30:00.000Z');
    for (const [key, at] of [
      ['ingest/a.json', t - 3_600_000],
      ['ingest/b.json', t],
      ['ingest/c.json', t + 3_600_000],
      ['ingest/b.json', t + 3_600_000],
      ['ingest/d.json', t + 2 * 3_600_000],
    ] as const) {
      await writeActivityMarker(store, timeMarkerKey('ingest', key, at), key, at);
    }

    // act
    const keys: string[] = [];
    for await (const key of markedInWindow(store, 'ingest', t - 1, t + 3_600_000 + 1)) keys.push(key);
    const empty: string[] = [];
    for await (const key of markedInWindow(store, 'ingest', t, t)) empty.push(key);

    // assess
    expect(hourOf(t)).toBe('2026-11-20/10');
    expect(keys).toEqual(['ingest/b.json', 'ingest/c.json']);
    expect(empty).toEqual([]);
  });
});
