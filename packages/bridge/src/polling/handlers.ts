/**
 * The pollers' functions, each built from one configuration: the two scheduled runs share one
 * skeleton ({@link scheduledRun}: run window, lease, metrics, report, failure), and the fan-out worker
 * answers SQS with a partial batch response. The adapters are built once per factory call.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ConfigError, type Environment, loadConfig, type SettingSpecs } from '../config/index.ts';
import { channelDirectory } from '../confirmations/channel-directory.ts';
import { checkConfirmationDeadlines, expireConfirmations } from '../confirmations/deadlines.ts';
import { ConfirmationLedger } from '../confirmations/ledger.ts';
import { dataPoolGlns, deadlineMs, retentionMs } from '../confirmations/settings.ts';
import { continuingTrace, type Metrics } from '../core/index.ts';
import type { EventSink } from '../events/index.ts';
import { eventSinkFor, logger, metrics, pdsClientFor, stateStoreFor } from '../lambda/adapters.ts';
import { sqsClient } from '../lambda/aws-clients.ts';
import type { InvocationHandler } from '../lambda/handler.ts';
import type { ClosablePdsClient } from '../pds/index.ts';
import { publicationRepublisher } from '../publications/republish.ts';
import { SqsPublicationQueue } from '../publications/sqs/queue.ts';
import type { StateStore } from '../state/index.ts';
import { POLLER_LEASES, runExclusive } from './exclusive.ts';
import {
  type AuditReport,
  auditMessagingAssets,
  type MessagingAssetPollReport,
  pollMessagingAssets,
  recordedAudit,
} from './messaging-assets/index.ts';
import {
  recordAuditMetrics,
  recordMessagingAssetMetrics,
  recordReviewMetrics,
  recordScheduledReviewMetrics,
} from './metrics.ts';
import { messagingAssetRunFailure, reviewChunkFailure } from './run-failures.ts';
import { runWindow } from './run-window.ts';
import { MESSAGING_ASSET_POLL_SETTINGS, POLL_SETTINGS, REVIEW_POLL_SETTINGS } from './settings.ts';
import {
  chunkLayout,
  keysToPoll,
  parseReviewKeyChunk,
  pollReviewKeys,
  pollSupplierReviews,
  type ScheduledReviewPollReport,
} from './supplier-reviews/index.ts';
import { SqsReviewKeyQueue } from './supplier-reviews/sqs/review-queue.ts';

/** What a scheduled run answers when another run holds its lease. */
export interface SkippedRun {
  skipped: true;
  heldBy: string | undefined;
}

/** What a poll reads and writes through: the PDS, the state store, the event sink, the logger. */
export interface PollerDeps {
  readonly pds: ClosablePdsClient;
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly logger: typeof logger;
  /** The confirmation ledger the polls tell of what they emitted. */
  readonly confirmations?: ConfirmationLedger;
}

/** One scheduled poller, as {@link scheduledRun} runs it. */
export interface ScheduledPoll<R> {
  /** The lease the run holds: the function's name, e.g. `poll-messaging-assets`. */
  readonly lease: string;
  /** What is polled, for the log lines: `messaging-asset` → "Messaging-asset poll finished". */
  readonly subject: string;
  readonly store: StateStore;
  readonly sink: EventSink;
  readonly confirmations?: ConfirmationLedger;
  readonly pds: () => Promise<ClosablePdsClient>;
  /** The run itself, within the invocation's window; `event` is what the schedule sent. */
  readonly poll: (deps: PollerDeps, run: { runId: string; deadline: number; event: unknown }) => Promise<R>;
  readonly record: (metrics: Metrics, report: R) => void;
  /** The error the invocation must end with, after the metrics were recorded, or `undefined`. */
  readonly failure: (report: R) => Error | undefined;
}

