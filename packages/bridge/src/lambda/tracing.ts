/**
 * X-Ray tracing of the functions, with Powertools' Tracer: one `## <handler>` subsegment per
 * invocation (cold start and service annotated), and below it one subsegment per S3 and SQS call (the
 * process-wide SDK clients of packages/bridge/src/lambda/aws-clients.ts) and per PDS request. Tracer finds the PDS requests itself:
 * with `captureHTTPsRequests` on (its default), it has the X-Ray SDK replace `request` and `get` on the
 * `node:http` and `node:https` module objects (`captureHTTPsGlobal`), and the PDS transport calls
 * `https.request` through that object (packages/bridge/src/pds/exchange.ts); each request's subsegment is named after
 * the PDS host and carries method, URL and status, and the request carries the `X-Amzn-Trace-Id`
 * header.
 *
 * Tracer (with the X-Ray SDK, about 100 KiB) is imported only where tracing is on, that is in Lambda
 * (docs/benchmarks.md#cold-start): locally and in tests nothing of it is loaded.
 *
 * @example
 * ```ts
 * const tracing = await invocationTracing();
 * return tracing ? tracing.trace(() => work()) : work();
 * ```
 */

import { once } from '../core/lazy.ts';
import { logger, serviceName } from './adapters.ts';
import { s3Client, sqsClient } from './aws-clients.ts';

type Env = Record<string, string | undefined>;

/**
 * Whether X-Ray tracing is on, by Tracer's own rule: in Lambda (`AWS_EXECUTION_ENV` set), not in
 * `sam local` or the Amplify mock, and not switched off with `POWERTOOLS_TRACE_ENABLED=false`.
 * Decided here so that, off, Tracer is never imported.
 */
export function tracingEnabled(env: Env = process.env): boolean {
  const executionEnv = env.AWS_EXECUTION_ENV ?? '';
  if (executionEnv === '' || executionEnv === 'AWS_Lambda_amplify-mock') return false;
  if ((env.AWS_SAM_LOCAL ?? '') !== '') return false;
  return (env.POWERTOOLS_TRACE_ENABLED ?? '').trim().toLowerCase() !== 'false';
}

/** Wraps one invocation's work in its subsegment. */
export interface InvocationTracing {
  trace<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * The tracer of this process, loaded and attached to the SDK clients on first call; `undefined`
 * when tracing is off. Starting it early (at cold start) overlaps the import with the rest of the
 * function's initialisation.
 */
export const invocationTracing = once(async (): Promise<InvocationTracing | undefined> => {
  if (!tracingEnabled()) return undefined;
  try {
    return await startTracing();
  } catch (error) {
    // Traces are for looking into the work; losing them must not stop it.
    logger.error('X-Ray tracing is off: the tracer could not be started', { error });
    return undefined;
  }
});

async function startTracing(): Promise<InvocationTracing> {
  const { Tracer } = await import('@aws-lambda-powertools/tracer');
  const tracer = new Tracer({ serviceName });
  tracer.captureAWSv3Client(s3Client());
  tracer.captureAWSv3Client(sqsClient());
  const name = `## ${process.env._HANDLER ?? 'handler'}`;
  return {
    async trace(work) {
      // Lambda's own segment cannot take annotations (X-Ray's rule): the invocation gets a
      // subsegment, as Powertools' middleware and decorator do it.
      const segment = tracer.getSegment();
      const subsegment = segment?.addNewSubsegment(name);
      if (segment === undefined || subsegment === undefined) return work();
      tracer.setSegment(subsegment);
      tracer.annotateColdStart();
      tracer.addServiceNameAnnotation();
      try {
        return await work();
      } catch (error) {
        tracer.addErrorAsMetadata(error as Error);
        throw error;
      } finally {
        subsegment.close();
        tracer.setSegment(segment);
      }
    },
  };
}
