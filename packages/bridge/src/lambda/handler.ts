/**
 * The handler edge: what every Lambda function does around its own work, written once. The logger
 * takes the invocation's context (request id, function name, cold start), the cold start is counted,
 * the work runs in the invocation's trace (X-Ray subsegment in Lambda, packages/bridge/src/lambda/tracing.ts; the
 * `traceparent` its events carry, packages/bridge/src/core/trace-context.ts), every retry inside it shares one retry
 * budget and never waits past the invocation's end (packages/bridge/src/core/retry.ts), and the invocation's metrics
 * are written even when the work throws.
 *
 * A function's module is wiring only: it reads its configuration through its flow's factory and
 * hands the result to {@link lambdaHandler}.
 *
 * @example
 * ```ts
 * // packages/bridge/functions/ingest.ts
 * export const handler = lambdaHandler(createIngestHandler(process.env));
 * ```
 */
import type { Context } from 'aws-lambda';
import { RetryBudget, traceparentFromXRay, withRetryScope, withTraceparent } from '../core/index.ts';
import { flushMetrics, logger, metrics } from './adapters.ts';
import { invocationTracing, tracingEnabled } from './tracing.ts';

// Loaded while the rest of the cold start runs; awaited by the first invocation.
if (tracingEnabled()) void invocationTracing();

/**
 * The invocation's X-Ray trace header: Lambda keeps it in `_X_AMZN_TRACE_ID`, or, where one
 * environment runs several invocations at once, in its invoke store.
 */
function xrayTraceHeader(): string | undefined {
  const store = (globalThis as { awslambda?: { InvokeStore?: { getXRayTraceId(): string | undefined } } })
    .awslambda?.InvokeStore;
  return store?.getXRayTraceId() ?? process.env._X_AMZN_TRACE_ID;
}

/** One invocation's work: what a flow's handler factory returns. */
export type InvocationHandler<E, R> = (event: E, context: Context) => Promise<R>;

/** What the edge adds besides the logger context and the metrics flush. */
export interface EdgeOptions {
  /**
   * Record Powertools' `ColdStart` metric on the first invocation. Default `true`; the api and the
   * publish worker have never recorded it, and their dashboards do not expect it.
   */
  readonly coldStartMetric?: boolean;
}

/**
 * Wraps one flow's work with the logger context, the cold-start metric and the metrics flush.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(async (event: SQSEvent) => processBatch(event));
 * ```
 */
export function lambdaHandler<E, R>(
  handle: InvocationHandler<E, R>,
  options: EdgeOptions = {},
): InvocationHandler<E, R> {
  const coldStartMetric = options.coldStartMetric ?? true;
  return async (event, context) => {
    logger.addContext(context);
    if (coldStartMetric) metrics.captureColdStartMetric();
    try {
      const tracing = await invocationTracing();
      // Outside Lambda there is no header: a fresh trace per invocation.
      // One retry budget per invocation, and its deadline when the context tells the time left.
      const remainingMs = context?.getRemainingTimeInMillis?.bind(context);
      return await withRetryScope({ budget: new RetryBudget(), remainingMs }, () =>
        withTraceparent(traceparentFromXRay(xrayTraceHeader()), () =>
          tracing ? tracing.trace(() => handle(event, context)) : handle(event, context),
        ),
      );
    } finally {
      flushMetrics();
    }
  };
}