/**
 * The skeleton both scheduled pollers share: the run never overlaps itself (a lease held for the
 * invocation's remaining time plus a minute), stops starting work before the deadline, records its
 * metrics and fails the invocation when the report says an operator must look; a run that completes
 * counts `PollRunSucceeded`.
 *
 * @example
 * ```ts
 * const run = scheduledRun({ lease: 'poll-x', subject: 'x', store, pds, poll, record, failure: () => undefined });
 * await run({}, context); // the report, or { skipped: true, heldBy }
 * ```
 */
export function scheduledRun<R extends object>(
  poll: ScheduledPoll<R>,
): InvocationHandler<unknown, R | SkippedRun> {
  const title = `${poll.subject.charAt(0).toUpperCase()}${poll.subject.slice(1)} poll`;
  return async (event, context) => {
    const { deadline, leaseTtlMs } = runWindow(context);
    const pds = await poll.pds();
    const result = await runExclusive(
      poll.store,
      {
        name: poll.lease,
        ttlMs: leaseTtlMs,
        owner: context.awsRequestId,
        // Kept in the lease record for operators (`pds bridge status`: last successful run).
        succeeded: (report) => {
          const failure = poll.failure(report);
          return failure ? { ok: false, error: failure.message } : true;
        },
      },
      () =>
        poll.poll(
          {
            pds,
            store: poll.store,
            sink: poll.sink,
            logger,
            ...(poll.confirmations ? { confirmations: poll.confirmations } : {}),
          },
          { runId: context.awsRequestId, deadline, event },
        ),
    );
    if (!result.ran) {
      logger.info(`Another ${poll.subject} poll holds the lease; skipping this run`, { ...result });
      metrics.addMetric('RunsSkipped', 'Count', 1);
      return { skipped: true, heldBy: result.heldBy };
    }
    const report = result.value;
    poll.record(metrics, report);
    logger.info(`${title} finished`, { ...(report as Record<string, unknown>) });
    const failure = poll.failure(report);
    if (failure) throw failure;
    // The heartbeat the "poller stopped" alarm watches: a missing data point is a run that did not
    // happen, was skipped or failed, so the alarm needs no other signal.
    metrics.addMetric('PollRunSucceeded', 'Count', 1);
    return report;
  };
}

/** What every poller function wires from its configuration: settings, state store, event sink, PDS. */
function pollerWiring<S extends SettingSpecs>(env: Environment, settings: S, eventType: string) {
  const config = loadConfig(env, {
    require: ['STATE_BUCKET'],
    eventTypes: [eventType, 'pds.confirmation.changed'],
    settings: { ...POLL_SETTINGS, ...settings },
  });
  const store = stateStoreFor(config);
  const sink = eventSinkFor(config);
  const republishQueue = republishQueueOf(config.settings);
  const republisher = republishQueue && publicationRepublisher({ store, queue: republishQueue, log: logger });
  const confirmations = new ConfirmationLedger({
    store,
    sink,
    deadlineMs: deadlineMs({
      CONFIRMATION_DEADLINE_HOURS: config.settings.CONFIRMATION_DEADLINE_HOURS as number,
      CONFIRMATION_DEADLINE_SECONDS: config.settings.CONFIRMATION_DEADLINE_SECONDS as number | undefined,
    }),
    retentionMs: retentionMs(config.settings.CONFIRMATION_RETENTION_DAYS as number),
    log: logger,
    metrics,
    ...(republisher ? { republisher } : {}),
    // Who speaks for a channel: the configured data pools, and each channel's `dataPoolGln` and
    // `recipientGln` when the PDS's channel listing gives them (docs/spec-gaps.md).
    channels: channelDirectory({
      dataPools: dataPoolGlns(config.settings.DATA_POOL_GLNS as string | undefined),
      listChannels: async () => (await pdsClientFor(config)).listCommunicationChannels(),
    }),
  });
  return { settings: config.settings, store, sink, confirmations, pds: () => pdsClientFor(config) };
}

