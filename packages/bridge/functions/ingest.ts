/**
 * λ ingest: S3 drop notifications from the ingest queue (or a plain S3 event, invoked directly) are
 * streamed into the PDS and imported exactly once. Logic: packages/bridge/src/ingest (handlers.ts wires it).
 */

import { createIngestHandler } from '../src/ingest/handlers.ts';
import { lambdaHandler } from '../src/lambda/handler.ts';

/** SQS event: partial batch response; direct S3 event: counts, or the error of a write to retry. */
export const handler = lambdaHandler(createIngestHandler(process.env));
