/**
 * Run reports → CloudWatch metrics (through the Powertools `Metrics` the handler passes in), so every
 * poller names its metrics the same way. Alarm on `AssetsFailed`, `KeysFailed` and `EventsUnpublished`:
 * they count what the next run has to try again; and on `AssetsEmittedAsFailed` and
 * `ReviewsEmittedAsFailed`: items passed without their message.
 */
import type { Metrics } from '../core/index.ts';
import type { MessagingAssetPollReport } from './messaging-assets.ts';
import type { ReviewPollReport, ScheduledReviewPollReport } from './supplier-reviews.ts';

/**
 * Metrics of one messaging-asset run: AssetsEmitted, AssetsFailed, AssetsEmittedAsFailed, ParseErrors,
 * AssetsRetryPending, AssetsAbandoned, AssetsRemaining, EventsUnpublished.
 *
 * @example
 * recordMessagingAssetMetrics(metrics, report);
 * flushMetrics();
 */
export function recordMessagingAssetMetrics(metrics: Metrics, report: MessagingAssetPollReport): void {
  metrics.addMetric('AssetsEmitted', 'Count', report.emitted);
  metrics.addMetric('AssetsFailed', 'Count', report.failed);
  metrics.addMetric('AssetsEmittedAsFailed', 'Count', report.emittedAsFailed);
  metrics.addMetric('ParseErrors', 'Count', report.parseErrors);
  metrics.addMetric('AssetsRetryPending', 'Count', report.retryPending);
  metrics.addMetric('AssetsAbandoned', 'Count', report.abandoned);
  metrics.addMetric('AssetsRemaining', 'Count', report.remaining);
  metrics.addMetric('EventsUnpublished', 'Count', report.unpublished);
}

/**
 * Metrics of review polling: ReviewsEmitted, ReviewsFailed, ReviewsEmittedAsFailed, ParseErrors,
 * KeysPolled, KeysFailed, KeysPurged, KeysNotFound, KeysDeferred.
 */
export function recordReviewMetrics(metrics: Metrics, report: ReviewPollReport): void {
  metrics.addMetric('ReviewsEmitted', 'Count', report.reviewsEmitted);
  metrics.addMetric('ReviewsFailed', 'Count', report.reviewsFailed);
  metrics.addMetric('ReviewsEmittedAsFailed', 'Count', report.reviewsEmittedAsFailed);
  metrics.addMetric('ParseErrors', 'Count', report.parseErrors);
  metrics.addMetric('KeysPolled', 'Count', report.keysPolled);
  metrics.addMetric('KeysFailed', 'Count', report.keysFailed);
  metrics.addMetric('KeysPurged', 'Count', report.keysPurged);
  metrics.addMetric('KeysNotFound', 'Count', report.keysNotFound);
  metrics.addMetric('KeysDeferred', 'Count', report.keysDeferred);
}

/** Metrics of the scheduled review run: KeysWatched, and ChunksSent or the inline totals. */
export function recordScheduledReviewMetrics(metrics: Metrics, report: ScheduledReviewPollReport): void {
  metrics.addMetric('KeysWatched', 'Count', report.watched);
  if (report.mode === 'fan-out') metrics.addMetric('ChunksSent', 'Count', report.chunks);
  else recordReviewMetrics(metrics, report);
}
