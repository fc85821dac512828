import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createLimiter, mapAll, mapLimit, OptionError } from '../../packages/bridge/src/core/index.ts';

describe('createLimiter', () => {
  it('never runs more tasks at once than its limit, and runs them all', async () => {
    // prepare
    const limit = createLimiter(3);
    let active = 0;
    let peak = 0;
    const task = async (value: number) => {
      active++;
      peak = Math.max(peak, active);
      await sleep(value % 3);
      active--;
      return value * 2;
    };

    // act
    const results = await Promise.all(Array.from({ length: 40 }, (_, index) => limit(() => task(index))));

    // assess
    expect(peak).toBe(3);
    expect(results).toEqual(Array.from({ length: 40 }, (_, index) => index * 2));
  });

  it('frees the slot of a task that throws', async () => {
    // prepare
    const limit = createLimiter(1);

    // act
    const failed = limit(() => Promise.reject(new Error('boom')));
    const next = limit(async () => 'ran');

    // assess
    await expect(failed).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => createLimiter(0)).toThrow(OptionError);
    expect(() => createLimiter(1.5)).toThrow(/positive integer/);
  });
});

describe('mapLimit', () => {
  it('keeps every outcome in the order of the items, failures included', async () => {
    // act
    const results = await mapLimit([1, 2, 3, 4], 2, async (value) => {
      if (value === 2) throw new Error('two');
      return value * 10;
    });

    // assess
    expect(
      results.map((result) => (result?.ok ? result.value : (result?.error as Error | undefined)?.message)),
    ).toEqual([10, 'two', 30, 40]);
  });

  it('starts no further item once told to stop', async () => {
    // prepare
    let started = 0;

    // act
    const results = await mapLimit(
      [1, 2, 3, 4, 5],
      1,
      async (value) => {
        started++;
        return value;
      },
      { shouldStop: () => started >= 2 },
    );

    // assess
    expect(started).toBe(2);
    expect(results.filter((result) => result === undefined)).toHaveLength(3);
  });
});

describe('mapAll', () => {
  it('keeps the items order whatever order the calls finish in', async () => {
    // prepare
    const items = [30, 10, 20, 0];

    // act
    const results = await mapAll(items, 2, async (ms, index) => {
      await sleep(ms);
      return `${index}:${ms}`;
    });

    // assess
    expect(results).toEqual(['0:30', '1:10', '2:20', '3:0']);
  });

  it('rejects with the first error, like Promise.all', async () => {
    // act
    const run = mapAll([1, 2, 3], 1, async (value) => {
      if (value === 2) throw new Error('two');
      return value;
    });

    // assess
    await expect(run).rejects.toThrow('two');
  });

  it('never runs more calls at once than its limit', async () => {
    // prepare
    let active = 0;
    let peak = 0;

    // act
    await mapAll(
      Array.from({ length: 20 }, (_, index) => index),
      4,
      async (value) => {
        active++;
        peak = Math.max(peak, active);
        await sleep(value % 2);
        active--;
      },
    );

    // assess
    expect(peak).toBe(4);
  });
});
