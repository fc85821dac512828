/**
 * One behaviour suite for every `StateStore` implementation: call it from a test file with a factory
 * that returns an empty store. `conditional: false` skips the cases that need If-None-Match / If-Match
 * enforcement, for backends that ignore them (the fauxqs emulator); cover those with a backend that
 * enforces them (MemoryStateStore, the S3 adapter over ./s3-conditional-mock.ts).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { checkpointKey } from '../../packages/bridge/src/polling/keys.ts';
import {
  StateConflictError,
  StateKeyError,
  StateValueError,
} from '../../packages/bridge/src/state/errors.ts';
import { primaryKeyOfWatchKey, watchKey } from '../../packages/bridge/src/state/keys.ts';
import { deleteIfUnchanged, type StateStore } from '../../packages/bridge/src/state/store.ts';

export interface StateStoreSuiteOptions {
  /** The backend enforces conditional writes. */
  conditional: boolean;
  /**
   * Two truly simultaneous conditional writes of one key never both succeed. moto checks and writes
   * without a lock, so against it the cases that race writers at the same instant are left out; the
   * conditional cases that interleave writers in a fixed order still run. Default: `conditional`.
   */
  atomic?: boolean;
}

async function collect(keys: AsyncIterable<string>, limit = Number.POSITIVE_INFINITY): Promise<string[]> {
  const all: string[] = [];
  if (limit <= 0) return all;
  for await (const key of keys) {
    all.push(key);
    if (all.length >= limit) break;
  }
  return all;
}

/** UTF-8 byte order, as S3 lists. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * `count` distinct keys under `prefix` whose names mix what makes locale, UTF-16 and byte order
 * disagree: digits, both cases, punctuation, nested segments, non-ASCII letters (one outside the BMP).
 */
export function mixedKeys(prefix: string, count: number): string[] {
  const parts = [
    '0',
    '9',
    'A',
    'a',
    'B',
    'b',
    'Z',
    'z',
    '_',
    '-',
    '.x',
    '~',
    '+',
    '!',
    'É',
    'é',
    'ß',
    '日',
    '😀',
    'ﬀ',
  ];
  const keys = new Set<string>();
  for (let i = 0; keys.size < count; i++) {
    const first = parts[i % parts.length] as string;
    const second = parts[Math.floor(i / parts.length) % parts.length] as string;
    const nested = i % 3 === 0 ? `${second}/` : '';
    keys.add(`${prefix}${first}${nested}${second}${i % 7 === 0 ? 'Q' : 'q'}.json`);
  }
  return [...keys];
}

