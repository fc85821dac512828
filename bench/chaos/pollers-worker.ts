/**
 * One Lambda "container" of the pollers' chaos run: a process that loads one poller's handler once
 * (the cold start) and then runs it once per invocation the parent sends over the IPC channel, as the
 * Lambda runtime reuses a container. bench/chaos/pollers.ts bundles this file as the functions are
 * shipped (scripts/bundle-options.ts), forks it with the function's environment, and SIGKILLs it at
 * random moments: a killed container is replaced by a cold one.
 *
 *   node pollers-worker.mjs poll-messaging-assets | poll-supplier-reviews | poll-supplier-reviews-worker
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

export type PollerFunction =
  | 'poll-messaging-assets'
  | 'poll-supplier-reviews'
  | 'poll-supplier-reviews-worker';

/** An invocation: the event, and the function timeout the context's remaining time counts down from. */
export interface Invocation {
  id: number;
  event: unknown;
  timeoutMs: number;
}

/** The answer: the handler's value, or the error it threw (name and message, as Lambda reports it). */
export type InvocationResult =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

type Handler = (event: never, context: Context) => Promise<unknown>;

/** Static imports per function, so the bundler includes all three and loads only the one asked for. */
async function loadHandler(name: string): Promise<Handler> {
  switch (name) {
    case 'poll-messaging-assets':
      return (await import('../../packages/bridge/functions/poll-messaging-assets.ts')).handler as Handler;
    case 'poll-supplier-reviews':
      return (await import('../../packages/bridge/functions/poll-supplier-reviews.ts')).handler as Handler;
    case 'poll-supplier-reviews-worker':
      return (await import('../../packages/bridge/functions/poll-supplier-reviews-worker.ts'))
        .handler as Handler;
    default:
      throw new Error(`unknown poller function '${name}'`);
  }
}

function contextFor(name: string, timeoutMs: number): Context {
  const endsAt = Date.now() + timeoutMs;
  return {
    awsRequestId: randomUUID(),
    functionName: `chaos-${name}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:chaos-${name}`,
    memoryLimitInMB: '512',
    logGroupName: `/aws/lambda/chaos-${name}`,
    logStreamName: 'chaos',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, endsAt - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

const name = process.argv[2] ?? '';
const handler = await loadHandler(name);
process.on('message', (invocation: Invocation) => {
  handler(invocation.event as never, contextFor(name, invocation.timeoutMs)).then(
    (value) => process.send?.({ id: invocation.id, ok: true, value } satisfies InvocationResult),
    (error: Error) =>
      process.send?.({
        id: invocation.id,
        ok: false,
        error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) },
      } satisfies InvocationResult),
  );
});
// The parent going away ends the container: a fault run never leaves processes behind.
process.on('disconnect', () => process.exit(0));
process.send?.({ ready: true });
