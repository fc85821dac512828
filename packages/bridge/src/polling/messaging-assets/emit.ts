/**
 * The candidates of a run, page by page, through the stages: fetch and parse (fetch.ts), publish
 * (publish.ts), record (record.ts). Each page hands back its outcome; `emitCandidates` returns them
 * with the checkpoint after the last write (the audit emits its gaps the same way).
 */
import { errorFields, type Log, silentLog } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import { StateConflictError } from '../../state/index.ts';
import type { MessagingAssetCheckpoint, RetryEntry } from '../checkpoint.ts';
import { checkedFailureLimit } from '../poison.ts';
import { isSystemicPdsError } from '../ports.ts';
import { type FetchPlan, fetchPage, fetchPlanOf, pagesOf } from './fetch.ts';
import { logPage, pageToPublish, publishPage } from './publish.ts';
import {
  type AdvanceOptions,
  type CheckpointWriter,
  closeRun,
  logAbandoned,
  recordInFlight,
  recordPage,
} from './record.ts';
import { type EmissionOutcome, type PageOutcome, pageOutcome, unavailableOutcome } from './report.ts';
import type { CandidatePage, Fetched, MessagingAssetPollDeps, MessagingAssetPollOptions } from './types.ts';

/** The settings every page of one emission is handled with (read-only). */
interface Emission {
  deps: MessagingAssetPollDeps;
  writer: CheckpointWriter;
  logger: Log;
  now: () => Date;
  failureLimit: number;
  source: string | undefined;
  advance: () => AdvanceOptions;
  pastDeadline: () => boolean;
}

function emissionOf(
  deps: MessagingAssetPollDeps,
  writer: CheckpointWriter,
  options: MessagingAssetPollOptions,
): Emission {
  const now = options.now ?? (() => new Date());
  const { maxRetry, deadline } = options;
  return {
    deps,
    writer,
    logger: deps.logger ?? silentLog,
    now,
    failureLimit: checkedFailureLimit(options.failureLimit),
    source: options.source,
    advance: () => ({ now: now(), ...(maxRetry === undefined ? {} : { maxRetry }) }),
    pastDeadline: () => deadline !== undefined && Date.now() >= deadline,
  };
}

/**
 * Fetches, publishes and records the candidates page by page (see run.ts); returns the checkpoint
 * after the last write and what each page did.
 */
export async function emitCandidates(
  deps: MessagingAssetPollDeps,
  writer: CheckpointWriter,
  initial: MessagingAssetCheckpoint,
  candidates: readonly MessagingAssetSummary[],
  gone: readonly RetryEntry[],
  options: MessagingAssetPollOptions,
): Promise<EmissionOutcome> {
  const latest = { checkpoint: initial };
  try {
    return await emitPages(emissionOf(deps, writer, options), latest, candidates, gone, options);
  } catch (error) {
    // A run that fails alive (a store or a sink error) did not die on its assets: they must not count
    // as interrupted. Another run's write (a conflict) is left alone; a failed clearing changes nothing.
    if (latest.checkpoint.inFlight.length > 0 && !(error instanceof StateConflictError)) {
      await writer.save({ ...latest.checkpoint, inFlight: [] }).catch(() => undefined);
    }
    throw error;
  }
}

/** What one page hands on: the checkpoint after it, the next page's fetch if started, its outcome. */
interface Step {
  checkpoint: MessagingAssetCheckpoint;
  prefetched: Promise<Fetched[]> | undefined;
  outcome: PageOutcome;
  /** Set when the run stops after this page; `unaccepted` counts the events SQS did not take. */
  stopped?: 'pds-unavailable' | 'publish-failed';
  unaccepted?: number;
}

