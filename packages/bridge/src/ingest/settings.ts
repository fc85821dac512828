/**
 * The ingest function's own configuration variables, read by `loadConfig` at cold start.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `INGEST_BUCKETS` | (required) | comma-separated drop buckets this ingest serves; a notification naming another bucket is refused unread (`pds.ingest.failed` `invalid-notification`) |
 * | `INGEST_PREFIX` | (all) | only keys starting with this are ingested |
 * | `INGEST_SUFFIXES` | (all) | comma-separated key endings to ingest, case-insensitive, e.g. `.csv,.json,.zip` |
 * | `INGEST_TAG_OBJECTS` | `true` | tag dropped objects with `pds-gathering-key` and `pds-ingest-outcome` (false for the local emulator) |
 * | `INGEST_LEASE_SECONDS` | `960` | how long a delivery holds its claim on an object write; keep it above the function timeout |
 * | `INGEST_PDS_ATTEMPTS` | `4` | attempts per PDS step (upload, each import) within one invocation after a transient answer; 1 leaves every retry to SQS |
 * | `INGEST_IMPORT_CONCURRENCY` | `8` | imports of one file in flight at once; also the most imports a kill can repeat |
 * | `INGEST_RETRY_DELAY_SECONDS` | `30` | delay before a failed record comes back, doubled per receive up to 900 s |
 * | `INGEST_CONTENT_CHECK` | `true` | check CSV, JSON and ZIP members while they stream; a file the PDS cannot import fails (`unreadable`) instead of being imported |
 */
import { setting } from '../config/index.ts';
import { createIngestFilter, type FilterDecision, parseSuffixList } from './filters.ts';
import { DEFAULT_IMPORT_CONCURRENCY } from './import-ledger.ts';
import { DEFAULT_RETRY_DELAY, type RetryDelayPolicy } from './retry-delay.ts';
import { DEFAULT_STEP_RETRY, type StepRetryPolicy } from './step-retry.ts';

export const INGEST_SETTINGS = Object.freeze({
  INGEST_BUCKETS: setting.string(
    'comma-separated names of the drop buckets this ingest serves, e.g. pds-bridge-drop-123456789012-eu-west-1-prod; a notification naming another bucket is refused without reading it',
    {
      pattern: /^\s*[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\s*(,\s*[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\s*)*$/,
      hint: 'one or more S3 bucket names separated by commas, such as pds-bridge-drop-prod,partner-drops',
    },
  ),
  INGEST_PREFIX: setting.string(
    'only keys starting with this are ingested, e.g. incoming/ (unset: every key)',
  ),
  INGEST_SUFFIXES: setting.string(
    'comma-separated key endings to ingest, case-insensitive, e.g. .csv,.json,.zip (unset: every key)',
    { pattern: /^[^,]*[^,\s][^,]*(,[^,]*)*$/, hint: 'a comma-separated list such as .csv,.json,.zip' },
  ),
  INGEST_TAG_OBJECTS: setting.boolean(
    'whether dropped objects are tagged with pds-gathering-key and pds-ingest-outcome (false for the local emulator)',
    { default: true },
  ),
  INGEST_LEASE_SECONDS: setting.integer(
    'seconds a delivery holds its claim on an object write; keep it above the function timeout',
    { min: 30, max: 43_200, default: 960 },
  ),
  INGEST_PDS_ATTEMPTS: setting.integer(
    'attempts per PDS step (upload, each import) within one invocation after a 503, 429, reset or timeout; 1 leaves every retry to SQS',
    { min: 1, max: 10, default: DEFAULT_STEP_RETRY.maxAttempts },
  ),
  INGEST_IMPORT_CONCURRENCY: setting.integer(
    'imports of one file (one per entry: ZIP members) in flight at once against the PDS; also the most imports a kill of the function can leave accepted but unrecorded, and so repeat',
    { min: 1, max: 64, default: DEFAULT_IMPORT_CONCURRENCY },
  ),
  INGEST_RETRY_DELAY_SECONDS: setting.integer(
    "seconds before a failed record comes back; doubled per receive, at most 900 (a record waiting for another delivery's claim comes back when that claim's lease ends)",
    { min: 1, max: DEFAULT_RETRY_DELAY.maxSeconds, default: DEFAULT_RETRY_DELAY.baseSeconds },
  ),
  INGEST_CONTENT_CHECK: setting.boolean(
    'whether CSV and JSON files (also as ZIP members) are checked while they stream: not UTF-8, not well-formed, an unclosed quote or a row whose field count differs from the header fails the file (pds.ingest.failed unreadable) before anything of it is imported; false imports every file as it is',
    { default: true },
  ),
});

/** The event types the ingest function emits (each needs a queue at cold start). */
export const INGEST_EVENT_TYPES = ['pds.ingest.completed', 'pds.ingest.failed'] as const;

/** The ingest settings as the logic uses them. */
export interface IngestOptions {
  /** The drop buckets this ingest serves (`INGEST_BUCKETS`). */
  buckets: ReadonlySet<string>;
  accepts: (key: string) => FilterDecision;
  tagObjects: boolean;
  leaseMs: number;
  /** In-invocation repetition of transient PDS answers; the handler adds the remaining time. */
  stepRetry: StepRetryPolicy;
  /** Imports of one gathering in flight at once. */
  importConcurrency: number;
  /** Back-off of failed records between SQS deliveries. */
  redelivery: RetryDelayPolicy;
  /** Check files while they stream and fail those the PDS cannot import. */
  checkContent: boolean;
}

/**
 * Turns the loaded settings into options.
 *
 * @example
 * ```ts
 * const config = loadConfig(process.env, { settings: INGEST_SETTINGS, require: ['STATE_BUCKET', 'INGEST_BUCKETS'] });
 * const options = ingestOptionsFrom(config.settings);
 * ```
 */
export function ingestOptionsFrom(settings: {
  INGEST_BUCKETS: string;
  INGEST_PREFIX?: string | undefined;
  INGEST_SUFFIXES?: string | undefined;
  INGEST_TAG_OBJECTS: boolean;
  INGEST_LEASE_SECONDS: number;
  INGEST_PDS_ATTEMPTS: number;
  INGEST_IMPORT_CONCURRENCY: number;
  INGEST_RETRY_DELAY_SECONDS: number;
  INGEST_CONTENT_CHECK: boolean;
}): IngestOptions {
  return {
    buckets: parseBucketList(settings.INGEST_BUCKETS),
    accepts: createIngestFilter({
      prefix: settings.INGEST_PREFIX ?? '',
      suffixes: parseSuffixList(settings.INGEST_SUFFIXES),
    }),
    tagObjects: settings.INGEST_TAG_OBJECTS,
    leaseMs: settings.INGEST_LEASE_SECONDS * 1000,
    stepRetry: { ...DEFAULT_STEP_RETRY, maxAttempts: settings.INGEST_PDS_ATTEMPTS },
    importConcurrency: settings.INGEST_IMPORT_CONCURRENCY,
    redelivery: { ...DEFAULT_RETRY_DELAY, baseSeconds: settings.INGEST_RETRY_DELAY_SECONDS },
    checkContent: settings.INGEST_CONTENT_CHECK,
  };
}

/**
 * The bucket names of `INGEST_BUCKETS`.
 *
 * @example
 * parseBucketList('drop-a, drop-b'); // Set { 'drop-a', 'drop-b' }
 */
export function parseBucketList(value: string): ReadonlySet<string> {
  return new Set(
    value
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== ''),
  );
}
