/**
 * λ poll-messaging-assets, invoked by its EventBridge Scheduler schedule: new messaging assets of the
 * PDS become `pds.messaging-asset.received` events with the XML parsed. Logic: lib/polling.
 */
import type { Context } from 'aws-lambda';
import { loadConfig } from '../lib/config.ts';
import { runExclusive } from '../lib/polling/exclusive.ts';
import { type MessagingAssetPollReport, pollMessagingAssets } from '../lib/polling/messaging-assets.ts';
import { recordMessagingAssetMetrics } from '../lib/polling/metrics.ts';
import { messagingAssetRunFailure, runWindow } from '../lib/polling/run.ts';
import { MESSAGING_ASSET_POLL_SETTINGS } from '../lib/polling/settings.ts';
import { eventSinkFor, flushMetrics, logger, metrics, pdsClientFor, stateStoreFor } from '../lib/runtime.ts';

const config = loadConfig(process.env, {
  require: ['STATE_BUCKET'],
  eventTypes: ['pds.messaging-asset.received'],
  settings: MESSAGING_ASSET_POLL_SETTINGS,
});
const store = stateStoreFor(config);
const sink = eventSinkFor(config);

/** The run's report, or `{ skipped: true }` when another run holds the lease. */
export async function handler(
  _event: unknown,
  context: Context,
): Promise<MessagingAssetPollReport | { skipped: true; heldBy: string | undefined }> {
  logger.addContext(context);
  metrics.captureColdStartMetric();
  const { deadline, leaseTtlMs } = runWindow(context);
  try {
    const pds = await pdsClientFor(config);
    const result = await runExclusive(
      store,
      { name: 'poll-messaging-assets', ttlMs: leaseTtlMs, owner: context.awsRequestId },
      () =>
        pollMessagingAssets(
          { pds, store, sink, logger },
          {
            firstRun: config.settings.POLL_FIRST_RUN,
            concurrency: config.settings.POLL_CONCURRENCY,
            pageSize: config.settings.POLL_PAGE_SIZE,
            seenWindow: config.settings.POLL_SEEN_WINDOW,
            failureLimit: config.settings.POLL_FAILURE_LIMIT,
            deadline,
          },
        ),
    );
    if (!result.ran) {
      logger.info('Another messaging-asset poll holds the lease; skipping this run', { ...result });
      metrics.addMetric('RunsSkipped', 'Count', 1);
      return { skipped: true, heldBy: result.heldBy };
    }
    const report = result.value;
    recordMessagingAssetMetrics(metrics, report);
    logger.info('Messaging-asset poll finished', { ...report });
    const failure = messagingAssetRunFailure(report);
    if (failure) throw failure;
    return report;
  } finally {
    flushMetrics();
  }
}