// While a page is fetched, the next one is queued behind it (the shared limiter keeps the PDS
// requests within `concurrency`), so its fetches go on while this page is published and recorded,
// and neither the tail of a page nor publishing idles them. At most two pages are held at once.
// A suspect (an asset a run died on) goes alone, with nothing fetched beside it: should it kill
// this run too, it is the only one counted.
async function emitPages(
  emission: Emission,
  latest: { checkpoint: MessagingAssetCheckpoint },
  candidates: readonly MessagingAssetSummary[],
  gone: readonly RetryEntry[],
  options: MessagingAssetPollOptions,
): Promise<EmissionOutcome> {
  const initial = latest.checkpoint;
  const pages = pagesOf(candidates, initial, emission.failureLimit, options.pageSize ?? 100);
  const plan = fetchPlanOf(emission.deps.pds, initial, {
    failureLimit: emission.failureLimit,
    concurrency: options.concurrency ?? 8,
    source: options.source,
    xmlLimits: options.xmlLimits,
  });
  let checkpoint = initial;
  let prefetched: Promise<Fetched[]> | undefined;
  let pendingGone = gone.map((entry) => entry.id);
  const outcomes: PageOutcome[] = [];
  let stopped: EmissionOutcome['stopped'];
  let unaccepted = 0;
  let index = 0;
  for (; index < pages.length; index++) {
    if (prefetched === undefined && emission.pastDeadline()) {
      stopped = 'deadline';
      break;
    }
    const at = { checkpoint, prefetched };
    const step = await emitStep(
      emission,
      plan,
      at,
      pages[index] as CandidatePage,
      pages[index + 1],
      pendingGone,
      latest,
    );
    ({ checkpoint, prefetched } = step);
    outcomes.push(step.outcome);
    stopped = step.stopped;
    if (stopped === 'pds-unavailable') break; // this page stays new, with the retry entries gone
    pendingGone = [];
    if (stopped !== undefined) {
      unaccepted = step.unaccepted ?? 0;
      index++;
      break;
    }
  }
  const notReached = pages.slice(index).reduce((sum, page) => sum + page.assets.length, 0);
  checkpoint = await closeRun(emission.writer, checkpoint, pendingGone, emission.advance);
  return { checkpoint, pages: outcomes, ...(stopped ? { stopped } : {}), remaining: unaccepted + notReached };
}

/** One page: in flight recorded, fetched (the next one prefetched), then published and recorded. */
async function emitStep(
  emission: Emission,
  plan: FetchPlan,
  at: { checkpoint: MessagingAssetCheckpoint; prefetched: Promise<Fetched[]> | undefined },
  current: CandidatePage,
  next: CandidatePage | undefined,
  gone: number[],
  latest: { checkpoint: MessagingAssetCheckpoint },
): Promise<Step> {
  const page = current.assets;
  const fetchNext = next !== undefined && !current.suspect && !next.suspect && !emission.pastDeadline();
  // Written before the fetches start: should the process die on them, the next run counts them.
  const inFlight = await recordInFlight(emission.writer, at.checkpoint, [
    ...(at.prefetched === undefined ? page : []),
    ...(fetchNext ? next.assets : []),
  ]);
  latest.checkpoint = inFlight;
  const fetching = at.prefetched ?? fetchPage(plan, page, emission.now());
  const prefetched = fetchNext ? fetchPage(plan, next.assets, emission.now()) : undefined;
  const fetched = await fetching;
  const failures = fetched.filter((item) => !item.ok);
  if (failures.length === page.length && failures.every((item) => isSystemicPdsError(item.error))) {
    await prefetched; // its results are dropped: those assets stay new
    emission.logger.error('Every fetch of a page failed: the PDS looks unavailable; stopping this run', {
      firstMessagingAssetId: page[0]?.id,
      ...errorFields(failures[0]?.error),
    });
    const outcome = unavailableOutcome(failures.length);
    return { checkpoint: inFlight, prefetched: undefined, outcome, stopped: 'pds-unavailable' };
  }
  const emitted = await emitPage(emission, inFlight, fetched, gone);
  latest.checkpoint = emitted.checkpoint;
  if (emitted.unaccepted === undefined) return { ...emitted, prefetched };
  await prefetched;
  return { ...emitted, prefetched: undefined, stopped: 'publish-failed' };
}

/**
 * Publishes one fetched page and records it in the ledger and the checkpoint; hands on the page's
 * outcome, with `unaccepted` set when SQS did not accept every event (the run stops there).
 */
async function emitPage(
  emission: Emission,
  before: MessagingAssetCheckpoint,
  fetched: Fetched[],
  gone: number[],
): Promise<{ checkpoint: MessagingAssetCheckpoint; outcome: PageOutcome; unaccepted?: number }> {
  const { deps, logger, failureLimit } = emission;
  const successes = fetched.filter((item) => item.ok);
  const toPublish = pageToPublish(before, fetched, {
    failureLimit,
    time: emission.now(),
    source: emission.source,
  });
  const published = await publishPage(deps.sink, toPublish);
  logPage(logger, published, successes, failureLimit);
  const recorded = await recordPage(
    { writer: emission.writer, confirmations: deps.confirmations, logger },
    before,
    { published, successes, gone, failedRuns: toPublish.failedRuns, failureLimit },
    emission.advance,
  );
  logAbandoned(logger, recorded.abandoned);
  const outcome = pageOutcome(published, successes, recorded.abandoned, recorded.ledgerFailed);
  const { publishError, unaccepted } = published;
  if (!publishError) return { checkpoint: recorded.checkpoint, outcome };
  logger.error(
    'SQS did not accept every event; those assets stay unrecorded and the next run sends them again',
    {
      unpublished: unaccepted,
      reason: publishError.message,
    },
  );
  return { checkpoint: recorded.checkpoint, outcome, unaccepted: unaccepted.length };
}
