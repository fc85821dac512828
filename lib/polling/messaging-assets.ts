/**
 * The messaging-asset poller: read the PDS's listing of messaging assets as a stream (only its new
 * part where the PDS pages it, listing.ts), take those not in the checkpoint's record of emitted ids,
 * fetch each XML with bounded concurrency, parse it, emit `pds.messaging-asset.received`, and record
 * an asset only after SQS accepted its event. A run holds at most POLL_MAX_ASSETS_PER_RUN new
 * assets, never the listing.
 *
 * Work goes in pages (ascending ids, `pageSize` assets each): fetch and parse the page, publish its
 * events, then write the checkpoint with a conditional write on the ETag read before. A crash between
 * the publish and the write sends the same page again on the next run, with identical event ids
 * (`idParts: [messagingAssetId]`), so consumers can drop the duplicates.
 *
 * Failures: an asset whose fetch fails, or whose event SQS refuses as invalid (the sender's fault),
 * goes to the checkpoint's retry list and is tried again on every later run while the PDS lists it
 * (see checkpoint.ts); the others go on. An asset that fails on `failureLimit` consecutive runs is
 * emitted without its XML, with `messageError`, and passed (poison.ts), so it cannot hold the flow.
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

import type { ConfirmationRecorder } from '../confirmations/ports.ts';
import {
  checkInteger,
  createLimiter,
  errorFields,
  errorSummary,
  type Log,
  silentLog,
} from '../core/index.ts';
import type { CloudEvent, EventPublishError, EventSink, MessageFetchError } from '../events/index.ts';
import type { MessagingAssetSummary, PdsClient } from '../pds/index.ts';
import { StateConflictError, type StateStore } from '../state/index.ts';
import type { ParseOptions } from '../xml/index.ts';
import {
  advanceCheckpoint,
  type FirstRun,
  type InFlightEntry,
  initialCheckpoint,
  isDone,
  type MessagingAssetCheckpoint,
  parseCheckpoint,
  type RetryEntry,
  storedCheckpoint,
} from './checkpoint.ts';
import { PollInterruptedError } from './errors.ts';
import { messagingAssetEvent, passedMessagingAssetEvent, pollEventOptions } from './events.ts';
import { IdCollector } from './id-ranges.ts';
import { checkpointKey } from './keys.ts';
import { type ListingPagingMode, type ListingRead, readListing } from './listing.ts';
import { checkedFailureLimit, describeRefusal, passedFetchError, publishPassingRefused } from './poison.ts';
import { isSystemicPdsError } from './ports.ts';
import { DEFAULT_LISTING_PAGE_LIMIT, DEFAULT_MAX_ASSETS_PER_RUN } from './settings.ts';

/** The checkpoint's name: `checkpoints/messaging-assets.json`. */
export const MESSAGING_ASSETS_CHECKPOINT = checkpointKey('messaging-assets');

export interface MessagingAssetPollDeps {
  pds: Pick<PdsClient, 'streamMessagingAssets' | 'getMessagingAsset'>;
  store: StateStore;
  sink: EventSink;
  logger?: Log;
  /** The confirmation ledger, told of each asset SQS accepted before the checkpoint moves past it. */
  confirmations?: ConfirmationRecorder;
}

export interface MessagingAssetPollOptions {
  /** Without a checkpoint: `now` (default) records the current assets as done, `backlog` emits them all. */
  firstRun?: FirstRun;
  /** PDS requests in flight at once; default 8. */
  concurrency?: number;
  /** Assets per page (one publish and one checkpoint write each); default 100. */
  pageSize?: number;
  /** Cap of the retry list; see checkpoint.ts. */
  maxRetry?: number;
  /** `auto` (default): read only the listing's new part where the PDS pages it (listing.ts); `off`: whole. */
  paging?: ListingPagingMode;
  /** Entries asked for per paged request of the listing; default 1000. */
  listingPageLimit?: number;
  /** Most new assets one run takes on (the rest wait for the next run); default 10 000. */
  maxAssetsPerRun?: number;
  /** Consecutive failed runs after which an asset is emitted with `messageError` and passed; default 5. */
  failureLimit?: number;
  /** Epoch ms after which no new page is started (the Lambda's remaining time minus a margin). */
  deadline?: number;
  /** CloudEvents `source`; default `urn:pds-bridge`. */
  source?: string;
  /** Limits of each asset's XML (XML_MAX_BYTES, XML_MAX_DEPTH, XML_MAX_ELEMENTS, XML_MAX_ATTRIBUTES); defaults of lib/xml. */
  xmlLimits?: ParseOptions;
  now?: () => Date;
}

