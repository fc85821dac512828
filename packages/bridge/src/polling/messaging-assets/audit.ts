/**
 * The messaging-asset audit: compares the whole listing with the checkpoint's record of emitted ids
 * and reports what disagrees, so "nothing lost" is checked rather than assumed.
 *
 * - gap: listed, not recorded as emitted, not waiting for a retry, and created before the last run
 *   that read the listing to its end started (`listedAt`): the poller should have emitted it and did
 *   not (a paged read that could not see it, a retry list that overflowed, a record edited by hand).
 *   An asset without a usable `createdAt` counts as a gap once any such run happened.
 * - pending: listed and not emitted yet, but newer than that run, or waiting for a retry: the poller
 *   is on it, nothing to alarm about.
 * - stray: recorded as emitted, no longer listed (the PDS removed it). Informational.
 *
 * With `apply` the gaps are emitted exactly as the poller would have (same event ids, same checkpoint
 * writes, poison rule included), at most `maxAssetsPerRun` of them per audit. The audit streams the
 * listing; it keeps the listed ids as ranges (../id-ranges.ts), never the listing.
 */
import type { Log } from '../../core/index.ts';
import { silentLog } from '../../core/index.ts';
import type { MessagingAssetSummary } from '../../pds/index.ts';
import { isDone, type MessagingAssetCheckpoint, parseCheckpoint } from '../checkpoint.ts';
import { IdCollector, IdRanges } from '../id-ranges.ts';
import { MESSAGING_ASSETS_CHECKPOINT } from '../keys.ts';
import { readListing } from '../listing.ts';
import { DEFAULT_MAX_ASSETS_PER_RUN } from '../settings.ts';
import { emitCandidates } from './emit.ts';
import { CheckpointWriter } from './record.ts';
import { emptyMessagingAssetReport, withEmission } from './report.ts';
import type { MessagingAssetPollDeps, MessagingAssetPollOptions, MessagingAssetPollReport } from './types.ts';

/** Most ids an audit report names per kind; the counts are always whole. */
export const AUDIT_IDS_NAMED = 100;

export interface AuditOptions extends MessagingAssetPollOptions {
  /** Emit the gaps (default false: report only). */
  apply?: boolean;
}

/** What one audit found and did. */
export interface AuditReport {
  /** False when there is no checkpoint yet: nothing to compare with. */
  compared: boolean;
  listed: number;
  /** Ids recorded as emitted when the audit began. */
  recorded: number;
  gaps: number;
  /** The first {@link AUDIT_IDS_NAMED} gaps, ascending. */
  gapIds: number[];
  pending: number;
  strays: number;
  strayIds: number[];
  applied: boolean;
  /** Gaps whose event SQS accepted during this audit. */
  gapsEmitted: number;
  /** What emitting the gaps did, as a poller run reports it (only with `apply`). */
  emission?: MessagingAssetPollReport;
  /** When the last run that read the listing to its end started, as the checkpoint says. */
  listedAt: string | null;
}

/**
 * Runs one audit. Hold the poller's lease around it when `apply` is set (the scheduled audit does):
 * it writes the same checkpoint.
 *
 * @example
 * const report = await auditMessagingAssets({ pds, store, sink, logger }, { apply: true });
 * metrics.addMetric('AuditGapsFound', 'Count', report.gaps);
 */
export async function auditMessagingAssets(
  deps: MessagingAssetPollDeps,
  options: AuditOptions = {},
): Promise<AuditReport> {
  const logger: Log = deps.logger ?? silentLog;
  const stored = await deps.store.get<unknown>(MESSAGING_ASSETS_CHECKPOINT);
  const report: AuditReport = {
    compared: false,
    listed: 0,
    recorded: 0,
    gaps: 0,
    gapIds: [],
    pending: 0,
    strays: 0,
    strayIds: [],
    applied: false,
    gapsEmitted: 0,
    listedAt: null,
  };
  if (!stored) return report;
  const checkpoint = parseCheckpoint(stored.value, MESSAGING_ASSETS_CHECKPOINT);
  report.compared = true;
  report.recorded = checkpoint.emitted.size;
  report.listedAt = checkpoint.listedAt;

  const found = await compareWithListing(
    deps,
    checkpoint,
    options.maxAssetsPerRun ?? DEFAULT_MAX_ASSETS_PER_RUN,
  );
  Object.assign(report, found.counts);
  const strays = checkpoint.emitted.difference(found.listed, AUDIT_IDS_NAMED);
  report.strays = strays.count;
  report.strayIds = strays.ids;

  if (options.apply && found.gaps.length > 0) {
    const writer = new CheckpointWriter(deps.store, MESSAGING_ASSETS_CHECKPOINT, stored.etag);
    const emitted = await emitCandidates(deps, writer, checkpoint, found.gaps, [], options);
    const emission = withEmission(
      { ...emptyMessagingAssetReport(report.listed), candidates: found.gaps.length },
      emitted,
    );
    report.applied = true;
    report.gapsEmitted = found.gaps.filter((asset) => emitted.checkpoint.emitted.has(asset.id)).length;
    report.emission = { ...emission, remaining: emission.remaining + report.gaps - found.gaps.length };
  }
  logger.info('Messaging-asset audit finished', { ...report, emission: undefined });
  return report;
}

interface Comparison {
  counts: Pick<AuditReport, 'listed' | 'gaps' | 'gapIds' | 'pending'>;
  /** Every listed id. */
  listed: IdRanges;
  /** The gaps to emit, ascending, at most the cap. */
  gaps: MessagingAssetSummary[];
}

/** Streams the whole listing once and sorts every entry the record does not hold. */
async function compareWithListing(
  deps: MessagingAssetPollDeps,
  checkpoint: MessagingAssetCheckpoint,
  cap: number,
): Promise<Comparison> {
  const listed = new IdRanges();
  const collector = new IdCollector(listed);
  const seen = new Set<number>();
  const retry = new Set(checkpoint.retry.map((entry) => entry.id));
  const since = checkpoint.listedAt === null ? undefined : Date.parse(checkpoint.listedAt);
  const gapIds: number[] = [];
  const gaps = new Map<number, MessagingAssetSummary>();
  let gapCount = 0;
  let pending = 0;
  const read = await readListing(deps.pds, checkpoint.listing, { paging: 'off', limit: 1 }, (asset) => {
    collector.add(asset.id);
    if (isDone(checkpoint, asset.id) || gaps.has(asset.id) || seen.has(asset.id)) return;
    const newer = since === undefined || (Number.isSafeInteger(asset.createdAt) && asset.createdAt >= since);
    if (retry.has(asset.id) || newer) {
      // Kept to count each once; pending assets are few (newer than the last whole read, or failing).
      seen.add(asset.id);
      pending += 1;
      return;
    }
    gapCount += 1;
    if (gaps.size < cap) gaps.set(asset.id, asset);
  });
  collector.flush();
  const ordered = [...gaps.values()].sort((a, b) => a.id - b.id);
  for (const asset of ordered) {
    if (gapIds.length >= AUDIT_IDS_NAMED) break;
    gapIds.push(asset.id);
  }
  return { counts: { listed: read.entries, gaps: gapCount, gapIds, pending }, listed, gaps: ordered };
}
