/**
 * The main lane's budget (packages/bridge/src/webhooks/lane-budget.ts): the cap until answers are
 * known, then five times their median within the floor and the cap, re-read while an attempt runs.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BUDGET_FACTOR,
  MainLaneBudget,
  MIN_BUDGET_MS,
  MIN_SAMPLES,
} from '../../packages/bridge/src/webhooks/lane-budget.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const budgetWith = (capMs: number, answers: number[]) => {
  const budget = new MainLaneBudget(capMs, () => Date.now());
  for (const ms of answers) budget.answered(ms);
  return budget;
};

describe("the main lane's budget", () => {
  it('is the cap until enough answers are known, then the factor times their median', () => {
    expect(budgetWith(2_000, [20, 30].slice(0, MIN_SAMPLES - 1)).currentMs()).toBe(2_000);
    expect(budgetWith(2_000, [20, 40, 30]).currentMs()).toBe(BUDGET_FACTOR * 30);
  });

  it('never goes under the floor nor over the cap', () => {
    expect(budgetWith(2_000, [1, 1, 2]).currentMs()).toBe(MIN_BUDGET_MS);
    expect(budgetWith(2_000, [900, 1_000, 1_100]).currentMs()).toBe(2_000);
  });

  it('follows the recent answers: a slow receiver among fast ones does not raise it much', () => {
    const budget = budgetWith(2_000, [...Array(9).fill(20), 1_500]);
    expect(budget.currentMs()).toBe(BUDGET_FACTOR * 20);
    for (let n = 0; n < 64; n++) budget.answered(300);
    expect(budget.currentMs()).toBe(1_500);
  });

  it('stops an attempt once the answers that come while it runs lower the budget below its age', () => {
    const budget = budgetWith(2_000, []);
    const stopped: number[] = [];
    budget.watch((ms) => stopped.push(ms));
    vi.advanceTimersByTime(150);
    expect(stopped).toEqual([]);
    for (const ms of [20, 20, 20]) budget.answered(ms);
    expect(stopped).toEqual([BUDGET_FACTOR * 20]);
  });

  it('stops an attempt at the budget, and not one that ended first', () => {
    const budget = budgetWith(2_000, [20, 20, 20]);
    const stopped: string[] = [];
    budget.watch(() => stopped.push('late'));
    const end = budget.watch(() => stopped.push('ended'));
    vi.advanceTimersByTime(50);
    end();
    vi.advanceTimersByTime(BUDGET_FACTOR * 20);
    expect(stopped).toEqual(['late']);
  });
});
