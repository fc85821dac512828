/**
 * The publish worker: consumes the internal publication queue (SQS, partial batch responses) and
 * carries out each publication. Logic: packages/bridge/src/publications (handlers.ts wires it).
 */
import { lambdaHandler } from '../src/lambda/handler.ts';
import { createPublishWorkerHandler } from '../src/publications/handlers.ts';

// No cold-start metric: this function has never recorded one.
export const handler = lambdaHandler(createPublishWorkerHandler(process.env), { coldStartMetric: false });
