import { describe, expect, it } from 'vitest';
import { WatchListError } from '../../packages/bridge/src/state/errors.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { watch } from '../../packages/bridge/src/state/watch-list.ts';
import { describeWatchListBehaviour } from '../helpers/watch-list-suite.ts';

const DAY = 86_400_000;

describeWatchListBehaviour('watch list on MemoryStateStore', () => new MemoryStateStore());

describe('watch list', () => {
  it('refuses empty keys and a non-positive ttl', async () => {
    const store = new MemoryStateStore();
    await expect(watch(store, [''], { ttlMs: DAY, source: 'operator' })).rejects.toBeInstanceOf(
      WatchListError,
    );
    await expect(watch(store, ['k'], { ttlMs: 0, source: 'operator' })).rejects.toThrow(
      /ttlMs must be positive/,
    );
  });
});
