/**
 * The messaging-asset poller: read the PDS's listing of messaging assets as a stream (only its new
 * part where the PDS pages it, ../listing.ts), take those not in the checkpoint's record of emitted
 * ids, fetch each XML with bounded concurrency, parse it, emit `pds.messaging-asset.received`, and
 * record an asset only after SQS accepted its event. A run holds at most POLL_MAX_ASSETS_PER_RUN new
 * assets, never the listing.
 *
 * A run is stages that hand values on: select what is new (select.ts) → fetch and parse a page
 * (fetch.ts) → publish it (publish.ts) → record progress (record.ts); the report is folded from what
 * they return (report.ts).
 *
 * Work goes in pages (ascending ids, `pageSize` assets each): fetch and parse the page, publish its
 * events, then write the checkpoint with a conditional write on the ETag read before. A crash between
 * the publish and the write sends the same page again on the next run, with identical event ids
 * (`idParts: [messagingAssetId]`), so consumers can drop the duplicates.
 *
 * Failures: an asset whose fetch fails, or whose event SQS refuses as invalid (the sender's fault),
 * goes to the checkpoint's retry list and is tried again on every later run while the PDS lists it
 * (see ../checkpoint.ts); the others go on. An asset that fails on `failureLimit` consecutive runs is
 * emitted without its XML, with `messageError`, and passed (../poison.ts), so it cannot hold the flow.
 * A page in which every fetch failed for a reason that concerns the PDS as a whole (5xx, 429,
 * timeouts, network, 401/403) stops the run without recording anything, so an outage does not fill
 * the retry list; the next run starts from the same place. Events SQS did not accept for a reason of
 * its own (throttling, an outage) are not recorded either: the run saves what was accepted and stops
 * (`stopped: 'publish-failed'`); those assets stay new.
 *
 * A run that dies (out of memory on a hostile document, a timeout) records nothing of its page, so
 * before a page is fetched its assets are written to the checkpoint's `inFlight`; the next run counts
 * one failed run for each of them (`interrupted`), and an asset that reached `failureLimit` that way
 * is passed with `messageError` (`POLL_INTERRUPTED`) without being fetched again.
 */

import { checkInteger, type Log, silentLog } from '../../core/index.ts';
import { initialCheckpoint, type MessagingAssetCheckpoint, parseCheckpoint } from '../checkpoint.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '../keys.ts';
import { DEFAULT_LISTING_PAGE_LIMIT, DEFAULT_MAX_ASSETS_PER_RUN } from '../settings.ts';
import { emitCandidates } from './emit.ts';
import { CheckpointWriter } from './record.ts';
import { finishReport, selectionReport, withEmission } from './report.ts';
import {
  countInterrupted,
  type ListingSelection,
  logSelection,
  oldestPending,
  selectFromListing,
} from './select.ts';
import type { MessagingAssetPollDeps, MessagingAssetPollOptions, MessagingAssetPollReport } from './types.ts';

/** The checkpoint as stored (an interrupted run's assets counted), and its writer. */
async function openCheckpoint(
  deps: MessagingAssetPollDeps,
  startedAt: Date,
  logger: Log,
): Promise<{ checkpoint: MessagingAssetCheckpoint; writer: CheckpointWriter; stored: boolean }> {
  const key = MESSAGING_ASSETS_CHECKPOINT;
  const stored = await deps.store.get<unknown>(key);
  const writer = new CheckpointWriter(deps.store, key, stored?.etag);
  const checkpoint = stored ? parseCheckpoint(stored.value, key) : initialCheckpoint(startedAt);
  if (checkpoint.inFlight.length === 0) return { checkpoint, writer, stored: stored !== undefined };
  const counted = countInterrupted(checkpoint, startedAt, logger);
  await writer.save(counted);
  return { checkpoint: counted, writer, stored: stored !== undefined };
}

