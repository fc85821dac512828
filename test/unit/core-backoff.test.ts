import { describe, expect, it } from 'vitest';
import { backoffDelayMs, retryAfterDelayMs } from '../../packages/bridge/src/core/index.ts';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, maxMs: 1000 };

  it('doubles the ceiling with each failed attempt, starting at the base', () => {
    // act
    const delays = [1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, policy, () => 1));

    // assess
    expect(delays).toEqual([100, 200, 400, 800]);
  });

  it('never exceeds the cap, however many attempts failed', () => {
    // act & assess
    expect(backoffDelayMs(5, policy, () => 1)).toBe(1000);
    expect(backoffDelayMs(10_000, policy, () => 1)).toBe(1000);
  });

  it('scales the ceiling by the random draw (full jitter)', () => {
    // act & assess
    expect(backoffDelayMs(3, policy, () => 0.25)).toBe(100);
    expect(backoffDelayMs(3, policy, () => 0)).toBe(0);
  });

  it('draws from Math.random by default, within the ceiling', () => {
    // act
    const delay = backoffDelayMs(2, policy);

    // assess
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(200);
  });
});

describe('retryAfterDelayMs', () => {
  it('honours a Retry-After up to the cap and never waits a negative time', () => {
    // act & assess
    expect(retryAfterDelayMs(2000, 30_000)).toBe(2000);
    expect(retryAfterDelayMs(90_000, 30_000)).toBe(30_000);
    expect(retryAfterDelayMs(-5, 30_000)).toBe(0);
  });
});