/** A report of a run that has done nothing yet, over a listing of `listed` assets. */
export function emptyMessagingAssetReport(listed = 0): MessagingAssetPollReport {
  return {
    initialised: false,
    listed,
    candidates: 0,
    emitted: 0,
    parseErrors: 0,
    failed: 0,
    emittedAsFailed: 0,
    gone: 0,
    abandoned: 0,
    retryPending: 0,
    remaining: 0,
    unpublished: 0,
    highestId: null,
    emittedIds: 0,
    emittedRanges: 0,
    recordedAsDone: 0,
    listingRequests: 0,
    checkpointAgeSeconds: 0,
  };
}

/** What one run did; the handler turns it into metrics and a log line. */
export interface MessagingAssetPollReport {
  /** True when this run only created the checkpoint (first run `now`). */
  initialised: boolean;
  /** Listing entries this run read (only the new part where the PDS pages the listing). */
  listed: number;
  /** PDS requests the listing took. */
  listingRequests: number;
  /** Why a paged read of the listing was replaced by a whole one, if it was (listing.ts). */
  listingFellBack?: ListingRead['fellBack'];
  /** Ids recorded as done without an event: by a first run `now`, or carried over from a version-1 floor. */
  recordedAsDone: number;
  /** Assets that were new or waiting for a retry. */
  candidates: number;
  /** Events SQS accepted. */
  emitted: number;
  /** Of those, assets whose XML could not be parsed (emitted with `parseError` and the raw text). */
  parseErrors: number;
  /**
   * Assets that failed in this run: their fetch failed, or SQS refused their event as invalid. Those
   * recorded wait in the retry list; those that reached the failure limit are in `emittedAsFailed` too.
   */
  failed: number;
  /** Of the emitted, assets passed with `messageError` after failing on `failureLimit` consecutive runs. */
  emittedAsFailed: number;
  /** Retry entries dropped because the PDS no longer lists their asset. */
  gone: number;
  /** Retry entries given up because the retry list was full. */
  abandoned: number;
  /** Assets waiting for a retry after this run. */
  retryPending: number;
  /** Candidates this run did not get to, and new assets beyond POLL_MAX_ASSETS_PER_RUN (they stay new). */
  remaining: number;
  /** Events of fetched assets that SQS did not accept (they stay new). */
  unpublished: number;
  /**
   * Why the run stopped before the end, if it did: the deadline came, every fetch of a page failed
   * for a PDS-wide reason, or SQS did not accept every event of a page.
   */
  stopped?: 'deadline' | 'pds-unavailable' | 'publish-failed';
  /** The highest emitted id after the run. */
  highestId: number | null;
  /** Ids in the checkpoint's record of emitted assets, and the ranges it is kept as. */
  emittedIds: number;
  emittedRanges: number;
  /**
   * How far the checkpoint lags behind the PDS after the run: the age of the oldest listed asset it
   * has not passed yet (new, or waiting for a retry), in seconds; 0 when it is caught up.
   */
  checkpointAgeSeconds: number;
}

type Fetched =
  | {
      ok: true;
      asset: MessagingAssetSummary;
      event: CloudEvent<'pds.messaging-asset.received'>;
      parseError: boolean;
    }
  | {
      ok: false;
      asset: MessagingAssetSummary;
      error: unknown;
      /** Set when the failed runs already count this one (an interrupted asset passed unfetched). */
      counted?: true;
    };

