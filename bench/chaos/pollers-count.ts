/**
 * The counting at the end of the pollers' chaos run: what the simulator holds against the events
 * that reached the queue and the state the pollers left, as figures and as targets that pass or fail.
 */

import type { SupplierReview } from '../../packages/bridge/src/pds/index.ts';
import { isDone, type MessagingAssetCheckpoint } from '../../packages/bridge/src/polling/checkpoint.ts';
import { reviewFingerprint } from '../../packages/bridge/src/polling/supplier-reviews/index.ts';
import type { InventoryAsset } from './pollers-simulator.ts';

/** One event taken off the queue, reduced to what the counting needs. */
export interface ReceivedEvent {
  id: string;
  type: string;
  /** The messaging asset it is about: the asset itself, or the review's message. */
  messagingAssetId: number | undefined;
  parseError: boolean;
}

/** Figures of one family (messaging assets or supplier reviews). */
export interface FamilyCount {
  /** Records the simulator holds. */
  total: number;
  /** Records with at least one event (received or failed). */
  emitted: number;
  /** Records without any event. */
  lost: number;
  /** A few of the lost ids, for the report. */
  lostIds: number[];
  /** Records emitted more than once with the same event id every time / with different event ids. */
  duplicatedSameId: number;
  duplicatedOtherId: number;
  /** Messages beyond the first of each record. */
  extraMessages: number;
  /** Malformed or hostile XML: how many, and how many were emitted with parseError. */
  malformed: number;
  malformedAsParseError: number;
  /** Well-formed XML emitted with parseError (must be 0). */
  wellFormedAsParseError: number;
  /** Bodies with characters SQS refuses: how many, and how many reached the queue in any event. */
  unsendable: number;
  unsendableEmitted: number;
  /** Events of a failure type (`….failed`). */
  failedEvents: number;
  /** Records the pollers still consider to do: not covered by the checkpoint / not recorded as seen. */
  stuck: number;
}

export interface AssetCount extends FamilyCount {
  late: number;
  lateEmitted: number;
  /** The checkpoint at the end. */
  /** Ranges the checkpoint's record of emitted ids is kept as. */
  emittedRanges: number;
  highestId: number | null;
  retryLeft: number;
}

export interface ReviewCount extends FamilyCount {
  /** Watched keys with a review the watch entry does not record as emitted. */
  stuckKeys: number;
}

export interface Target {
  name: string;
  value: number;
  /** How the value is judged, in words (`= 0`, `<= 300`). */
  target: string;
  pass: boolean;
}

interface Tracked {
  kind: InventoryAsset['kind'];
  events: ReceivedEvent[];
}

/** Groups events by messaging asset id and counts one family against the records it covers. */
function countFamily(records: Map<number, Tracked>, events: ReceivedEvent[]): FamilyCount {
  for (const event of events) {
    if (event.messagingAssetId !== undefined) records.get(event.messagingAssetId)?.events.push(event);
  }
  const count: FamilyCount = {
    total: records.size,
    emitted: 0,
    lost: 0,
    lostIds: [],
    duplicatedSameId: 0,
    duplicatedOtherId: 0,
    extraMessages: 0,
    malformed: 0,
    malformedAsParseError: 0,
    wellFormedAsParseError: 0,
    unsendable: 0,
    unsendableEmitted: 0,
    failedEvents: 0,
    stuck: 0,
  };
  for (const [id, { kind, events: received }] of records) {
    const malformed = kind === 'malformed' || kind === 'hostile';
    if (malformed) count.malformed++;
    if (kind === 'unsendable') count.unsendable++;
    if (received.length === 0) {
      count.lost++;
      if (count.lostIds.length < 20) count.lostIds.push(id);
      continue;
    }
    count.emitted++;
    if (kind === 'unsendable') count.unsendableEmitted++;
    count.failedEvents += received.filter((event) => !event.type.endsWith('.received')).length;
    const parseError = received.some((event) => event.parseError);
    if (malformed && parseError) count.malformedAsParseError++;
    if (!malformed && kind !== 'unsendable' && parseError) count.wellFormedAsParseError++;
    if (received.length > 1) {
      count.extraMessages += received.length - 1;
      if (new Set(received.map((event) => event.id)).size === 1) count.duplicatedSameId++;
      else count.duplicatedOtherId++;
    }
  }
  return count;
}