/**
 * REPUBLISH_ON_RESEND_REQUEST (poll-messaging-assets only): the publication queue a resend request's
 * republication goes through, or `undefined` when the setting is off. On without PUBLICATION_QUEUE_URL
 * is a ConfigError at cold start, not a resend request silently ignored.
 */
export function republishQueueOf(settings: {
  readonly REPUBLISH_ON_RESEND_REQUEST?: unknown;
  readonly PUBLICATION_QUEUE_URL?: string | undefined;
}): SqsPublicationQueue | undefined {
  if (settings.REPUBLISH_ON_RESEND_REQUEST !== true) return undefined;
  const queueUrl = settings.PUBLICATION_QUEUE_URL;
  if (!queueUrl) {
    throw ConfigError.fromProblems([
      'REPUBLISH_ON_RESEND_REQUEST is true but PUBLICATION_QUEUE_URL is not set: set it to the publication queue (deploy/api.yml, PublicationQueue) or set REPUBLISH_ON_RESEND_REQUEST=false',
    ]);
  }
  return new SqsPublicationQueue({ sqs: sqsClient(), queueUrl });
}

/** True for the audit schedule's input, `{"mode": "audit"}` (deploy/pollers.yml). */
export function isAuditRequest(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { mode?: unknown }).mode === 'audit';
}

/**
 * poll-messaging-assets: new messaging assets become `pds.messaging-asset.received` events. Invoked
 * with `{"mode": "audit"}` (the daily schedule) it audits instead (messaging-assets/audit.ts), emitting the gaps unless
 * POLL_AUDIT_APPLY is false; the two share the lease, so they never overlap.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createMessagingAssetPollHandler(process.env));
 * ```
 */
export function createMessagingAssetPollHandler(
  env: Environment,
): InvocationHandler<unknown, MessagingAssetPollReport | AuditReport | SkippedRun> {
  const wiring = pollerWiring(env, MESSAGING_ASSET_POLL_SETTINGS, 'pds.messaging-asset.received');
  const { settings } = wiring;
  return scheduledRun<MessagingAssetPollReport | AuditReport>({
    ...wiring,
    lease: POLLER_LEASES.messagingAssets,
    subject: 'messaging-asset',
    poll: (deps, { deadline, event }) => {
      const options = {
        firstRun: settings.POLL_FIRST_RUN,
        concurrency: settings.POLL_CONCURRENCY,
        pageSize: settings.POLL_PAGE_SIZE,
        paging: settings.POLL_LISTING_PAGING,
        listingPageLimit: settings.POLL_LISTING_PAGE_LIMIT,
        maxAssetsPerRun: settings.POLL_MAX_ASSETS_PER_RUN,
        failureLimit: settings.POLL_FAILURE_LIMIT,
        xmlLimits: {
          maxBytes: settings.XML_MAX_BYTES,
          maxDepth: settings.XML_MAX_DEPTH,
          maxElements: settings.XML_MAX_ELEMENTS,
          maxAttributes: settings.XML_MAX_ATTRIBUTES,
        },
        deadline,
      };
      // The scheduled audit keeps its last report for operators (`pds bridge status`, the console).
      return isAuditRequest(event)
        ? recordedAudit(deps.store, () =>
            auditMessagingAssets(deps, { ...options, apply: settings.POLL_AUDIT_APPLY }),
          )
        : pollMessagingAssets(deps, options);
    },
    record: (metrics, report) =>
      'compared' in report
        ? recordAuditMetrics(metrics, report)
        : recordMessagingAssetMetrics(metrics, report),
    failure: (report) =>
      'compared' in report
        ? report.emission && messagingAssetRunFailure(report.emission)
        : messagingAssetRunFailure(report),
  });
}

/**
 * poll-supplier-reviews: new reviews of watched items become `pds.supplier-review.received` events; a
 * large watch list is sent in chunks to the fan-out worker when REVIEW_POLL_QUEUE_URL is set.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createSupplierReviewPollHandler(process.env));
 * ```
 */