/** Seconds since the oldest asset still to emit (or waiting for a retry) was created; 0 when none is. */
function checkpointAgeSeconds(oldestPending: number | undefined, now: Date): number {
  if (oldestPending === undefined) return 0;
  return Math.max(0, Math.round((now.getTime() - oldestPending) / 1000));
}

/** What a read of the listing picked for this run. */
interface ListingSelection {
  /** New assets and those waiting for a retry, ascending by id, each once. */
  candidates: MessagingAssetSummary[];
  /** New assets seen beyond `maxAssetsPerRun`: left for later runs (the listing position stays before them). */
  beyondLimit: number;
  /** `createdAt` of the oldest of those. */
  oldestBeyondLimit: number | undefined;
  /** Retry entries whose asset a whole read no longer found. */
  gone: RetryEntry[];
  /** Ids a first run `now` or a carried-over floor recorded as done without an event. */
  recordedAsDone: number;
  read: ListingRead;
}

/**
 * Streams the listing (or its new part, listing.ts) and keeps only what this run will work on: at
 * most `maxAssetsPerRun` new assets plus the retry list, never the listing itself. A first run `now`
 * and a carried-over version-1 floor record what they find as done here (see checkpoint.ts).
 */
async function selectFromListing(
  pds: MessagingAssetPollDeps['pds'],
  checkpoint: MessagingAssetCheckpoint,
  options: { firstRunNow: boolean; paging: ListingPagingMode; limit: number; maxAssetsPerRun: number },
): Promise<ListingSelection> {
  const retryById = new Map(checkpoint.retry.map((entry) => [entry.id, entry]));
  const { legacyFloor } = checkpoint;
  const picked = new Map<number, MessagingAssetSummary>();
  const listedRetry = new Set<number>();
  let beyondLimit = 0;
  let oldestBeyondLimit: number | undefined;
  // Ids recorded as done without an event, merged in batches: the listing may come in any order.
  const done = new IdCollector(checkpoint.emitted);
  const visit = (asset: MessagingAssetSummary): void => {
    const { id } = asset;
    if (retryById.has(id)) {
      listedRetry.add(id);
      picked.set(id, asset);
    } else if (options.firstRunNow || (legacyFloor !== null && id <= legacyFloor)) {
      done.add(id);
    } else if (!checkpoint.emitted.has(id) && !picked.has(id)) {
      if (picked.size < options.maxAssetsPerRun + listedRetry.size) {
        picked.set(id, asset);
      } else {
        beyondLimit += 1;
        if (Number.isSafeInteger(asset.createdAt)) {
          oldestBeyondLimit = Math.min(oldestBeyondLimit ?? asset.createdAt, asset.createdAt);
        }
      }
    }
  };
  const read = await readListing(
    pds,
    checkpoint.listing,
    { paging: options.paging, limit: options.limit },
    visit,
    () => {
      // A paged read fell back to a whole one, which sees the same entries again.
      beyondLimit = 0;
      oldestBeyondLimit = undefined;
    },
  );
  done.flush();
  const recordedAsDone = done.added;
  const gone: RetryEntry[] = [];
  for (const entry of checkpoint.retry) {
    if (listedRetry.has(entry.id)) continue;
    if (read.whole) gone.push(entry);
    else picked.set(entry.id, summaryOfRetry(entry)); // behind the position: fetched by its id
  }
  const candidates = [...picked.values()].sort((a, b) => a.id - b.id);
  return { candidates, beyondLimit, oldestBeyondLimit, gone, recordedAsDone, read };
}

