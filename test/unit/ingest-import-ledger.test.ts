/**
 * The import ledger's group commit: one record write in flight, the next one carrying every import
 * accepted meanwhile, each caller answered only once its import is on record, and a failed write
 * failing every import waiting for it and every later one.
 */
import { describe, expect, it } from 'vitest';
import { ImportLedger } from '../../packages/bridge/src/ingest/import-ledger.ts';

/** A write the test lets land (or fail) by hand. */
function gatedWrites() {
  const writes: Array<{ ranges: Array<[number, number]>; land: () => void; fail: (error: Error) => void }> =
    [];
  const write = (ranges: Array<[number, number]>) =>
    new Promise<void>((resolve, reject) => {
      writes.push({ ranges, land: resolve, fail: reject });
    });
  return { writes, write };
}

const settled = async (promise: Promise<unknown>) => {
  let done = false;
  void promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('ImportLedger', () => {
  it('keeps one write in flight and carries every import accepted meanwhile in the next', async () => {
    // prepare
    const { writes, write } = gatedWrites();
    const ledger = new ImportLedger([[0, 2]], write);

    // act
    const first = ledger.record(2);
    const second = ledger.record(5);
    const third = ledger.record(3);

    // assess: the first write holds 2 alone, the others wait for it
    expect(writes.map((w) => w.ranges)).toEqual([[[0, 3]]]);
    expect(await settled(first)).toBe(false);
    writes[0]?.land();
    await first;
    expect(await settled(second)).toBe(false);
    expect(writes.map((w) => w.ranges)).toEqual([
      [[0, 3]],
      [
        [0, 4],
        [5, 6],
      ],
    ]);
    writes[1]?.land();
    await Promise.all([second, third]);
    expect(ledger.imported).toEqual([
      [0, 4],
      [5, 6],
    ]);
  });

  it('fails the imports waiting for a failed write and every later one, and writes nothing more', async () => {
    // prepare
    const { writes, write } = gatedWrites();
    const ledger = new ImportLedger([], write);
    const first = ledger.record(0);
    const waiting = ledger.record(1);

    // act
    writes[0]?.fail(new Error('claim lost'));

    // assess
    await expect(first).rejects.toThrow('claim lost');
    await expect(waiting).rejects.toThrow('claim lost');
    await expect(ledger.record(2)).rejects.toThrow('claim lost');
    expect(writes).toHaveLength(1);
    expect(ledger.imported).toEqual([]);
  });
});
