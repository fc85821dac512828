/**
 * S3 drops into the PDS: read the S3 notification, filter, stream the object into a gathering, import
 * every entry exactly once, report the outcome as an event and as tags on the object.
 *
 * @example
 * ```ts
 * const report = await ingestNotification(parseS3NotificationBody(body), deps);
 * reportNotification(report, { log: logger, metrics });
 * throwIfAnyFailed(report);
 * ```
 */

export {
  IngestEventError,
  IngestInProgressError,
  IngestRejectedError,
  inProgressUntil,
  isRetryable,
  ObjectSourceError,
  type ObjectSourceProblem,
} from './errors.ts';
export { completedEvent, failedEvent, writeIdParts } from './events.ts';
export {
  createIngestFilter,
  type FilterDecision,
  type IngestFilterOptions,
  parseSuffixList,
} from './filters.ts';
export {
  INGEST_TAG_KEYS,
  type IngestObjectDeps,
  type IngestOutcome,
  ingestObject,
} from './ingest-object.ts';
export { MemoryObjectTagger } from './memory-tagger.ts';
export {
  ingestNotification,
  type NotificationDeps,
  type NotificationReport,
  throwIfAnyFailed,
  type WriteResult,
} from './notification.ts';
export { OncePerBatch } from './once-per-batch.ts';
export type {
  IngestPdsClient,
  IngestTags,
  ObjectRef,
  ObjectSource,
  ObjectTagger,
  OpenedObject,
  TagResult,
} from './ports.ts';
export {
  type ClaimOptions,
  type ClaimResult,
  claimIngest,
  IngestClaim,
  type IngestEntryProgress,
  type IngestProgressRecord,
  type IngestStatus,
} from './progress.ts';
export { reportNotification } from './report.ts';
export { type IngestSummary, ingestS3Event, ingestSqsBody, type RunSinks, summarize } from './run.ts';
export { S3ObjectSource, S3ObjectTagger } from './s3/adapters.ts';
export {
  decodeS3Key,
  type IgnoredS3Record,
  type ObjectWriteEvent,
  parseS3Event,
  parseS3NotificationBody,
  type S3Notification,
} from './s3-event.ts';
export { INGEST_EVENT_TYPES, INGEST_SETTINGS, type IngestOptions, ingestOptionsFrom } from './settings.ts';
export {
  DEFAULT_STEP_RETRY,
  retryPdsStep,
  type StepRetryEvent,
  type StepRetryOptions,
  type StepRetryPolicy,
} from './step-retry.ts';
export { MAX_OBJECT_TAGS, mergeTags, type ObjectTag } from './tags.ts';
export { uploadContentType, uploadFileName } from './upload-name.ts';
