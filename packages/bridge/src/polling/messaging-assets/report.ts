/**
 * The report of a messaging-asset run, folded from what the stages hand back: the selection's counts,
 * each page's outcome, and the checkpoint the run ended with.
 */
import type { MessagingAssetCheckpoint, RetryEntry } from '../checkpoint.ts';
import type { PagePublished } from './publish.ts';
import type { ListingSelection } from './select.ts';
import type { Fetched, MessagingAssetPollReport } from './types.ts';

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

/** The report of a run as the listing left it. */
export function selectionReport(selection: ListingSelection): MessagingAssetPollReport {
  const { candidates, gone, read } = selection;
  return {
    ...emptyMessagingAssetReport(read.entries),
    candidates: candidates.length,
    gone: gone.length,
    listingRequests: read.requests,
    recordedAsDone: selection.recordedAsDone,
    ...(read.fellBack ? { listingFellBack: read.fellBack } : {}),
  };
}

/** What one page (or a page the PDS failed as a whole) did. */
export interface PageOutcome {
  emitted: number;
  emittedAsFailed: number;
  parseErrors: number;
  failed: number;
  abandoned: number;
  unpublished: number;
}

/** The counts a page outcome adds to the report. */
const PAGE_COUNTS = [
  'emitted',
  'emittedAsFailed',
  'parseErrors',
  'failed',
  'abandoned',
  'unpublished',
] as const;

/** What publishing and recording one page did. */
export function pageOutcome(
  published: PagePublished,
  successes: ReadonlyArray<Extract<Fetched, { ok: true }>>,
  abandoned: readonly RetryEntry[],
  /** Accepted assets the ledger failed on, kept for a retry. */
  ledgerFailed = 0,
): PageOutcome {
  const { accepted, passed, recorded } = published;
  const passedIds = new Set(passed.map((item) => item.asset.id));
  return {
    emitted: accepted.size,
    emittedAsFailed: passed.length,
    parseErrors: successes.filter(
      (item) => item.parseError && accepted.has(item.asset.id) && !passedIds.has(item.asset.id),
    ).length,
    failed: recorded.length + passed.length + ledgerFailed,
    abandoned: abandoned.length,
    unpublished: published.publishError ? published.unaccepted.length : 0,
  };
}

/** A page whose every fetch failed for a PDS-wide reason: its assets count as failed, nothing else. */
export function unavailableOutcome(failed: number): PageOutcome {
  return { emitted: 0, emittedAsFailed: 0, parseErrors: 0, failed, abandoned: 0, unpublished: 0 };
}

/** What emitting the candidates did: the checkpoint after it, the pages, and why it stopped early. */
export interface EmissionOutcome {
  checkpoint: MessagingAssetCheckpoint;
  pages: PageOutcome[];
  stopped?: MessagingAssetPollReport['stopped'];
  /** Candidates not handled: those SQS did not accept and the pages not reached. */
  remaining: number;
}

/** The report with an emission's pages added up. */
export function withEmission(
  report: MessagingAssetPollReport,
  outcome: EmissionOutcome,
): MessagingAssetPollReport {
  const summed = { ...report, remaining: report.remaining + outcome.remaining };
  for (const field of PAGE_COUNTS) {
    for (const page of outcome.pages) summed[field] += page[field];
  }
  return outcome.stopped === undefined ? summed : { ...summed, stopped: outcome.stopped };
}

/** The report completed with the checkpoint the run ended with. */
export function finishReport(
  report: MessagingAssetPollReport,
  checkpoint: MessagingAssetCheckpoint,
  oldestPending: number | undefined,
  now: Date,
): MessagingAssetPollReport {
  return {
    ...report,
    retryPending: checkpoint.retry.length,
    highestId: checkpoint.highestId,
    emittedIds: checkpoint.emitted.size,
    emittedRanges: checkpoint.emitted.rangeCount,
    checkpointAgeSeconds: checkpointAgeSeconds(oldestPending, now),
  };
}

/** Seconds since the oldest asset still to emit (or waiting for a retry) was created; 0 when none is. */
function checkpointAgeSeconds(oldestPending: number | undefined, now: Date): number {
  if (oldestPending === undefined) return 0;
  return Math.max(0, Math.round((now.getTime() - oldestPending) / 1000));
}