export function createSupplierReviewPollHandler(
  env: Environment,
): InvocationHandler<unknown, ScheduledReviewPollReport | SkippedRun> {
  const wiring = pollerWiring(env, REVIEW_POLL_SETTINGS, 'pds.supplier-review.received');
  const { settings } = wiring;
  const queueUrl = settings.REVIEW_POLL_QUEUE_URL;
  const queue = queueUrl ? new SqsReviewKeyQueue({ sqs: sqsClient(), queueUrl }) : undefined;
  return scheduledRun({
    ...wiring,
    lease: POLLER_LEASES.supplierReviews,
    subject: 'supplier-review',
    poll: async (deps, { runId, deadline }) => {
      const report = await pollSupplierReviews(deps, {
        runId,
        concurrency: settings.POLL_CONCURRENCY,
        failureLimit: settings.POLL_FAILURE_LIMIT,
        inlineMax: settings.POLL_REVIEWS_INLINE_MAX,
        chunkSize: settings.POLL_REVIEWS_CHUNK_SIZE,
        deadline,
        ...(queue ? { queue } : {}),
      });
      // The confirmation ledger's deadlines ride on this schedule: entries nobody answered turn OVERDUE.
      const confirmations = await checkConfirmationDeadlines(deps.store, wiring.confirmations, new Date());
      // And their retention: settled entries whose CONFIRMATION_RETENTION_DAYS ended are deleted.
      const expiry = await expireConfirmations(
        deps.store,
        new Date(),
        retentionMs(wiring.settings.CONFIRMATION_RETENTION_DAYS as number),
      );
      return {
        ...report,
        confirmationsDue: confirmations.due,
        confirmationsOverdue: confirmations.transitions.OVERDUE ?? 0,
        confirmationsExpired: expiry.expired,
      };
    },
    record: recordScheduledReviewMetrics,
    // Inline failures are retried by the next scheduled run; failing the invocation makes them visible.
    failure: (report) => (report.mode === 'inline' ? reviewChunkFailure(report) : undefined),
  });
}

/**
 * poll-supplier-reviews-worker: polls the watched keys of each fan-out chunk. A chunk with a failed
 * key is a batch item failure, so SQS delivers it again and finally to its DLQ.
 *
 * @example
 * ```ts
 * export const handler = lambdaHandler(createReviewChunkHandler(process.env));
 * ```
 */
export function createReviewChunkHandler(env: Environment): InvocationHandler<SQSEvent, SQSBatchResponse> {
  const {
    settings,
    store,
    sink,
    confirmations,
    pds: pdsClient,
  } = pollerWiring(env, REVIEW_POLL_SETTINGS, 'pds.supplier-review.received');
  const processor = new BatchProcessor(EventType.SQS);
  return async (event: SQSEvent, context: Context) => {
    const { deadline } = runWindow(context);
    const pds = await pdsClient();
    return await processPartialResponse(
      event,
      // Each chunk continues the trace of the run that queued it (its events name that run).
      continuingTrace(async (record: SQSRecord) => {
        const chunk = parseReviewKeyChunk(record.body);
        const log = logger.createChild({
          persistentKeys: { messageId: record.messageId, runId: chunk.runId },
        });
        const report = await pollReviewKeys(
          { pds, store, sink, logger: log, confirmations },
          keysToPoll(chunk),
          {
            concurrency: settings.POLL_CONCURRENCY,
            failureLimit: settings.POLL_FAILURE_LIMIT,
            deadline,
            layout: chunkLayout(chunk),
          },
        );
        recordReviewMetrics(metrics, report);
        log.info('Review chunk polled', { ...report });
        const failure = reviewChunkFailure(report);
        if (failure) throw failure;
      }),
      processor,
      // One chunk after the other: POLL_CONCURRENCY bounds the whole invocation, not each chunk. A
      // batch whose every chunk failed is answered like any other partial failure, not thrown.
      { context, processInParallel: false, throwOnFullBatchFailure: false },
    );
  };
}