/** What the listing said about an asset waiting for a retry, as it was recorded. */
function summaryOfRetry(entry: RetryEntry): MessagingAssetSummary {
  return {
    id: entry.id,
    createdAt: entry.createdAt ?? Number.NaN,
    contentType: 'application/xml',
    ...(entry.primaryKey === undefined ? {} : { primaryKey: entry.primaryKey }),
  };
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
  const { pds, store } = deps;
  const logger = deps.logger ?? silentLog;
  const now = options.now ?? (() => new Date());
  const startedAt = now();
  const pageSize = options.pageSize ?? 100;
  checkInteger('pageSize', pageSize, { min: 1 });
  const key = MESSAGING_ASSETS_CHECKPOINT;

  const stored = await store.get<unknown>(key);
  const checkpointStore = new CheckpointWriter(store, key, stored?.etag);
  let checkpoint = stored ? parseCheckpoint(stored.value, key) : initialCheckpoint(startedAt);
  if (checkpoint.inFlight.length > 0) {
    checkpoint = countInterrupted(checkpoint, startedAt, logger);
    await checkpointStore.save(checkpoint);
  }
  const firstRunNow = stored === undefined && (options.firstRun ?? 'now') === 'now';
  const selection = await selectFromListing(pds, checkpoint, {
    firstRunNow,
    paging: options.paging ?? 'auto',
    limit: options.listingPageLimit ?? DEFAULT_LISTING_PAGE_LIMIT,
    maxAssetsPerRun: options.maxAssetsPerRun ?? DEFAULT_MAX_ASSETS_PER_RUN,
  });
  const { candidates, gone, read } = selection;
  const report = reportOfSelection(selection, logger);

  if (firstRunNow) {
    checkpoint = { ...checkpoint, listing: read.listing, listedAt: startedAt.toISOString() };
    await checkpointStore.save(checkpoint);
    report.initialised = true;
    logger.info('Messaging-asset checkpoint created: assets listed now count as done', {
      recordedAsDone: selection.recordedAsDone,
    });
    return finishReport(report, checkpoint, undefined, now());
  }
  if (read.whole && checkpoint.legacyFloor !== null) {
    logger.info(
      'Version-1 checkpoint carried over: the ids listed at or below its floor are recorded as done',
      {
        legacyFloor: checkpoint.legacyFloor,
        recordedAsDone: selection.recordedAsDone,
      },
    );
    checkpoint = { ...checkpoint, legacyFloor: null };
  }

  checkpoint = await emitCandidates(deps, checkpointStore, checkpoint, candidates, gone, options, report);
  report.remaining += selection.beyondLimit;
  // The position moves past this read only when everything it found was handled (emitted, or in the
  // retry list, which carries its own ids): otherwise the next paged read would start behind assets
  // still to emit.
  if (report.stopped === undefined && selection.beyondLimit === 0) {
    checkpoint = {
      ...checkpoint,
      listing: read.listing,
      listedAt: startedAt.toISOString(),
      updatedAt: now().toISOString(),
    };
    await checkpointStore.save(checkpoint);
  }
  return finishReport(report, checkpoint, oldestPending(selection, checkpoint), now());
}

/**
 * The checkpoint with each asset the last run left in flight counted as one failed run: that run
 * died while handling them.
 */
function countInterrupted(
  checkpoint: MessagingAssetCheckpoint,
  now: Date,
  logger: Log,
): MessagingAssetCheckpoint {
  const interrupted = checkpoint.inFlight.filter((entry) => !isDone(checkpoint, entry.id));
  logger.error(
    'The last run stopped while handling messaging assets (out of memory, a timeout or a crash); each counts one failed run',
    { messagingAssetIds: interrupted.map((entry) => entry.id) },
  );
  const failed = interrupted.map((entry) => ({
    asset: summaryOfRetry({ ...entry, attempts: 0, firstFailedAt: '', lastError: '' }),
    reason:
      'POLL_INTERRUPTED: the run stopped (out of memory, a timeout or a crash) while handling this asset',
    interrupted: true,
  }));
  const advanced = advanceCheckpoint(checkpoint, { emitted: [], failed }, { now });
  return { ...advanced.checkpoint, inFlight: [] };
}

