/**
 * The simulator's in-memory state. Handlers read and change it; tests and benchmarks inspect it and
 * seed it directly (thousands of records in a few milliseconds) through the helper methods.
 */
import type {
  CommunicationChannel,
  Destination,
  GatheringEntry,
  Item,
  MessagingAssetSummary,
  Passthrough,
  SupplierReview,
} from '@pds-bridge/bridge/pds';
import { SimulatorOptionsError } from './errors.ts';
import { mulberry32, type Random, seededUuid } from './random.ts';
import { AssetFolderTree } from './state-assets.ts';
import { BulkSubscriptionStore } from './state-subscriptions.ts';
import { ItemTagStore } from './state-tags.ts';

/** A gathering entry as stored: the wire fields plus where its bytes are and what they hash to. */
export interface StoredGatheringEntry extends GatheringEntry {
  size: number;
  /** Hex SHA-256 of the stored bytes. */
  sha256: string;
  diskPath: string;
}

export interface Gathering {
  gatheringKey: string;
  entries: StoredGatheringEntry[];
}

/** One accepted import; `itemCount` says how many items it created or updated. */
export interface ImportRecord {
  gatheringKey: string;
  path: string;
  /** Epoch milliseconds. */
  at: number;
  itemCount: number;
  /** Why the entry created no items, when it did not (not CSV/JSON, too big, unreadable). */
  note?: string;
}

export interface SelectionRecord {
  selectionId: string;
  /** Distinct keys, in the order first given. */
  primaryKeys: string[];
}

export interface PublicationRecord {
  selectionId: string;
  destinations: Destination[];
  at: number;
}

/** A communication channel as the simulator keeps it; everything past `id` and `name` is informative. */
export interface SimulatorChannel extends CommunicationChannel {
  type: 'GDSN';
  dataPoolGln: string;
  dataPoolName: string;
  /** Who publishes through the channel: the supplier of the reviews. */
  supplierId: string;
  supplierName: string;
  /** Who reviews what arrives: the recipient of the publications. */
  recipientGln: string;
  reviewerName: string;
  /** ISO 3166 numeric. */
  targetMarketCountryCode: string;
  /** How the recipient answers a publication (./reviews.ts); default `synchronise`. */
  recipient?: RecipientBehaviour;
}

/**
 * How a channel's recipient answers what is published to it, as real ones do:
 * - `synchronise`: SYNCHRONISED for a valid item; REVIEW with a corrective action per validation
 *   problem otherwise (SYNCHRONISED once the item is fixed and published again);
 * - `review`: REVIEW with a corrective action the first time an item is published to it,
 *   SYNCHRONISED after a republication (the recipient asks for a fix, the supplier sends one);
 * - `reject`: REJECTED, with the reason as a status;
 * - `gdsn-2.8`: ACCEPTED, in the GDSN 2.8 form (the state as an attribute);
 * - `out-of-order`: answers twice, RECEIVED and then SYNCHRONISED, the later answer listed first;
 * - `silent`: never answers;
 * - `data-pool-refuse`: the channel's data pool refuses every publication before it reaches the
 *   recipient: a GS1 Response REJECTED with error GDSN.1091 (GTIN already exists), review REJECTED;
 * - `resend-request`: the recipient asks for the item to be sent again (a
 *   RequestForCatalogueItemNotification, isReload false) the first time, SYNCHRONISED after a
 *   republication.
 */
export const RECIPIENT_BEHAVIOURS = [
  'synchronise',
  'review',
  'reject',
  'gdsn-2.8',
  'out-of-order',
  'silent',
  'data-pool-refuse',
  'resend-request',
] as const;
export type RecipientBehaviour = (typeof RECIPIENT_BEHAVIOURS)[number];

export interface MessagingAssetRecord {
  id: number;
  /** Epoch milliseconds. */
  createdAt: number;
  contentType: string;
  primaryKey?: string;
  messagingCreatorType?: string;
  xml: string;
}

/** Input of `addSupplierReview`: a review without its `messagingAssetId`, which the state assigns. */
export type NewSupplierReview = Pick<
  SupplierReview,
  | 'primaryKey'
  | 'supplierId'
  | 'channelId'
  | 'supplier'
  | 'reviewer'
  | 'reviewStatus'
  | 'date'
  | 'comment'
  | 'messagingCreatorType'
> &
  Passthrough;

/** Input of `addMessagingAsset`; `xml` may be built from the id the asset receives. */
export interface NewMessagingAsset {
  xml: string | ((id: number) => string);
  /**
   * An id of the test's choosing, e.g. below ids already listed: an asset the PDS lists late or out of
   * order. An id in use is refused. Without it the asset gets the next id (ids only increase).
   */
  id?: number;
  primaryKey?: string;
  createdAt?: number;
  messagingCreatorType?: string;
}

/**
 * All records of one simulator.
 *
 * @example
 * const state = new SimulatorState(1);
 * state.addItem({ primaryKey__: '0614141123452', name: 'Water' });
 * const review = state.addSupplierReview({ primaryKey: '0614141123452', ... }, '<xml/>');
 */
