/**
 * Where the pollers keep their state in the state bucket: the messaging-asset poller's checkpoint and
 * the supplier-review poller's progress (docs/architecture.md, "The state bucket"). Their leases are
 * packages/bridge/src/state's (`leaseKey`), the watch list too (`watchKey`).
 */
import { encodeKeySegment, statePrefix } from '../state/index.ts';

/** `checkpoints/`: one checkpoint per poller (./checkpoint.ts). */
export const CHECKPOINTS_PREFIX = statePrefix('checkpoints', 'packages/bridge/src/polling');
/** `review-progress/`: the supplier-review poller's progress shards and their layout (./supplier-reviews/review-progress.ts). */
export const REVIEW_PROGRESS_PREFIX = statePrefix('review-progress', 'packages/bridge/src/polling');

/** `checkpoints/<name>.json`, e.g. `checkpointKey('messaging-assets')`. */
export function checkpointKey(name: string): string {
  return `${CHECKPOINTS_PREFIX}${encodeKeySegment(name)}.json`;
}

/** The levels of the review progress used so far (./supplier-reviews/review-progress.ts, `ProgressLayout`). */
export const PROGRESS_LAYOUT_KEY = `${REVIEW_PROGRESS_PREFIX}layout.json`;
/** The level of the layout from before the shard count grew: 2^6 = 64 shards, `review-progress/<nn>.json`. */
export const PROGRESS_BASE_LEVEL = 6;

/** `review-progress/<nn>.json` at level 6 (as before), `review-progress/L<level>/<shard>.json` above. */
export function reviewProgressKey(shard: number, level: number = PROGRESS_BASE_LEVEL): string {
  if (level === PROGRESS_BASE_LEVEL) return `${REVIEW_PROGRESS_PREFIX}${String(shard).padStart(2, '0')}.json`;
  return `${REVIEW_PROGRESS_PREFIX}L${level}/${shard}.json`;
}

/** The messaging-asset poller's checkpoint: `checkpoints/messaging-assets.json`. */
export const MESSAGING_ASSETS_CHECKPOINT = /* @__PURE__ */ checkpointKey('messaging-assets');

/** `audits/`: the last report of each scheduled audit (./messaging-assets/audit-record.ts). */
export const AUDITS_PREFIX = statePrefix('audits', 'packages/bridge/src/polling');

/** The messaging-asset audit's last report: `audits/messaging-assets.json`. */
export const MESSAGING_ASSETS_AUDIT_KEY = `${AUDITS_PREFIX}messaging-assets.json`;
