/**
 * The local stack runs every handler in one process with one Powertools logger. Each invocation's log
 * lines must carry its own function name and request id, as deployed functions' do, even when another
 * handler's invocation starts in the middle of it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '../../packages/bridge/src/lambda/adapters.ts';
import { lambdaHandler } from '../../packages/bridge/src/lambda/handler.ts';
import { localLambdaContext } from '../../packages/local/src/gateway/index.ts';
import {
  invocationScoped,
  invocationStore,
  LOCAL_MAX_CONCURRENCY,
} from '../../packages/local/src/invocation-scope.ts';

const previous = process.env.AWS_LAMBDA_MAX_CONCURRENCY;

beforeAll(async () => {
  // As the stack does: the store first, then the variable (packages/local/src/environment.ts).
  await invocationStore();
  process.env.AWS_LAMBDA_MAX_CONCURRENCY = LOCAL_MAX_CONCURRENCY;
});

afterAll(() => {
  if (previous === undefined) delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
  else process.env.AWS_LAMBDA_MAX_CONCURRENCY = previous;
});

/** The JSON log lines written while `run` runs. */
async function logLinesOf(run: () => Promise<unknown>): Promise<Array<Record<string, unknown>>> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => typeof line.message === 'string');
}

describe('handlers of the local stack, invoked at the same time', () => {
  it('log with their own function name and request id', async () => {
    // prepare: the api starts, the publish worker runs while the api is still working
    let apiMayEnd: () => void = () => undefined;
    const apiWaits = new Promise<void>((resolve) => {
      apiMayEnd = resolve;
    });
    const store = await invocationStore();
    const api = invocationScoped(
      store,
      lambdaHandler(
        async () => {
          logger.info('api started');
          await apiWaits;
          logger.info('api ended');
        },
        { coldStartMetric: false },
      ),
    );
    const worker = invocationScoped(
      store,
      lambdaHandler(
        async () => {
          logger.info('worker ran');
          apiMayEnd();
        },
        { coldStartMetric: false },
      ),
    );

    // act
    const lines = await logLinesOf(() =>
      Promise.all([
        api({}, localLambdaContext({ functionName: 'pds-bridge-local-api', awsRequestId: 'http-request-1' })),
        worker(
          {},
          localLambdaContext({ functionName: 'pds-bridge-local-publish-worker', awsRequestId: 'sqs-1' }),
        ),
      ]),
    );

    // assess
    const byMessage = Object.fromEntries(
      lines.map((line) => [line.message, { name: line.function_name, id: line.function_request_id }]),
    );
    expect(byMessage).toEqual({
      'api started': { name: 'pds-bridge-local-api', id: 'http-request-1' },
      'worker ran': { name: 'pds-bridge-local-publish-worker', id: 'sqs-1' },
      'api ended': { name: 'pds-bridge-local-api', id: 'http-request-1' },
    });
  });
});