export class SimulatorState {
  readonly gatherings = new Map<string, Gathering>();
  readonly imports: ImportRecord[] = [];
  readonly items = new Map<string, Item>();
  readonly selections = new Map<string, SelectionRecord>();
  readonly publications: PublicationRecord[] = [];
  readonly channels: SimulatorChannel[] = [];
  readonly supplierReviews = new Map<string, SupplierReview[]>();
  readonly messagingAssets = new Map<number, MessagingAssetRecord>();
  /** `/v1/assetFolders`: the folder tree rooted at '/', created by 'system'. */
  readonly assetFolders = new AssetFolderTree({ user: 'system', at: Date.now() });
  /** `/v1/bulkSubscription`: subscriptions, their entries and imports. */
  readonly bulkSubscriptions = new BulkSubscriptionStore();
  /** `/v1/items/{primaryKey}/tags`: custom tags by primary key. */
  readonly itemTags = new ItemTagStore();
  readonly #random: Random;
  #nextMessagingAssetId = 1;
  #summaries: MessagingAssetSummary[] | undefined;

  constructor(seed: number) {
    // Offset from the fault PRNG's seed so ids and faults do not share a sequence.
    this.#random = mulberry32(seed ^ 0x5eed1d5);
  }

  /** A new UUID; the same seed gives the same sequence. */
  newUuid(): string {
    return seededUuid(this.#random);
  }

  /** Adds or replaces an item; it needs a non-empty string `primaryKey__`. */
  addItem(item: Item): Item {
    const key = requireKey(item);
    const stored = { ...item, primaryKey__: key };
    this.items.set(key, stored);
    return stored;
  }

  /** Creates the item or merges the given attributes into the existing one (what an import does). */
  upsertItem(item: Item): Item {
    const key = requireKey(item);
    return this.addItem({ ...this.items.get(key), ...item });
  }

  /** An item is known when it exists or has reviews (tests may seed reviews without items). */
  isKnownItem(primaryKey: string): boolean {
    return this.items.has(primaryKey) || this.supplierReviews.has(primaryKey);
  }

  /** The channel with that id, if any. */
  channel(id: string): SimulatorChannel | undefined {
    return this.channels.find((channel) => channel.id === id);
  }

  /** Stores a messaging asset under the next id (or `asset.id`) and returns that id. */
  addMessagingAsset(asset: NewMessagingAsset): number {
    const id = asset.id ?? this.#nextMessagingAssetId;
    if (!Number.isSafeInteger(id) || id < 0 || this.messagingAssets.has(id)) {
      throw new RangeError(`messaging asset id ${id} is not a free non-negative integer`);
    }
    this.#nextMessagingAssetId = Math.max(this.#nextMessagingAssetId, id + 1);
    this.#summaries = undefined;
    const record: MessagingAssetRecord = {
      id,
      createdAt: asset.createdAt ?? Date.now(),
      contentType: 'application/xml',
      xml: typeof asset.xml === 'function' ? asset.xml(id) : asset.xml,
    };
    if (asset.primaryKey !== undefined) record.primaryKey = asset.primaryKey;
    if (asset.messagingCreatorType !== undefined) record.messagingCreatorType = asset.messagingCreatorType;
    this.messagingAssets.set(id, record);
    return id;
  }

  /** Stores the review's messaging asset (created at `review.date`), then the review pointing at it. */
  addSupplierReview(review: NewSupplierReview, xml: string | ((id: number) => string)): SupplierReview {
    const messagingAssetId = this.addMessagingAsset({
      xml,
      primaryKey: review.primaryKey,
      createdAt: review.date,
      messagingCreatorType: review.messagingCreatorType,
    });
    const stored: SupplierReview = { ...review, messagingAssetId };
    const list = this.supplierReviews.get(review.primaryKey);
    if (list) list.push(stored);
    else this.supplierReviews.set(review.primaryKey, [stored]);
    return stored;
  }

  /** The list answer of GET /api/v1/messaging/messagingassets/, ordered by id. */
  messagingAssetSummaries(): MessagingAssetSummary[] {
    // Kept between requests (a paged read asks for it once a page); rebuilt after any change, also
    // one made on the map directly.
    if (this.#summaries?.length !== this.messagingAssets.size) this.#summaries = undefined;
    this.#summaries ??= Array.from(this.messagingAssets.values(), summaryOf).sort((a, b) => a.id - b.id);
    return this.#summaries;
  }

  /** Removes a messaging asset from the listing (and its XML); true when it was there. */
  deleteMessagingAsset(id: number): boolean {
    this.#summaries = undefined;
    return this.messagingAssets.delete(id);
  }
}

function requireKey(item: Item): string {
  const key = item.primaryKey__;
  if (typeof key !== 'string' || key === '') {
    throw new SimulatorOptionsError(
      'An item needs a non-empty string primaryKey__; add one before storing it',
    );
  }
  return key;
}

function summaryOf({ xml: _xml, ...summary }: MessagingAssetRecord): MessagingAssetSummary {
  return summary;
}
