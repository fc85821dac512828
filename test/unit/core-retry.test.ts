import { describe, expect, it } from 'vitest';
import {
  BridgeError,
  currentRetryScope,
  isRetryable,
  RetryBudget,
  type RetryPolicy,
  retry,
  retryDelay,
  retryEach,
  withRetryScope,
} from '../../packages/bridge/src/core/index.ts';

const transient = () => new BridgeError('BUSY', 'busy, try later', { retryable: true });
const permanent = () => new BridgeError('BAD', 'bad input');

/** A sleep that records its waits instead of waiting. */
function recordingSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

/** An operation failing `failures` times with `error()`, then answering 'ok'. */
function failing(failures: number, error: () => unknown = transient) {
  const calls: number[] = [];
  return {
    calls,
    run: async (attempt: number) => {
      calls.push(attempt);
      if (calls.length <= failures) throw error();
      return 'ok';
    },
  };
}

describe('retry: attempts', () => {
  it('tries again after a retryable failure and returns the first success', async () => {
    // prepare
    const op = failing(2);
    const { waits, sleep } = recordingSleep();

    // act
    const value = await retry(op.run, { maxAttempts: 4, baseDelayMs: 100, jitter: 'none' }, { sleep });

    // assess
    expect(value).toBe('ok');
    expect(op.calls).toEqual([1, 2, 3]);
    expect(waits).toEqual([100, 200]);
  });

  it('stops at maxAttempts and throws the last error as it came', async () => {
    // prepare
    const errors: unknown[] = [];
    const op = failing(10, () => {
      const error = transient();
      errors.push(error);
      return error;
    });
    const { sleep } = recordingSleep();

    // act
    const caught = await retry(op.run, { maxAttempts: 3 }, { sleep }).catch((error: unknown) => error);

    // assess
    expect(errors).toHaveLength(3);
    expect(caught).toBe(errors[2]);
    expect(op.calls).toEqual([1, 2, 3]);
  });

  it('never retries an error the error model marks not retryable', async () => {
    // prepare
    const op = failing(1, permanent);
    const { waits, sleep } = recordingSleep();

    // act & assess
    await expect(retry(op.run, { maxAttempts: 5 }, { sleep })).rejects.toMatchObject({ code: 'BAD' });
    expect(op.calls).toEqual([1]);
    expect(waits).toEqual([]);
  });

  it('retries the extra errors a caller names, and only those', async () => {
    // prepare
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const op = failing(1, () => reset);
    const policy: RetryPolicy = {
      maxAttempts: 3,
      retryable: (error) => isRetryable(error) || (error as { code?: string }).code === 'ECONNRESET',
    };

    // act & assess
    expect(await retry(op.run, policy, recordingSleep())).toBe('ok');
    expect(op.calls).toEqual([1, 2]);
  });
});

describe('retryDelay: back-off and hints', () => {
  it('stays within [0, min(maxDelayMs, base * 2^(n-1))) with full jitter', () => {
    // prepare
    const policy: RetryPolicy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };

    // act
    const highest = [1, 2, 3, 4, 5].map((attempt) =>
      retryDelay(policy, attempt, transient(), () => 0.999_999),
    );
    const lowest = [1, 2, 3, 4, 5].map((attempt) => retryDelay(policy, attempt, transient(), () => 0));
    const half = retryDelay(policy, 3, transient(), () => 0.5);

    // assess
    expect(highest).toEqual([99, 199, 399, 799, 999]);
    expect(lowest).toEqual([0, 0, 0, 0, 0]);
    expect(half).toBe(200);
  });

  it("waits for the error's Retry-After instead of the back-off, capped at maxHintMs", () => {
    // prepare
    const hinted = (ms: number) => Object.assign(transient(), { retryAfterMs: ms });
    const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 100, maxHintMs: 5000 };

    // act & assess
    expect(retryDelay(policy, 1, hinted(2500), () => 0)).toBe(2500);
    expect(retryDelay(policy, 1, hinted(60_000), () => 0)).toBe(5000);
  });
});

