import { describe, expect, it } from 'vitest';
import { MemoryStateStore, type StateOperation } from '../../packages/bridge/src/state/memory.ts';
import { describeStateStoreBehaviour } from '../helpers/state-store-suite.ts';

describeStateStoreBehaviour('MemoryStateStore', () => new MemoryStateStore(), { conditional: true });

describe('MemoryStateStore', () => {
  it('gives a new ETag to every write, even of identical content', async () => {
    // prepare
    const store = new MemoryStateStore();
    const created = await store.create('checkpoints/a.json', { n: 1 });
    if (!created.created) throw new Error('create failed');

    // act
    const rewritten = await store.update('checkpoints/a.json', { n: 1 }, created.etag);

    // assess
    expect(rewritten.etag).not.toBe(created.etag);
  });

  it('hands out copies, so changing a read value does not change the store', async () => {
    // prepare
    const store = new MemoryStateStore();
    const value = { list: [1] };
    await store.create('watch/a.json', value);

    // act
    value.list.push(2);
    const read = await store.get<{ list: number[] }>('watch/a.json');
    read?.value.list.push(3);

    // assess
    expect((await store.get('watch/a.json'))?.value).toEqual({ list: [1] });
  });

  it('lets a hook inject failures and concurrent writers', async () => {
    // prepare: a competitor writes right before our first update, and the second delete fails
    const seen: StateOperation[] = [];
    let competed = false;
    let deletes = 0;
    const store: MemoryStateStore = new MemoryStateStore({
      beforeOperation: async (operation) => {
        seen.push(operation);
        if (operation.kind === 'update' && !competed) {
          competed = true;
          const current = await store.get<{ n: number }>(operation.key);
          if (current) await store.update(operation.key, { n: current.value.n + 10 }, current.etag);
        }
        if (operation.kind === 'delete' && ++deletes === 2) throw new Error('injected outage');
      },
    });
    await store.create('checkpoints/n.json', { n: 0 });

    // act
    const result = await store.mutate<{ n: number }>('checkpoints/n.json', (c) => ({ n: (c?.n ?? 0) + 1 }), {
      baseDelayMs: 1,
    });
    await store.delete('checkpoints/other.json');
    const failing = store.delete('checkpoints/n.json');

    // assess
    expect(result).toMatchObject({ value: { n: 11 }, attempts: 2 });
    await expect(failing).rejects.toThrow('injected outage');
    expect(store.size).toBe(1);
    expect(seen.map((op) => op.kind)).toEqual([
      'create',
      'get',
      'update',
      'get',
      'update',
      'delete',
      'delete',
    ]);
  });
});