/** Registers the shared StateStore tests under `describe(name)`. */
export function describeStateStoreBehaviour(
  name: string,
  makeStore: () => StateStore | Promise<StateStore>,
  { conditional, atomic = conditional }: StateStoreSuiteOptions,
): void {
  describe(name, () => {
    let store: StateStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    it('answers undefined for a key that holds nothing', async () => {
      // act
      const entry = await store.get('checkpoints/none.json');

      // assess
      expect(entry).toBeUndefined();
    });

    it('returns what create stored, with the ETag create gave', async () => {
      // prepare
      const value = {
        lastId: 41,
        gtin: '00012345678905',
        note: 'Äpfel & Birnen 🍐',
        nested: { list: [1, null, true] },
      };

      // act
      const created = await store.create('checkpoints/assets.json', value);
      const entry = await store.get<typeof value>('checkpoints/assets.json');

      // assess
      expect(created.created).toBe(true);
      expect(entry).toEqual({ value, etag: created.created ? created.etag : 'none' });
    });

    it.runIf(conditional)('refuses to create over an existing value and keeps it', async () => {
      // prepare
      await store.create('watch/a.json', { owner: 'first' });

      // act
      const second = await store.create('watch/a.json', { owner: 'second' });

      // assess
      expect(second).toEqual({ created: false });
      expect((await store.get('watch/a.json'))?.value).toEqual({ owner: 'first' });
    });

    it('updates a value read at its current ETag and hands out a new ETag', async () => {
      // prepare
      const created = await store.create('checkpoints/c.json', { n: 1 });
      if (!created.created) throw new Error('create failed');

      // act
      const updated = await store.update('checkpoints/c.json', { n: 2 }, created.etag);
      const entry = await store.get<{ n: number }>('checkpoints/c.json');

      // assess
      expect(updated.etag).not.toBe(created.etag);
      expect(entry).toEqual({ value: { n: 2 }, etag: updated.etag });
    });

    it.runIf(conditional)('refuses an update based on a stale read', async () => {
      // prepare: two writers read the same version, the first one writes
      await store.create('checkpoints/c.json', { n: 1 });
      const readByA = await store.get<{ n: number }>('checkpoints/c.json');
      const readByB = await store.get<{ n: number }>('checkpoints/c.json');
      if (!readByA || !readByB) throw new Error('read failed');
      await store.update('checkpoints/c.json', { n: 2 }, readByA.etag);

      // act
      const late = store.update('checkpoints/c.json', { n: 3 }, readByB.etag);

      // assess
      await expect(late).rejects.toBeInstanceOf(StateConflictError);
      expect((await store.get('checkpoints/c.json'))?.value).toEqual({ n: 2 });
    });

    it.runIf(conditional)('refuses to update a key that was deleted meanwhile', async () => {
      // prepare
      const created = await store.create('watch/gone.json', { x: 1 });
      if (!created.created) throw new Error('create failed');
      await store.delete('watch/gone.json');

      // act
      const update = store.update('watch/gone.json', { x: 2 }, created.etag);

      // assess
      await expect(update).rejects.toBeInstanceOf(StateConflictError);
      expect(await store.get('watch/gone.json')).toBeUndefined();
    });

    it('deletes unconditionally or at the current ETag, and deleting nothing is fine', async () => {
      // prepare
      await store.create('watch/a.json', { a: 1 });
      const b = await store.create('watch/b.json', { b: 1 });
      if (!b.created) throw new Error('create failed');

      // act
      await store.delete('watch/a.json');
      await store.delete('watch/b.json', b.etag);
      await store.delete('watch/never-existed.json');

      // assess
      expect(await store.get('watch/a.json')).toBeUndefined();
      expect(await store.get('watch/b.json')).toBeUndefined();
    });

    it.runIf(conditional)('keeps a value whose ETag changed when deleting conditionally', async () => {
      // prepare
      const created = await store.create('leases/run.json', { owner: 'a' });
      if (!created.created) throw new Error('create failed');
      await store.update('leases/run.json', { owner: 'b' }, created.etag);

      // act
      const remove = store.delete('leases/run.json', created.etag);

      // assess
      await expect(remove).rejects.toBeInstanceOf(StateConflictError);
      expect((await store.get('leases/run.json'))?.value).toEqual({ owner: 'b' });
    });

    it.runIf(conditional)(
      'deletes if unchanged: true at the version read, false and the newer value kept once a writer changed it',
      async () => {
        // prepare
        const kept = await store.create('leases/kept.json', { owner: 'a' });
        const gone = await store.create('leases/gone.json', { owner: 'a' });
        if (!kept.created || !gone.created) throw new Error('create failed');
        await store.update('leases/kept.json', { owner: 'b' }, kept.etag);

        // act
        const deleted = await deleteIfUnchanged(store, 'leases/gone.json', gone.etag);
        const raced = await deleteIfUnchanged(store, 'leases/kept.json', kept.etag);

        // assess
        expect([deleted, raced]).toEqual([true, false]);
        expect(await store.get('leases/gone.json')).toBeUndefined();
        expect((await store.get('leases/kept.json'))?.value).toEqual({ owner: 'b' });
      },
    );

    it('lists the keys under a prefix in byte order, across pages', async () => {
      // prepare
      const inside = [
        'watch/b.json',
        'watch/a.json',
        'watch/é.json',
        'watch/z.json',
        'watch/A.json',
        'watch/0.json',
      ];
      for (const key of [...inside, 'watchers/x.json', 'checkpoints/w.json'])
        await store.create(key, { key });

      // act
      const listed = await collect(store.list('watch/'));

      // assess
      const expected = [
        'watch/0.json',
        'watch/A.json',
        'watch/a.json',
        'watch/b.json',
        'watch/z.json',
        'watch/é.json',
      ];
      expect(listed).toEqual(expected);
    });

    it('pages through several hundred mixed keys with StartAfter in byte order, never skipping or repeating one', async () => {
      // prepare
      const keys = mixedKeys('ledger/', 260);
      for (const key of keys) await store.create(key, { key });
      for (const key of ['ledge/x.json', 'ledger0/x.json', 'a.json']) await store.create(key, {});
      const expected = [...keys].sort(byteOrder);

      // act
      const whole = await collect(store.list('ledger/'));
      const paged: string[] = [];
      for (;;) {
        const startAfter = paged.at(-1);
        const page = await collect(store.list('ledger/', startAfter === undefined ? {} : { startAfter }), 7);
        paged.push(...page);
        if (page.length < 7) break;
      }
      const fromMissingKey = await collect(store.list('ledger/', { startAfter: 'ledger/a' }));

      // assess
      expect(whole).toEqual(expected);
      expect(paged).toEqual(expected);
      expect(fromMissingKey).toEqual(expected.filter((key) => byteOrder(key, 'ledger/a') > 0));
    });

    it('lists each key with the ETag a read returns, and a new ETag once the value changes', async () => {
      // prepare
      const created = await store.create('watch/a.json', { n: 1 });
      await store.create('watch/b.json', { n: 2 });
      const before = new Map<string, string>();
      for await (const entry of store.listEntries('watch/')) before.set(entry.key, entry.etag);

      // act
      if (!created.created) throw new Error('watch/a.json existed');
      await store.update('watch/a.json', { n: 3 }, created.etag);
      const after = new Map<string, string>();
      for await (const entry of store.listEntries('watch/')) after.set(entry.key, entry.etag);

      // assess
      expect(before.get('watch/a.json')).toBe(created.etag);
      expect(before.get('watch/b.json')).toBe((await store.get('watch/b.json'))?.etag);
      expect(after.get('watch/a.json')).toBe((await store.get('watch/a.json'))?.etag);
      expect(after.get('watch/a.json')).not.toBe(created.etag);
      expect(after.get('watch/b.json')).toBe(before.get('watch/b.json'));
    });

    it('lists each key with when its version was written (LastModified), so its age needs no read', async () => {
      // prepare: S3 keeps LastModified to the second
      const before = Date.now() - 1000;
      await store.create('watch/aged.json', { n: 1 });

      // act
      const listed = [];
      for await (const entry of store.listEntries('watch/aged')) listed.push(entry);
      const after = Date.now() + 1000;

      // assess
      const written = listed[0]?.lastModified?.getTime() ?? Number.NaN;
      expect(written).toBeGreaterThanOrEqual(before - 60_000); // an emulator's clock may differ a little
      expect(written).toBeLessThanOrEqual(after + 60_000);
    });

    it('stores awkward primary keys under distinct, listable keys', async () => {
      // prepare
      const primaryKeys = [
        '00012345678905',
        'a/b',
        'a b',
        'a+b',
        'Äpfel 100%',
        '..',
        '.hidden',
        '!21',
        'x'.repeat(400),
        '日本語/キー',
      ];

      // act
      for (const primaryKey of primaryKeys) {
        const outcome = await store.create(watchKey(primaryKey), { primaryKey });
        expect(outcome.created).toBe(true);
      }
      const listed = await collect(store.list('watch/'));
      const values = await Promise.all(
        listed.map(async (key) => (await store.get<{ primaryKey: string }>(key))?.value),
      );

      // assess
      expect(listed).toHaveLength(primaryKeys.length);
      expect(values.map((v) => v?.primaryKey).sort()).toEqual([...primaryKeys].sort());
      for (const key of listed) {
        const decoded = primaryKeyOfWatchKey(key);
        if (decoded !== undefined) expect(primaryKeys).toContain(decoded);
      }
    });

    it('refuses keys it could not store faithfully', async () => {
      // act & assess
      for (const key of [
        '',
        '/abs.json',
        'a//b.json',
        'a/../b.json',
        'line\nbreak.json',
        `${'k'.repeat(1100)}.json`,
        'bad\ud800.json',
      ]) {
        await expect(store.get(key)).rejects.toBeInstanceOf(StateKeyError);
        await expect(store.create(key, {})).rejects.toBeInstanceOf(StateKeyError);
      }
    });

    it('refuses values that JSON cannot carry', async () => {
      // act & assess
      await expect(store.create('checkpoints/u.json', undefined)).rejects.toBeInstanceOf(StateValueError);
      await expect(store.create('checkpoints/b.json', { big: 1n })).rejects.toBeInstanceOf(StateValueError);
      expect(await store.get('checkpoints/u.json')).toBeUndefined();
    });

    describe('mutate', () => {
      it('creates, then updates, and does not write a value that did not change', async () => {
        // prepare
        const key = checkpointKey('runs');
        const increment = (current: { count: number } | undefined) => ({ count: (current?.count ?? 0) + 1 });

        // act
        const first = await store.mutate(key, increment);
        const second = await store.mutate(key, increment);
        const same = await store.mutate<{ count: number }>(key, (current) => ({
          count: current?.count ?? 0,
        }));

        // assess
        expect(first).toMatchObject({ value: { count: 1 }, written: true, attempts: 1 });
        expect(second).toMatchObject({ value: { count: 2 }, written: true, attempts: 1 });
        expect(same).toEqual({ value: { count: 2 }, etag: second.etag, written: false, attempts: 1 });
        expect(await store.get(key)).toEqual({ value: { count: 2 }, etag: second.etag });
      });

      it('leaves the value alone when the mutation answers undefined', async () => {
        // prepare
        const key = checkpointKey('keep');
        await store.create(key, { lastId: 7 });

        // act
        const result = await store.mutate<{ lastId: number }>(key, () => undefined);
        const missing = await store.mutate(checkpointKey('absent'), () => undefined);

        // assess
        expect(result).toMatchObject({ value: { lastId: 7 }, written: false });
        expect(missing).toEqual({ value: undefined, etag: undefined, written: false, attempts: 1 });
        expect(await store.get(checkpointKey('absent'))).toBeUndefined();
      });

      it.runIf(atomic)('loses no increment when writers race', async () => {
        // prepare: the counter exists, so every writer's first attempt is an update
        const key = checkpointKey('counter');
        const writers = 8;
        await store.create(key, { count: 0 });

        // act
        const results = await Promise.all(
          Array.from({ length: writers }, () =>
            store.mutate<{ count: number }>(key, (current) => ({ count: (current?.count ?? 0) + 1 }), {
              maxAttempts: 100,
              baseDelayMs: 2,
              maxDelayMs: 20,
            }),
          ),
        );

        // assess
        expect((await store.get<{ count: number }>(key))?.value.count).toBe(writers);
        expect(results.map((r) => r.value?.count).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
          1, 2, 3, 4, 5, 6, 7, 8,
        ]);
        expect(results.some((r) => r.attempts > 1)).toBe(true);
      });

      it.runIf(conditional)('gives up with StateConflictError when every attempt is overtaken', async () => {
        // prepare: a competitor writes between each read and write
        const key = checkpointKey('contended');
        await store.create(key, { n: 0 });
        let competitorWrites = 0;
        const mutation = async (current: { n: number } | undefined) => {
          const latest = await store.get<{ n: number }>(key);
          if (latest) await store.update(key, { n: latest.value.n + 100 }, latest.etag);
          competitorWrites += 1;
          return { n: (current?.n ?? 0) + 1 };
        };

        // act
        const attempt = store.mutate(key, mutation, { maxAttempts: 3, baseDelayMs: 1 });

        // assess
        await expect(attempt).rejects.toThrow(/still contended after 3 read-modify-write attempts/);
        await expect(attempt).rejects.toBeInstanceOf(StateConflictError);
        expect(competitorWrites).toBe(3);
        expect((await store.get(key))?.value).toEqual({ n: 300 });
      });
    });
  });
}
