import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RetryBudget, withRetryScope } from '../../packages/bridge/src/core/index.ts';
import { DEFAULT_STEP_RETRY, retryPdsStep } from '../../packages/bridge/src/ingest/step-retry.ts';
import { lambdaHandler } from '../../packages/bridge/src/lambda/handler.ts';
import { PdsTransport } from '../../packages/bridge/src/pds/transport.ts';

/** An address on 127.0.0.1 where nothing listens: every connect is refused (a PDS outage). */
async function refusedBaseUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}`;
}

/** A transport retrying 4 times (refused connects never reached the PDS) that counts its attempts. */
function countingTransport(baseUrl: string) {
  let connects = 0;
  const transport = new PdsTransport({
    baseUrl,
    credentials: { username: 'demo', password: 'demo' },
    retry: { maxAttempts: 4 },
    sleep: async () => {},
    onAnswer: () => {
      connects += 1;
    },
  });
  return { transport, connects: () => connects };
}

/** An ingest step (4 attempts) over one transport POST: the layering of packages/bridge/src/ingest. */
function importStep(transport: PdsTransport) {
  return retryPdsStep(
    'import',
    () => transport.request({ method: 'POST', path: '/api/v1/imports', json: {}, expect: 'none' }),
    { ...DEFAULT_STEP_RETRY, remainingMs: () => 900_000, sleep: async () => {} },
  );
}

describe('one retry budget per invocation, shared across layers', () => {
  it('multiplies without a scope: 4 step attempts x 4 transport attempts (the behaviour the budget bounds)', async () => {
    // prepare
    const { transport, connects } = countingTransport(await refusedBaseUrl());

    // act
    await expect(importStep(transport)).rejects.toMatchObject({ code: 'NETWORK' });
    await transport.close();

    // assess
    expect(connects()).toBe(16);
  });

  it('bounds a PDS outage under an ingest step by the budget, not attempts x attempts', async () => {
    // prepare: 25 tokens pay for five retries of cost 5, whichever layer makes them.
    const { transport, connects } = countingTransport(await refusedBaseUrl());
    const budget = new RetryBudget(25);

    // act
    await expect(withRetryScope({ budget }, () => importStep(transport))).rejects.toMatchObject({
      code: 'NETWORK',
    });
    await transport.close();

    // assess: the first connect and five paid retries; the budget is spent.
    expect(connects()).toBe(6);
    expect(budget.available).toBe(0);
  });

  it('gives every Lambda invocation its own budget at the handler edge', async () => {
    // prepare: the default budget (500 tokens, 5 a retry) is 100 retries per invocation.
    const baseUrl = await refusedBaseUrl();
    const budgets: number[] = [];
    const handler = lambdaHandler(async () => {
      const { transport, connects } = countingTransport(baseUrl);
      const steps = Array.from({ length: 30 }, () => importStep(transport).catch(() => undefined));
      await Promise.all(steps);
      await transport.close();
      budgets.push(connects());
    });
    const context = { getRemainingTimeInMillis: () => 900_000 } as Parameters<typeof handler>[1];

    // act
    await handler(undefined, context);
    await handler(undefined, context);

    // assess: 30 steps x 16 = 480 connects unbounded; 30 first connects + 100 retries each time.
    expect(budgets).toEqual([130, 130]);
  });
});