describe('retry: deadline', () => {
  it('gives up instead of sleeping past the time left in the invocation', async () => {
    // prepare
    const op = failing(5);
    const { waits, sleep } = recordingSleep();
    let remaining = 1000;
    const timed = async () => {
      remaining -= 300; // each wait below is 200 ms, each attempt 100 ms
      return sleep(200);
    };

    // act
    const outcome = retry(
      async (attempt) => {
        remaining -= 100;
        return op.run(attempt);
      },
      { maxAttempts: 10, baseDelayMs: 200, maxDelayMs: 200, jitter: 'none', reserveMs: 100 },
      { sleep: timed, remainingMs: () => remaining },
    );

    // assess
    await expect(outcome).rejects.toMatchObject({ code: 'BUSY' });
    // 900 left: wait; 600 left: wait; 300 left: 300 - 200 <= 100 reserve, give up.
    expect(waits).toEqual([200, 200]);
    expect(op.calls).toEqual([1, 2, 3]);
  });

  it("takes the deadline from the invocation's scope when the run names none", async () => {
    // prepare
    const op = failing(5);
    const { waits, sleep } = recordingSleep();

    // act
    const outcome = withRetryScope({ remainingMs: () => 150 }, () =>
      retry(op.run, { maxAttempts: 5, baseDelayMs: 100, jitter: 'none' }, { sleep }),
    );

    // assess: the first wait (100) fits in 150, the second (200) does not.
    await expect(outcome).rejects.toMatchObject({ code: 'BUSY' });
    expect(waits).toEqual([100]);
  });
});

describe('RetryBudget', () => {
  it('ends retries once its tokens are spent, whatever attempts remain', async () => {
    // prepare
    const budget = new RetryBudget(10);
    const op = failing(100);

    // act & assess
    await expect(retry(op.run, { maxAttempts: 50 }, { budget, ...recordingSleep() })).rejects.toMatchObject({
      code: 'BUSY',
    });
    expect(op.calls).toEqual([1, 2, 3]);
    expect(budget.available).toBe(0);
  });

  it('charges a timeout more than another failure', () => {
    // prepare
    const budget = new RetryBudget(100);

    // act
    budget.spend(new BridgeError('TIMEOUT', 'no answer', { retryable: true }));
    budget.spend(transient());

    // assess
    expect(budget.available).toBe(85);
  });

  it('refunds the last retry on a success after retries, a little on a success at once, never above capacity', async () => {
    // prepare
    const budget = new RetryBudget(20);

    // act
    await retry(failing(2).run, { maxAttempts: 5 }, { budget, ...recordingSleep() });
    const afterRecovery = budget.available;
    await retry(failing(0).run, { maxAttempts: 5 }, { budget });
    const afterSuccess = budget.available;
    for (let index = 0; index < 30; index++) await retry(failing(0).run, { maxAttempts: 5 }, { budget });

    // assess: two retries spent 10, the recovery gave 5 back; a first-try success gives 1.
    expect(afterRecovery).toBe(15);
    expect(afterSuccess).toBe(16);
    expect(budget.available).toBe(20);
  });

  it('is shared by nested loops in one scope, so retries do not multiply across layers', async () => {
    // prepare: an inner call (a transport) and an outer step both retry 4 times.
    const budget = new RetryBudget(25);
    let calls = 0;
    const inner = () =>
      retry(
        async () => {
          calls += 1;
          throw transient();
        },
        { maxAttempts: 4 },
        recordingSleep(),
      );

    // act
    const outcome = withRetryScope({ budget }, () => retry(inner, { maxAttempts: 4 }, recordingSleep()));

    // assess: 4 x 4 = 16 calls without the budget; with it, one first call plus five paid retries.
    await expect(outcome).rejects.toMatchObject({ code: 'BUSY' });
    expect(calls).toBe(6);
  });

  it('is not used outside a scope: only the attempts bound a loop there', async () => {
    // prepare
    const op = failing(3);

    // act
    const value = await retry(op.run, { maxAttempts: 4 }, recordingSleep());

    // assess
    expect(currentRetryScope()).toBeUndefined();
    expect(value).toBe('ok');
  });
});

describe('retryEach', () => {
  it('sends again only the items that failed, and returns those still failing after the attempts', async () => {
    // prepare
    const sent: string[][] = [];
    const { waits, sleep } = recordingSleep();

    // act
    const result = await retryEach(
      ['a', 'b', 'c'],
      async (pending) => {
        sent.push([...pending]);
        return pending.filter((item) => item !== 'a');
      },
      { maxAttempts: 3, baseDelayMs: 100, jitter: 'none' },
      { sleep },
    );

    // assess
    expect(sent).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c'],
      ['b', 'c'],
    ]);
    expect(result).toEqual({ left: ['b', 'c'], attempts: 3 });
    expect(waits).toEqual([100, 200]);
  });

  it('stops early when the budget is spent', async () => {
    // prepare
    const budget = new RetryBudget(5);

    // act
    const result = await retryEach(
      ['a'],
      async (pending) => pending,
      { maxAttempts: 10 },
      {
        budget,
        ...recordingSleep(),
      },
    );

    // assess
    expect(result).toEqual({ left: ['a'], attempts: 2 });
  });
});
