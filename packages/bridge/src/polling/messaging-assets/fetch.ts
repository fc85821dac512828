/**
 * The fetch and parse stages of the messaging-asset poller. The candidates go in pages
 * (`pagesOf`); each page's XML is fetched (`fetchAnswers`), then parsed into events in one loop
 * (`parsePage`). `fetchPage` is the two in a row. One limiter serves every fetch of a run, its
 * waiters in order: the next page's fetches queue behind this page's and take the slots its last
 * requests free, and no more than `concurrency` PDS requests are ever in flight.
 */
import { createLimiter, type Limiter } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import type { ParseOptions } from '../../xml/index.ts';
import type { MessagingAssetCheckpoint } from '../checkpoint.ts';
import { PollInterruptedError } from '../errors.ts';
import { messagingAssetEvent, pollEventOptions } from '../events.ts';
import type { CandidatePage, Fetched, MessagingAssetPollDeps } from './types.ts';

/** What the fetches of one run share: the PDS, its limiter, and the assets not to fetch. */
export interface FetchPlan {
  pds: MessagingAssetPollDeps['pds'];
  limit: Limiter;
  /** Assets on which runs died `failureLimit` times, with their failed runs: passed unfetched. */
  exhausted: ReadonlyMap<number, number>;
  source: string | undefined;
  xmlLimits: ParseOptions | undefined;
}

/** A fetch's answer: the XML, the error, or nothing for an asset passed unfetched. */
export type Answer = string | { error: unknown } | undefined;

/** The plan of a run's fetches, from the checkpoint it started with. */
export function fetchPlanOf(
  pds: MessagingAssetPollDeps['pds'],
  initial: MessagingAssetCheckpoint,
  settings: { failureLimit: number; concurrency: number; source?: string; xmlLimits?: ParseOptions },
): FetchPlan {
  // Assets on which runs died `failureLimit` times are passed unfetched: fetching one kills the run.
  const exhausted = new Map(
    initial.retry
      .filter((entry) => entry.interrupted && entry.attempts >= settings.failureLimit)
      .map((entry) => [entry.id, entry.attempts]),
  );
  return {
    pds,
    limit: createLimiter(settings.concurrency),
    exhausted,
    source: settings.source,
    xmlLimits: settings.xmlLimits,
  };
}

/**
 * The candidates in pages: first each suspect alone (the fewest interruptions first, so that the
 * assets that merely shared a page with a killer are proven before it runs again), then the others
 * by `pageSize`, in id order. An asset already at the failure limit is no suspect: it is not fetched.
 */
export function pagesOf(
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

/** The fetch stage: each asset's XML (or its error), in page order; exhausted assets are not fetched. */
export function fetchAnswers(plan: FetchPlan, page: readonly MessagingAssetSummary[]): Promise<Answer[]> {
  return Promise.all(
    page.map((asset) =>
      plan.exhausted.has(asset.id) ? undefined : plan.limit(() => fetchXml(plan.pds, asset.id)),
    ),
  );
}

async function fetchXml(pds: FetchPlan['pds'], id: number): Promise<string | { error: unknown }> {
  try {
    return await pds.getMessagingAsset(id);
  } catch (error) {
    return { error };
  }
}

/**
 * The parse stage: each answer's event, built in one loop once the page's fetches are in, not as each
 * answer arrives: parsing back to back keeps the parser's code and data in the CPU's caches, which the
 * HTTP work between two answers evicts (in `node bench/poll.ts` an event took 70 µs that way, 42 µs
 * this way).
 */
export function parsePage(
  plan: FetchPlan,
  page: readonly MessagingAssetSummary[],
  answers: readonly Answer[],
  time: Date,
): Fetched[] {
  return page.map((asset, index): Fetched => {
    const failedRuns = plan.exhausted.get(asset.id);
    if (failedRuns !== undefined) {
      return { ok: false, asset, error: new PollInterruptedError(asset.id, failedRuns), counted: true };
    }
    const answer = answers[index];
    if (typeof answer !== 'string') return { ok: false, asset, error: answer?.error };
    try {
      const event = messagingAssetEvent(asset, answer, pollEventOptions(time, plan.source), plan.xmlLimits);
      return { ok: true, asset, event, parseError: event.data.parseError !== undefined };
    } catch (error) {
      return { ok: false, asset, error };
    }
  });
}

/** Fetch, then parse, one page; `time` is the events' time, taken before the fetches start. */
export async function fetchPage(
  plan: FetchPlan,
  page: readonly MessagingAssetSummary[],
  time: Date,
): Promise<Fetched[]> {
  return parsePage(plan, page, await fetchAnswers(plan, page), time);
}
