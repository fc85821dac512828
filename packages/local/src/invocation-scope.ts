/**
 * One invocation's scope in the local stack, as Lambda gives it when one execution environment runs
 * several invocations at once (Lambda Managed Instances): the runtime keeps each invocation's request
 * id in an AsyncLocalStorage store (`@aws/lambda-invoke-store`, on `globalThis.awslambda`) and sets
 * AWS_LAMBDA_MAX_CONCURRENCY, and Powertools then keeps the logger's Lambda context per invocation.
 *
 * Why: the local stack runs every handler in one process with one Powertools logger. Without a scope
 * per invocation, `logger.addContext` of one invocation overwrote another's, and a publish-worker line
 * carried `function_name: pds-bridge-local-api` and the request id of an unrelated HTTP request.
 * Deployed, each function has its own environment and none of this applies.
 */
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';

/** What the stack declares in AWS_LAMBDA_MAX_CONCURRENCY: invocations of one handler run side by side. */
export const LOCAL_MAX_CONCURRENCY = '64';

/** A handler as the stack invokes it. */
export type LocalInvocation<E, R> = (event: E, context: Context) => Promise<R>;

/**
 * The process's invocation store, created as the multi-invocation kind (AsyncLocalStorage) and
 * published on `globalThis.awslambda.InvokeStore` where Powertools looks for it. Create it before
 * AWS_LAMBDA_MAX_CONCURRENCY is set: Powertools refuses to log without a store once it is.
 */
export function invocationStore(): Promise<InvokeStoreBase> {
  return InvokeStore.getInstanceAsync(true);
}

/**
 * `handler`, each call run in a scope of its own carrying the call's request id, so that what the
 * edge (packages/bridge/src/lambda/handler.ts) adds to the logger belongs to that call only.
 *
 * @example
 * ```ts
 * const store = await invocationStore();
 * const publishWorker = invocationScoped(store, handlers.publishWorker);
 * ```
 */
export function invocationScoped<E, R>(
  store: InvokeStoreBase,
  handler: LocalInvocation<E, R>,
): LocalInvocation<E, R> {
  return (event, context) =>
    store.run({ [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId }, () =>
      handler(event, context),
    );
}

/**
 * Every handler of `handlers` made {@link invocationScoped}.
 *
 * @example
 * ```ts
 * const handlers = everyInvocationScoped(await invocationStore(), createLocalHandlers(process.env));
 * ```
 */
export function everyInvocationScoped<H extends { [K in keyof H]: LocalInvocation<never, unknown> }>(
  store: InvokeStoreBase,
  handlers: H,
): H {
  return Object.fromEntries(
    Object.entries<LocalInvocation<never, unknown>>(handlers).map(([name, handler]) => [
      name,
      invocationScoped(store, handler),
    ]),
  ) as H;
}

/**
 * Builds handlers and, once the process has an invocation store ({@link invocationStore}), scopes
 * each call of each: built in a scope of their own, since Powertools' batch processor writes its
 * initial state into the store, which refuses writes outside a scope.
 *
 * @example
 * ```ts
 * const handlers = withInvocationScopes(() => ({ ingest: lambdaHandler(createIngestHandler(env)) }));
 * ```
 */
export function withInvocationScopes<H extends { [K in keyof H]: LocalInvocation<never, unknown> }>(
  build: () => H,
): H {
  const store = globalThis.awslambda?.InvokeStore;
  if (store === undefined) return build();
  return everyInvocationScoped(
    store,
    store.run({}, () => build()),
  );
}