/**
 * Runs one poll and reports what it did; a run that stopped early says why in `stopped`. Throws when
 * the listing or the state store fails, or when the checkpoint was changed by someone else
 * (`StateConflictError`: an overlapping run).
 *
 * @example
 * const report = await pollMessagingAssets({ pds, store, sink, logger }, { firstRun: 'backlog', concurrency: 8 });
 * metrics.addMetric('AssetsEmitted', 'Count', report.emitted);
 */
export async function pollMessagingAssets(
  deps: MessagingAssetPollDeps,
  options: MessagingAssetPollOptions = {},
): Promise<MessagingAssetPollReport> {
  const logger = deps.logger ?? silentLog;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  checkInteger('pageSize', options.pageSize ?? 100, { min: 1 });
  const opened = await openCheckpoint(deps, startedAt, logger);
  const firstRunNow = !opened.stored && (options.firstRun ?? 'now') === 'now';
  const selection = await selectFromListing(deps.pds, opened.checkpoint, {
    firstRunNow,
    paging: options.paging ?? 'auto',
    limit: options.listingPageLimit ?? DEFAULT_LISTING_PAGE_LIMIT,
    maxAssetsPerRun: options.maxAssetsPerRun ?? DEFAULT_MAX_ASSETS_PER_RUN,
  });
  logSelection(selection, logger);
  const report = selectionReport(selection);
  const run = { writer: opened.writer, startedAt, now, logger };
  if (firstRunNow) return initialise(run, opened.checkpoint, selection, report);

  const checkpoint = carryOverLegacyFloor(opened.checkpoint, selection, logger);
  const emission = await emitCandidates(
    deps,
    opened.writer,
    checkpoint,
    selection.candidates,
    selection.gone,
    options,
  );
  const emitted = withEmission(report, emission);
  const done = { ...emitted, remaining: emitted.remaining + selection.beyondLimit };
  const after = await advanceListing(run, emission.checkpoint, selection, done.stopped === undefined);
  return finishReport(done, after, oldestPending(selection, after), now());
}

interface Run {
  writer: CheckpointWriter;
  startedAt: Date;
  now: () => Date;
  logger: Log;
}

/** A first run `now`: the checkpoint created with what is listed recorded as done, nothing emitted. */
async function initialise(
  run: Run,
  checkpoint: MessagingAssetCheckpoint,
  selection: ListingSelection,
  report: MessagingAssetPollReport,
): Promise<MessagingAssetPollReport> {
  const created = { ...checkpoint, listing: selection.read.listing, listedAt: run.startedAt.toISOString() };
  await run.writer.save(created);
  run.logger.info('Messaging-asset checkpoint created: assets listed now count as done', {
    recordedAsDone: selection.recordedAsDone,
  });
  return finishReport({ ...report, initialised: true }, created, undefined, run.now());
}

/** A version-1 floor, once a whole read recorded the ids at or below it as done, is dropped. */
function carryOverLegacyFloor(
  checkpoint: MessagingAssetCheckpoint,
  selection: ListingSelection,
  logger: Log,
): MessagingAssetCheckpoint {
  if (!selection.read.whole || checkpoint.legacyFloor === null) return checkpoint;
  logger.info(
    'Version-1 checkpoint carried over: the ids listed at or below its floor are recorded as done',
    {
      legacyFloor: checkpoint.legacyFloor,
      recordedAsDone: selection.recordedAsDone,
    },
  );
  return { ...checkpoint, legacyFloor: null };
}

/**
 * The position moves past this read only when everything it found was handled (emitted, or in the
 * retry list, which carries its own ids): otherwise the next paged read would start behind assets
 * still to emit.
 */
async function advanceListing(
  run: Run,
  checkpoint: MessagingAssetCheckpoint,
  selection: ListingSelection,
  finished: boolean,
): Promise<MessagingAssetCheckpoint> {
  if (!finished || selection.beyondLimit !== 0) return checkpoint;
  const advanced = {
    ...checkpoint,
    listing: selection.read.listing,
    listedAt: run.startedAt.toISOString(),
    updatedAt: run.now().toISOString(),
  };
  await run.writer.save(advanced);
  return advanced;
}