/**
 * The messaging assets: every asset the simulator holds (review messages included) against the
 * `pds.messaging-asset.*` events, and the checkpoint the poller left.
 */
export function countAssets(
  inventory: InventoryAsset[],
  events: ReceivedEvent[],
  checkpoint: MessagingAssetCheckpoint | undefined,
): AssetCount {
  const records = new Map(inventory.map((asset) => [asset.id, { kind: asset.kind, events: [] } as Tracked]));
  const family = countFamily(
    records,
    events.filter((event) => event.type.startsWith('pds.messaging-asset.')),
  );
  const covered = (id: number) => checkpoint !== undefined && isDone(checkpoint, id);
  const late = inventory.filter((asset) => asset.late);
  return {
    ...family,
    stuck: inventory.filter((asset) => !covered(asset.id)).length,
    late: late.length,
    lateEmitted: late.filter((asset) => (records.get(asset.id)?.events.length ?? 0) > 0).length,
    emittedRanges: checkpoint?.emitted.rangeCount ?? 0,
    highestId: checkpoint?.highestId ?? null,
    retryLeft: checkpoint?.retry.length ?? 0,
  };
}

/**
 * The supplier reviews: every review of a watched key against the `pds.supplier-review.*` events,
 * and the fingerprints the watch entries recorded (`seenByKey`).
 */
export function countReviews(
  reviews: SupplierReview[],
  kinds: Map<number, InventoryAsset['kind']>,
  events: ReceivedEvent[],
  seenByKey: Map<string, string[]>,
): ReviewCount {
  const records = new Map(
    reviews.map((review) => [
      review.messagingAssetId,
      { kind: kinds.get(review.messagingAssetId) ?? 'good', events: [] } as Tracked,
    ]),
  );
  const family = countFamily(
    records,
    events.filter((event) => event.type.startsWith('pds.supplier-review.')),
  );
  const stuckKeys = new Set<string>();
  let stuck = 0;
  for (const review of reviews) {
    if (seenByKey.get(review.primaryKey)?.includes(reviewFingerprint(review))) continue;
    stuck++;
    stuckKeys.add(review.primaryKey);
  }
  return { ...family, stuck, stuckKeys: stuckKeys.size };
}

/**
 * The targets: lost 0, duplicates only in the documented window and always with identical
 * event ids, stuck 0; plus what the poison and parse rules promise.
 *
 * `assetDuplicateWindow`: the most duplicate asset messages the documented window allows, one page
 * per run that ended between its publish and its checkpoint write (killed, timed out or failed).
 */
export function targetsOf(
  assets: AssetCount,
  reviews: ReviewCount,
  leasesHeld: number,
  assetDuplicateWindow: number,
): Target[] {
  const equal = (name: string, value: number, expected: number): Target => ({
    name,
    value,
    target: `= ${expected}`,
    pass: value === expected,
  });
  return [
    equal('assets lost', assets.lost, 0),
    equal('assets duplicated with different event ids', assets.duplicatedOtherId, 0),
    {
      name: 'asset duplicate messages (same id, crash window)',
      value: assets.extraMessages,
      target: `<= ${assetDuplicateWindow}`,
      pass: assets.extraMessages <= assetDuplicateWindow,
    },
    equal('late assets emitted', assets.lateEmitted, assets.late),
    equal('malformed assets emitted as parse failures', assets.malformedAsParseError, assets.malformed),
    equal('well-formed assets emitted as parse failures', assets.wellFormedAsParseError, 0),
    equal('unsendable assets emitted (poison rule)', assets.unsendableEmitted, assets.unsendable),
    equal('assets stuck (not covered by the checkpoint)', assets.stuck, 0),
    equal('assets left in the retry list', assets.retryLeft, 0),
    equal('reviews lost', reviews.lost, 0),
    equal('reviews duplicated with different event ids', reviews.duplicatedOtherId, 0),
    equal('malformed reviews emitted as parse failures', reviews.malformedAsParseError, reviews.malformed),
    equal('unsendable reviews emitted (poison rule)', reviews.unsendableEmitted, reviews.unsendable),
    equal('watched keys stuck', reviews.stuckKeys, 0),
    equal('leases held at the end', leasesHeld, 0),
  ];
}