/** The report of a run as the listing left it, with the listing's fallback and drops logged. */
function reportOfSelection(selection: ListingSelection, logger: Log): MessagingAssetPollReport {
  const { candidates, gone, read } = selection;
  const report = emptyMessagingAssetReport(read.entries);
  report.candidates = candidates.length;
  report.gone = gone.length;
  report.listingRequests = read.requests;
  report.recordedAsDone = selection.recordedAsDone;
  if (read.fellBack) {
    report.listingFellBack = read.fellBack;
    logger.info('Paged read of the messaging-asset listing fell back to the whole listing', {
      reason: read.fellBack,
      paging: read.listing.paging,
    });
  }
  for (const entry of gone) {
    logger.info('Messaging asset waiting for a retry is no longer listed; dropped', {
      messagingAssetId: entry.id,
      attempts: entry.attempts,
    });
  }
  return report;
}

/** `createdAt` of the oldest asset still to emit, listed this run or beyond its limit. */
function oldestPending(
  selection: ListingSelection,
  checkpoint: MessagingAssetCheckpoint,
): number | undefined {
  const pendingCreatedAt = selection.candidates
    .filter((asset) => !checkpoint.emitted.has(asset.id) && Number.isSafeInteger(asset.createdAt))
    .map((asset) => asset.createdAt);
  const oldest = [...pendingCreatedAt, selection.oldestBeyondLimit ?? Number.POSITIVE_INFINITY].reduce(
    (min, at) => Math.min(min, at),
    Number.POSITIVE_INFINITY,
  );
  return Number.isFinite(oldest) ? oldest : undefined;
}

function finishReport(
  report: MessagingAssetPollReport,
  checkpoint: MessagingAssetCheckpoint,
  oldestPending: number | undefined,
  now: Date,
): MessagingAssetPollReport {
  report.retryPending = checkpoint.retry.length;
  report.highestId = checkpoint.highestId;
  report.emittedIds = checkpoint.emitted.size;
  report.emittedRanges = checkpoint.emitted.rangeCount;
  report.checkpointAgeSeconds = checkpointAgeSeconds(oldestPending, now);
  return report;
}

/** Writes the checkpoint with conditional writes on the ETag it last read or wrote. */
export class CheckpointWriter {
  readonly #store: StateStore;
  readonly #key: string;
  #etag: string | undefined;

  constructor(store: StateStore, key: string, etag: string | undefined) {
    this.#store = store;
    this.#key = key;
    this.#etag = etag;
  }

