/**
 * The report of a `pollReviewKeys` call, folded from each key's outcome.
 */
import { errorFields, errorSummary, type Log, type Settled } from '../../core/index.ts';
import type { KeyOutcome, KeyStatus, ReviewPollReport } from './types.ts';

const LISTED_FAILED_KEYS = 50;

export function emptyReviewPollReport(keys: number): ReviewPollReport {
  return {
    keys,
    keysPolled: 0,
    keysFailed: 0,
    keysPurged: 0,
    keysNotFound: 0,
    keysUnwatched: 0,
    keysDeferred: 0,
    reviewsEmitted: 0,
    parseErrors: 0,
    reviewsFailed: 0,
    reviewsEmittedAsFailed: 0,
    failedKeys: [],
  };
}

/** A key's outcome: `deferred` when it was not started, `failed` (and logged) when its polling threw. */
export function keyOutcomeOf(
  primaryKey: string,
  result: Settled<KeyOutcome> | undefined,
  logger: Log,
): KeyOutcome {
  const none = (status: KeyStatus): KeyOutcome => ({
    primaryKey,
    status,
    emitted: 0,
    parseErrors: 0,
    reviewsFailed: 0,
    emittedAsFailed: 0,
  });
  if (result === undefined) return none('deferred');
  if (result.ok) return result.value;
  // A state-store failure on this key: counted like any other failure of the key.
  logger.warn('Polling a watched key failed; it is polled again on the next run', {
    primaryKey,
    ...errorFields(result.error),
  });
  return { ...none('failed'), error: errorSummary(result.error) };
}

/** The report with one more key's outcome counted. */
export function addOutcome(report: ReviewPollReport, outcome: KeyOutcome): ReviewPollReport {
  const counted = {
    ...report,
    reviewsEmitted: report.reviewsEmitted + outcome.emitted,
    parseErrors: report.parseErrors + outcome.parseErrors,
    reviewsFailed: report.reviewsFailed + outcome.reviewsFailed,
    reviewsEmittedAsFailed: report.reviewsEmittedAsFailed + outcome.emittedAsFailed,
  };
  const field = STATUS_FIELD[outcome.status];
  const failedKeys =
    outcome.status === 'failed' && report.failedKeys.length < LISTED_FAILED_KEYS
      ? [...report.failedKeys, outcome.primaryKey]
      : report.failedKeys;
  return { ...counted, [field]: counted[field] + 1, failedKeys };
}

/** The report's count of keys of each status. */
const STATUS_FIELD = {
  polled: 'keysPolled',
  failed: 'keysFailed',
  purged: 'keysPurged',
  'not-found': 'keysNotFound',
  unwatched: 'keysUnwatched',
  deferred: 'keysDeferred',
} as const satisfies Record<KeyStatus, keyof ReviewPollReport>;
