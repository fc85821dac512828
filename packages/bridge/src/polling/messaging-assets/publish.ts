/**
 * The publish stage of the messaging-asset poller: one page's events go to the sink under the
 * poison-item rule (../poison.ts). A failed fetch or an event SQS refuses as invalid is recorded for
 * a retry, unless the asset has now failed on `failureLimit` consecutive runs; then its
 * `messageError` event is sent instead. Hands on what SQS accepted, what was passed, what goes to the
 * retry list and what SQS did not take.
 */
import { errorSummary, type Log } from '../../core/index.ts';
import type { MessageFetchError } from '../../events/data/index.ts';
import type { CloudEvent, EventPublishError, EventSink } from '../../events/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import type { MessagingAssetCheckpoint } from '../checkpoint.ts';
import { passedMessagingAssetEvent, pollEventOptions } from '../events.ts';
import { describeRefusal, passedFetchError, publishPassingRefused } from '../poison.ts';
import type { Fetched } from './types.ts';

/**
 * The page to publish: the fetched assets with their events, the failed ones, and the failed runs
 * each had before (from the checkpoint the page starts from).
 */
export function pageToPublish(
  before: MessagingAssetCheckpoint,
  fetched: readonly Fetched[],
  settings: { failureLimit: number; time: Date; source: string | undefined },
): PageToPublish {
  return {
    ordinary: fetched.filter((item) => item.ok),
    failedFetches: fetched.filter((item) => !item.ok),
    failedRuns: failedRunsOf(before),
    failureLimit: settings.failureLimit,
    passedEvent: (asset, messageError) =>
      passedMessagingAssetEvent(asset, messageError, pollEventOptions(settings.time, settings.source)),
  };
}

export interface PageToPublish {
  /** Assets fetched, with their events. */
  ordinary: Array<{ asset: MessagingAssetSummary; event: CloudEvent<'pds.messaging-asset.received'> }>;
  /** `counted`: the failed runs already include this one (an interrupted asset passed unfetched). */
  failedFetches: Array<{ asset: MessagingAssetSummary; error: unknown; counted?: true }>;
  /** Consecutive failed runs of an asset before this one. */
  failedRuns: (id: number) => number;
  failureLimit: number;
  passedEvent: (
    asset: MessagingAssetSummary,
    messageError: MessageFetchError,
  ) => CloudEvent<'pds.messaging-asset.received'>;
}

export interface PagePublished {
  /** Assets whose event (ordinary, or passed with `messageError`) SQS accepted. */
  accepted: Set<number>;
  /** Of those, assets passed after failing on `failureLimit` consecutive runs. */
  passed: Array<{ asset: MessagingAssetSummary; messageError: MessageFetchError }>;
  /** Assets that failed in this run and go to the retry list. */
  recorded: Array<{ asset: MessagingAssetSummary; reason: string; failedRuns: number; refused: boolean }>;
  /** Assets whose event SQS did not accept for a reason of its own: they stay new. */
  unaccepted: number[];
  publishError: EventPublishError | undefined;
}

interface Outgoing {
  asset: MessagingAssetSummary;
  event: CloudEvent<'pds.messaging-asset.received'>;
  /** Set when the event passes the asset without its XML. */
  messageError?: MessageFetchError;
}

/**
 * Publishes one page and applies the poison-item rule (poison.ts): a failed fetch or an event SQS
 * refuses as invalid is recorded for a retry, unless the asset has now failed on `failureLimit`
 * consecutive runs; then its `messageError` event is sent instead (in a second request for refusals).
 */
export async function publishPage(sink: EventSink, page: PageToPublish): Promise<PagePublished> {
  const recorded: PagePublished['recorded'] = [];
  const outgoing: Outgoing[] = page.ordinary.map((item) => ({ ...item }));
  for (const { asset, error, counted } of page.failedFetches) {
    const failedRuns = page.failedRuns(asset.id) + (counted ? 0 : 1);
    const messageError = passedFetchError(error, failedRuns, page.failureLimit);
    if (messageError) {
      outgoing.push({ asset, event: page.passedEvent(asset, messageError), messageError });
    } else {
      recorded.push({ asset, reason: errorSummary(error), failedRuns, refused: false });
    }
  }
  const sent = await publishPassingRefused(
    sink,
    outgoing.map((item) => ({
      item,
      event: item.event,
      passed: item.messageError !== undefined,
      failedRuns: page.failedRuns(item.asset.id) + 1,
    })),
    page.failureLimit,
    (item, messageError) => {
      const passed = { asset: item.asset, event: page.passedEvent(item.asset, messageError), messageError };
      return {
        item: passed,
        event: passed.event,
        passed: true,
        failedRuns: page.failedRuns(item.asset.id) + 1,
      };
    },
  );
  for (const { item, failure } of sent.refused) {
    const failedRuns = page.failedRuns(item.asset.id) + 1;
    recorded.push({ asset: item.asset, reason: describeRefusal(failure), failedRuns, refused: true });
  }
  return {
    accepted: new Set(sent.accepted.map((item) => item.asset.id)),
    passed: sent.accepted.flatMap(({ asset, messageError }) =>
      messageError ? [{ asset, messageError }] : [],
    ),
    recorded,
    unaccepted: sent.unaccepted.map((item) => item.asset.id),
    publishError: sent.error,
  };
}

/** The log lines of one published page: recorded failures, passed assets, parse errors. */
export function logPage(
  logger: Log,
  published: PagePublished,
  successes: ReadonlyArray<Extract<Fetched, { ok: true }>>,
  failureLimit: number,
): void {
  for (const item of published.recorded) {
    logger.warn(
      item.refused
        ? 'SQS refused the event of a messaging asset as invalid; it is retried on the next run'
        : 'Messaging asset could not be fetched; it is retried on the next run',
      { messagingAssetId: item.asset.id, failedRuns: item.failedRuns, failureLimit, reason: item.reason },
    );
  }
  for (const item of published.passed) {
    logger.error(
      'Messaging asset failed on consecutive runs; emitted with messageError and passed. Fetch it from the PDS by its id if it is needed.',
      {
        messagingAssetId: item.asset.id,
        failedRuns: item.messageError.failedRuns,
        reason: item.messageError.message,
      },
    );
  }
  const passedIds = new Set(published.passed.map((item) => item.asset.id));
  for (const item of successes) {
    if (item.parseError && published.accepted.has(item.asset.id) && !passedIds.has(item.asset.id)) {
      logger.warn('Messaging asset is not valid XML; emitted with parseError and the raw text', {
        messagingAssetId: item.asset.id,
        parseError: item.event.data.parseError,
      });
    }
  }
}

/** Consecutive failed runs of each asset so far, from the checkpoint's retry list. */
function failedRunsOf(checkpoint: MessagingAssetCheckpoint): (id: number) => number {
  const attempts = new Map(checkpoint.retry.map((entry) => [entry.id, entry.attempts]));
  return (id) => attempts.get(id) ?? 0;
}
