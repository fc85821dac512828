/**
 * Run reports → CloudWatch metrics (through the Powertools `Metrics` the handler passes in), so every
 * poller names its metrics the same way. Alarm on `AssetsFailed`, `KeysFailed` and `EventsUnpublished`:
 * they count what the next run has to try again; and on `AssetsEmittedAsFailed` and
 * `ReviewsEmittedAsFailed`: items passed without their message.
 */
import { addCounts, type Metrics } from '../core/index.ts';
import type { AuditReport, MessagingAssetPollReport } from './messaging-assets/index.ts';
import type { ReviewPollReport, ScheduledReviewPollReport } from './supplier-reviews/index.ts';

/**
 * Metrics of one messaging-asset run: AssetsEmitted, AssetsFailed, AssetsEmittedAsFailed, ParseErrors,
 * AssetsRetryPending, AssetsAbandoned, AssetsRemaining, EventsUnpublished, and CheckpointAgeSeconds (how
 * far the checkpoint lags behind the PDS).
 *
 * @example
 * recordMessagingAssetMetrics(metrics, report);
 * flushMetrics();
 */
export function recordMessagingAssetMetrics(metrics: Metrics, report: MessagingAssetPollReport): void {
  addCounts(metrics, {
    AssetsEmitted: report.emitted,
    AssetsFailed: report.failed,
    AssetsEmittedAsFailed: report.emittedAsFailed,
    ParseErrors: report.parseErrors,
    AssetsRetryPending: report.retryPending,
    AssetsAbandoned: report.abandoned,
    AssetsRemaining: report.remaining,
    EventsUnpublished: report.unpublished,
  });
  metrics.addMetric('CheckpointAgeSeconds', 'Seconds', report.checkpointAgeSeconds);
}

/**
 * Metrics of one messaging-asset audit: AuditGapsFound (alarmed above 0: listed assets the poller
 * never emitted), AuditStraysFound, AuditPending, and with `apply` the emission's run metrics.
 *
 * @example
 * recordAuditMetrics(metrics, report);
 */
export function recordAuditMetrics(metrics: Metrics, report: AuditReport): void {
  addCounts(metrics, {
    AuditGapsFound: report.gaps,
    AuditStraysFound: report.strays,
    AuditPending: report.pending,
  });
  if (report.emission) recordMessagingAssetMetrics(metrics, report.emission);
}

/**
 * Metrics of review polling: ReviewsEmitted, ReviewsFailed, ReviewsEmittedAsFailed, ParseErrors,
 * KeysPolled, KeysFailed, KeysPurged, KeysNotFound, KeysDeferred.
 */
export function recordReviewMetrics(metrics: Metrics, report: ReviewPollReport): void {
  addCounts(metrics, {
    ReviewsEmitted: report.reviewsEmitted,
    ReviewsFailed: report.reviewsFailed,
    ReviewsEmittedAsFailed: report.reviewsEmittedAsFailed,
    ParseErrors: report.parseErrors,
    KeysPolled: report.keysPolled,
    KeysFailed: report.keysFailed,
    KeysPurged: report.keysPurged,
    KeysNotFound: report.keysNotFound,
    KeysDeferred: report.keysDeferred,
  });
}

/** Metrics of the scheduled review run: KeysWatched, and ChunksSent or the inline totals. */
export function recordScheduledReviewMetrics(metrics: Metrics, report: ScheduledReviewPollReport): void {
  metrics.addMetric('KeysWatched', 'Count', report.watched);
  if (report.mode === 'fan-out') metrics.addMetric('ChunksSent', 'Count', report.chunks);
  else recordReviewMetrics(metrics, report);
}
