/**
 * What the supplier-review poller takes and gives back: its dependencies, options and reports, and
 * the values its stages hand on (a key's progress, a fresh review's event).
 */
import type { ConfirmationRecorder } from '../../confirmations/ports.ts';
import type { Limiter, Log } from '../../core/index.ts';
import type { MessageFetchError } from '../../events/data/index.ts';
import type { CloudEvent, EventSink } from '../../events/index.ts';
import type { PdsClient, SupplierReview } from '../../pds/index.ts';
import type { StateStore } from '../../state/index.ts';
import type { KeyProgress, ProgressLayout } from './review-progress.ts';
import type { ReviewKeyQueue } from './review-queue.ts';

export interface ReviewPollDeps {
  pds: Pick<PdsClient, 'listSupplierReviews' | 'getMessagingAsset'>;
  store: StateStore;
  sink: EventSink;
  logger?: Log;
  /** The confirmation ledger, told of each review SQS accepted; a failure retries the key's reviews. */
  confirmations?: ConfirmationRecorder;
}

export interface ReviewPollOptions {
  /** PDS requests in flight at once; default 8. */
  concurrency?: number;
  /** Epoch ms after which no further key is started (its reviews wait for the next run). */
  deadline?: number;
  /** Consecutive failed runs after which a review is emitted with `messageError` and passed; default 5. */
  failureLimit?: number;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string;
  now?: () => Date;
  /** The progress layout the keys were grouped by (a fan-out chunk's `levels`); read when absent. */
  layout?: ProgressLayout;
}

/** What happened to one key. */
export type KeyStatus = 'polled' | 'purged' | 'unwatched' | 'not-found' | 'failed' | 'deferred';

export interface KeyOutcome {
  primaryKey: string;
  status: KeyStatus;
  /** Events SQS accepted for this key. */
  emitted: number;
  /** Of those, reviews whose XML could not be parsed. */
  parseErrors: number;
  /** Reviews that could not be emitted this time (fetch failed or SQS refused). */
  reviewsFailed: number;
  /** Of the emitted, reviews passed with `messageError` after failing on `failureLimit` consecutive runs. */
  emittedAsFailed: number;
  error?: string;
}

/** Totals of one `pollReviewKeys` call. */
export interface ReviewPollReport {
  keys: number;
  /** Keys whose reviews were listed and handled completely. */
  keysPolled: number;
  /** Keys with at least one failure; their unemitted reviews are tried again next run. */
  keysFailed: number;
  keysPurged: number;
  /** Keys the PDS answered 404 for; they stay watched until they expire. */
  keysNotFound: number;
  /** Keys removed from the watch list since they were listed. */
  keysUnwatched: number;
  /** Keys not started because the deadline came. */
  keysDeferred: number;
  reviewsEmitted: number;
  parseErrors: number;
  reviewsFailed: number;
  /** Of the emitted, reviews passed with `messageError` after failing on consecutive runs. */
  reviewsEmittedAsFailed: number;
  /** The failed keys (at most 50), for logs and errors. */
  failedKeys: string[];
}

/** A key to poll: its primary key, and the ETag of its watch entry when the caller listed it. */
export type KeyToPoll = string | { primaryKey: string; etag?: string | undefined };

export interface ScheduledReviewPollOptions extends ReviewPollOptions {
  /** Most keys polled inside the scheduled run; above it the keys are fanned out. Default 200. */
  inlineMax?: number;
  /** Keys per fan-out message; default 100. */
  chunkSize?: number;
  /** The fan-out queue; without it every key is polled inline. */
  queue?: ReviewKeyQueue;
  /** Identifies the run in fan-out messages (the Lambda request id). */
  runId: string;
}

/** What the scheduled run did: polled inline (with the totals), or sent chunks to the worker. */
export type ScheduledReviewPollReport =
  | ({ mode: 'inline'; watched: number } & ReviewPollReport)
  | { mode: 'fan-out'; watched: number; chunks: number };

/** What polling one key takes besides the key (read-only, shared by the keys of one call). */
export interface KeyContext {
  deps: ReviewPollDeps;
  logger: Log;
  sink: EventSink;
  limit: Limiter;
  now: () => Date;
  source: string | undefined;
  failureLimit: number;
}

/** A fresh review after the fetch and parse stages: its event, or why it has none. */
export type Built =
  | { ok: true; fingerprint: string; event: CloudEvent<'pds.supplier-review.received'>; passed?: boolean }
  | { ok: false; fingerprint: string; error: unknown };

export type Accepted = Built & { ok: true };

/** One key's outcome, and its progress to record: a new value, `null` to forget it, or unchanged. */
export interface PolledKey {
  outcome: KeyOutcome;
  progress?: KeyProgress | null;
}

/** The fresh reviews of one key being polled, and what the steps that emit them share. */
export interface KeyBatch {
  primaryKey: string;
  fresh: Map<string, SupplierReview>;
  options: { time: Date; source?: string };
  /** This run's count of consecutive failed runs of a review. */
  failedRuns: (fingerprint: string) => number;
  /** The event that passes a review on without its message, at the failure limit. */
  passedEvent: (
    fingerprint: string,
    messageError: MessageFetchError,
  ) => CloudEvent<'pds.supplier-review.received'>;
}
