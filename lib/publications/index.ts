/**
 * Publications: the HTTP API (routes, problem details, OpenAPI), the durable submission with
 * Idempotency-Key semantics, and the publish worker.
 */
export { type Api, type ApiDependencies, createApi } from './api.ts';
export { AUTH_MODES, type AuthMode, type AuthSettings, authenticate, LOCAL_CALLER } from './auth.ts';
export { buildOpenApiDocument } from './openapi.ts';
export {
  ApiProblem,
  type FieldError,
  PROBLEM_TYPE_PREFIX,
  PROBLEMS,
  type ProblemDocument,
} from './problem.ts';
export {
  type PublicationMessage,
  type PublicationQueue,
  PublicationQueueError,
  parsePublicationMessage,
} from './queue.ts';
export { type PublicationRecord, publicationView, readPublication } from './records.ts';
export {
  type ApiSchemas,
  createApiSchemas,
  PUBLICATION_STATUSES,
  type PublicationStatus,
} from './schemas.ts';
export { API_SETTINGS, type ApiSettings, apiSettingsOf, WORKER_SETTINGS, watchTtlMsOf } from './settings.ts';
export { SqsPublicationQueue } from './sqs/queue.ts';
export {
  IdempotencyConflictError,
  IdempotencyContentionError,
  publicationIdFor,
  RequestInProgressError,
  submitPublication,
} from './submit.ts';
export {
  PublicationNotFoundError,
  type PublicationOutcome,
  PublicationRetryError,
  processPublication,
  publicationRecordHandler,
  type WorkerDependencies,
} from './worker.ts';