  async save(checkpoint: MessagingAssetCheckpoint): Promise<void> {
    const value = storedCheckpoint(checkpoint);
    if (this.#etag === undefined) {
      const created = await this.#store.create(this.#key, value);
      if (!created.created) throw new StateConflictError(this.#key, 'another run created it meanwhile');
      this.#etag = created.etag;
    } else {
      this.#etag = (await this.#store.update(this.#key, value, this.#etag)).etag;
    }
  }
}

/** What the steps of one emission share: its dependencies, options and the report it fills. */
interface Emission {
  deps: MessagingAssetPollDeps;
  writer: CheckpointWriter;
  logger: Log;
  now: () => Date;
  failureLimit: number;
  options: MessagingAssetPollOptions;
  report: MessagingAssetPollReport;
}

/**
 * Fetches, publishes and records the candidates page by page (see the module comment); returns the
 * checkpoint after the last write.
 */
export async function emitCandidates(
  deps: MessagingAssetPollDeps,
  writer: CheckpointWriter,
  initial: MessagingAssetCheckpoint,
  candidates: readonly MessagingAssetSummary[],
  gone: readonly RetryEntry[],
  options: MessagingAssetPollOptions,
  report: MessagingAssetPollReport,
): Promise<MessagingAssetCheckpoint> {
  const latest = { checkpoint: initial };
  try {
    return await emitCandidatesRecording(deps, writer, latest, candidates, gone, options, report);
  } catch (error) {
    // A run that fails alive (a store or a sink error) did not die on its assets: they must not count
    // as interrupted. Another run's write (a conflict) is left alone; a failed clearing changes nothing.
    if (latest.checkpoint.inFlight.length > 0 && !(error instanceof StateConflictError)) {
      await writer.save({ ...latest.checkpoint, inFlight: [] }).catch(() => undefined);
    }
    throw error;
  }
}

async function emitCandidatesRecording(
  deps: MessagingAssetPollDeps,
  writer: CheckpointWriter,
  latest: { checkpoint: MessagingAssetCheckpoint },
  candidates: readonly MessagingAssetSummary[],
  gone: readonly RetryEntry[],
  options: MessagingAssetPollOptions,
  report: MessagingAssetPollReport,
): Promise<MessagingAssetCheckpoint> {
  const initial = latest.checkpoint;
  const emission: Emission = {
    deps,
    writer,
    logger: deps.logger ?? silentLog,
    now: options.now ?? (() => new Date()),
    failureLimit: checkedFailureLimit(options.failureLimit),
    options,
    report,
  };
  const pages = pagesOf(candidates, initial, emission.failureLimit, options.pageSize ?? 100);
  const fetchPage = pageFetcher(emission, initial);
  const pastDeadline = () => options.deadline !== undefined && Date.now() >= options.deadline;
  let checkpoint = initial;
  let pendingGone = gone.map((entry) => entry.id);

  // While a page is fetched, the next one is queued behind it (the shared limiter keeps the PDS
  // requests within `concurrency`), so its fetches go on while this page is published and recorded,
  // and neither the tail of a page nor publishing idles them. At most two pages are held at once.
  // A suspect (an asset a run died on) goes alone, with nothing fetched beside it: should it kill
  // this run too, it is the only one counted.
  let index = 0;
  let prefetched: Promise<Fetched[]> | undefined;
  for (; index < pages.length; index++) {
    if (prefetched === undefined && pastDeadline()) {
      report.stopped = 'deadline';
      break;
    }
    const { assets: page, suspect } = pages[index] as CandidatePage;
    const next = pages[index + 1];
    const fetchNext = next !== undefined && !suspect && !next.suspect && !pastDeadline();
    // Written before the fetches start: should the process die on them, the next run counts them.
    checkpoint = await recordInFlight(writer, checkpoint, [
      ...(prefetched === undefined ? page : []),
      ...(fetchNext ? next.assets : []),
    ]);
    latest.checkpoint = checkpoint;
    const fetching = prefetched ?? fetchPage(page);
    prefetched = fetchNext ? fetchPage(next.assets) : undefined;
    const fetched = await fetching;
    const failures = fetched.filter((item) => !item.ok);
    if (failures.length === page.length && failures.every((item) => isSystemicPdsError(item.error))) {
      report.failed += failures.length;
      report.stopped = 'pds-unavailable';
      await prefetched; // its results are dropped: those assets stay new
      emission.logger.error('Every fetch of a page failed: the PDS looks unavailable; stopping this run', {
        firstMessagingAssetId: page[0]?.id,
        ...errorFields(failures[0]?.error),
      });
      break;
    }
    const emitted = await emitPage(emission, checkpoint, fetched, pendingGone);
    checkpoint = emitted.checkpoint;
    latest.checkpoint = checkpoint;
    pendingGone = [];
    if (emitted.unaccepted !== undefined) {
      index++;
      report.remaining = emitted.unaccepted;
      await prefetched;
      break;
    }
  }
  report.remaining += pages.slice(index).reduce((sum, page) => sum + page.assets.length, 0);

  if (pendingGone.length > 0 || checkpoint.inFlight.length > 0) {
    // The run ends here alive: what it left unrecorded (a stop, SQS not accepting) stays new.
    checkpoint = advanceCheckpoint(
      { ...checkpoint, inFlight: [] },
      { emitted: [], failed: [], gone: pendingGone },
      advanceOptions(emission),
    ).checkpoint;
    await writer.save(checkpoint);
  }
  return checkpoint;
}

/** Assets fetched and published together; a `suspect` page holds one asset a run died on. */
interface CandidatePage {
  assets: MessagingAssetSummary[];
  suspect: boolean;
}

/**
 * The candidates in pages: first each suspect alone (the fewest interruptions first, so that the
 * assets that merely shared a page with a killer are proven before it runs again), then the others
 * by `pageSize`, in id order. An asset already at the failure limit is no suspect: it is not fetched.
 */
function pagesOf(
  candidates: readonly MessagingAssetSummary[],
  checkpoint: MessagingAssetCheckpoint,
  failureLimit: number,
  pageSize: number,
): CandidatePage[] {
  const interrupted = new Map(
    checkpoint.retry
      .filter((entry) => entry.interrupted && entry.attempts < failureLimit)
      .map((entry) => [entry.id, entry.attempts]),
  );
  const suspects = candidates
    .filter((asset) => interrupted.has(asset.id))
    .sort((a, b) => (interrupted.get(a.id) ?? 0) - (interrupted.get(b.id) ?? 0) || a.id - b.id);
  const others = candidates.filter((asset) => !interrupted.has(asset.id));
  const pages: CandidatePage[] = suspects.map((asset) => ({ assets: [asset], suspect: true }));
  for (let start = 0; start < others.length; start += pageSize) {
    pages.push({ assets: others.slice(start, start + pageSize), suspect: false });
  }
  return pages;
}

/** The checkpoint with `assets` added to `inFlight`, saved when that changed it. */
async function recordInFlight(
  writer: CheckpointWriter,
  checkpoint: MessagingAssetCheckpoint,
  assets: readonly MessagingAssetSummary[],
): Promise<MessagingAssetCheckpoint> {
  const known = new Set(checkpoint.inFlight.map((entry) => entry.id));
  const added = assets.filter((asset) => !known.has(asset.id)).map(inFlightEntryOf);
  if (added.length === 0) return checkpoint;
  const recorded = { ...checkpoint, inFlight: [...checkpoint.inFlight, ...added] };
  await writer.save(recorded);
  return recorded;
}

function inFlightEntryOf(asset: MessagingAssetSummary): InFlightEntry {
  return {
    id: asset.id,
    ...(Number.isSafeInteger(asset.createdAt) ? { createdAt: asset.createdAt } : {}),
    ...(typeof asset.primaryKey === 'string' ? { primaryKey: asset.primaryKey } : {}),
  };
}

function advanceOptions(emission: Emission): { now: Date; maxRetry?: number } {
  const { maxRetry } = emission.options;
  return { now: emission.now(), ...(maxRetry === undefined ? {} : { maxRetry }) };
}

/**
 * The fetch of the page of candidates that starts at a given index, with the events built. One
 * limiter serves every fetch of the run, its waiters in order: the next page's fetches queue behind
 * this page's and take the slots its last requests free, and no more than `concurrency` PDS
 * requests are ever in flight.
 */
function pageFetcher(
  emission: Emission,
  initial: MessagingAssetCheckpoint,
): (page: readonly MessagingAssetSummary[]) => Promise<Fetched[]> {
  const { pds } = emission.deps;
  // Assets on which runs died `failureLimit` times are passed unfetched: fetching one kills the run.
  const exhausted = new Map(
    initial.retry
      .filter((entry) => entry.interrupted && entry.attempts >= emission.failureLimit)
      .map((entry) => [entry.id, entry.attempts]),
  );
  const limit = createLimiter(emission.options.concurrency ?? 8);
  const fetchXml = async (asset: MessagingAssetSummary): Promise<string | { error: unknown }> => {
    try {
      return await pds.getMessagingAsset(asset.id);
    } catch (error) {
      return { error };
    }
  };
  // The events of a page are built in one loop once its fetches are in, not as each answer arrives:
  // parsing back to back keeps the parser's code and data in the CPU's caches, which the HTTP work
  // between two answers evicts (in `node bench/poll.ts` an event took 70 µs that way, 42 µs this way).
  return async (page) => {
    const time = emission.now();
    const answers = await Promise.all(
      page.map((asset) => (exhausted.has(asset.id) ? undefined : limit(() => fetchXml(asset)))),
    );
    return page.map((asset, index): Fetched => {
      const failedRuns = exhausted.get(asset.id);
      if (failedRuns !== undefined) {
        return { ok: false, asset, error: new PollInterruptedError(asset.id, failedRuns), counted: true };
      }
      const answer = answers[index];
      if (typeof answer !== 'string') return { ok: false, asset, error: answer?.error };
      try {
        const event = messagingAssetEvent(
          asset,
          answer,
          pollEventOptions(time, emission.options.source),
          emission.options.xmlLimits,
        );
        return { ok: true, asset, event, parseError: event.data.parseError !== undefined };
      } catch (error) {
        return { ok: false, asset, error };
      }
    });
  };
}

/**
 * Publishes one fetched page, records it in the ledger and the checkpoint, and counts it in the
 * report. `unaccepted` is set when SQS did not accept every event: the run stops there.
 */
async function emitPage(
  emission: Emission,
  before: MessagingAssetCheckpoint,
  fetched: Fetched[],
  gone: number[],
): Promise<{ checkpoint: MessagingAssetCheckpoint; unaccepted?: number }> {
  const { deps, logger, failureLimit, report } = emission;
  const failures = fetched.filter((item) => !item.ok);
  const successes = fetched.filter((item) => item.ok);
  const failedRuns = failedRunsOf(before);
  const time = emission.now();
  const published = await publishPage(deps.sink, {
    ordinary: successes.map((item) => ({ asset: item.asset, event: item.event })),
    failedFetches: failures.map((item) => ({
      asset: item.asset,
      error: item.error,
      ...(item.counted ? { counted: true as const } : {}),
    })),
    failedRuns,
    failureLimit,
    passedEvent: (asset, messageError) =>
      passedMessagingAssetEvent(asset, messageError, pollEventOptions(time, emission.options.source)),
  });
  logPage(logger, published, successes, failureLimit);
  const { accepted, passed, recorded, unaccepted, publishError } = published;

  // The ledger learns of the accepted confirmations before the checkpoint moves: when it fails,
  // the run stops here and the next run sends these assets again (same ids; the ledger applies a
  // fact once).
  await deps.confirmations?.recordMessagingAssets(
    successes.filter((item) => accepted.has(item.asset.id)).map((item) => item.event),
  );
  const advanced = advanceCheckpoint(
    before,
    {
      emitted: [...accepted],
      failed: recorded.map((item) => ({ asset: item.asset, reason: item.reason })),
      gone,
    },
    advanceOptions(emission),
  );
  const { checkpoint } = advanced;
  await emission.writer.save(checkpoint);

  const passedIds = new Set(passed.map((item) => item.asset.id));
  report.emitted += accepted.size;
  report.emittedAsFailed += passed.length;
  report.parseErrors += successes.filter(
    (item) => item.parseError && accepted.has(item.asset.id) && !passedIds.has(item.asset.id),
  ).length;
  report.failed += recorded.length + passed.length;
  report.abandoned += advanced.abandoned.length;
  for (const entry of advanced.abandoned) {
    logger.error(
      'Messaging asset left the retry list because it is full; a later whole read of the listing (or the audit) takes it as new again',
      { messagingAssetId: entry.id, attempts: entry.attempts, lastError: entry.lastError },
    );
  }
  if (!publishError) return { checkpoint };
  report.stopped = 'publish-failed';
  report.unpublished = unaccepted.length;
  logger.error(
    'SQS did not accept every event; those assets stay unrecorded and the next run sends them again',
    { unpublished: unaccepted, reason: publishError.message },
  );
  return { checkpoint, unaccepted: unaccepted.length };
}

/** The log lines of one published page: recorded failures, passed assets, parse errors. */
function logPage(
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

interface PageToPublish {
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

interface PagePublished {
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
async function publishPage(sink: EventSink, page: PageToPublish): Promise<PagePublished> {
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
  const sent = await publishPassingRefused(sink, outgoing, {
    eventOf: (item) => item.event,
    isPassed: (item) => item.messageError !== undefined,
    failedRuns: (item) => page.failedRuns(item.asset.id) + 1,
    failureLimit: page.failureLimit,
    passed: (item, messageError) => ({
      asset: item.asset,
      event: page.passedEvent(item.asset, messageError),
      messageError,
    }),
  });
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
