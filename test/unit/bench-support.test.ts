/**
 * The benches' statistics: the interval bench/upload.ts prints around a median cost, which tells a
 * reader whether a figure near its target is a measurement or the runs' spread.
 */
import { describe, expect, it } from 'vitest';
import { medianInterval } from '../../bench/support.ts';

/** A seeded generator of uniform numbers in [0, 1), so the test draws the same samples every run. */
function uniform(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('medianInterval', () => {
  it('takes the order statistics n/2 ∓ 1.96·√n/2, rounded outwards', () => {
    const ranks = (n: number) => medianInterval(Array.from({ length: n }, (_, index) => index + 1));

    expect(ranks(81)).toEqual([31, 51]);
    expect(ranks(21)).toEqual([6, 16]);
    expect(ranks(3)).toEqual([1, 3]);
    expect(ranks(1)).toEqual([1, 1]);
  });

  it('holds the true median in about 95 % of samples', () => {
    const random = uniform(7);
    const samples = 2_000;
    let covered = 0;
    for (let sample = 0; sample < samples; sample++) {
      const values = Array.from({ length: 21 }, random).sort((a, b) => a - b);
      const [low, high] = medianInterval(values);
      if (low <= 0.5 && 0.5 <= high) covered += 1;
    }

    expect(covered / samples).toBeGreaterThan(0.93);
    expect(covered / samples).toBeLessThan(0.99);
  });
});
