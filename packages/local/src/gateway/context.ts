/**
 * A Lambda `Context` for handlers invoked outside Lambda (local stack, benchmarks), with a deadline
 * so `getRemainingTimeInMillis()` behaves as it does in Lambda.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export interface LocalContextOptions {
  functionName?: string;
  /** The function's timeout; default 30 000 ms. */
  timeoutMs?: number;
  memoryLimitInMB?: number;
  awsRequestId?: string;
}

/**
 * @example
 * ```ts
 * const context = localLambdaContext({ functionName: 'api', timeoutMs: 29_000 });
 * context.getRemainingTimeInMillis(); // ≤ 29000
 * ```
 */
export function localLambdaContext(options: LocalContextOptions = {}): Context {
  const functionName = options.functionName ?? 'local';
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const unsupported = () => {
    throw new Error('done/fail/succeed are not supported locally; return a value or throw instead');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 512),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}
