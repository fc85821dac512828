/**
 * Bulk subscriptions: named, numbered definitions whose entries (attribute → value objects) are the
 * criteria, and the record of every change to those entries (the "imports"). Pure data and mutations;
 * the routes check requests and decide when a change is applied (now, or later for `synchronously=false`).
 */
import type {
  BulkImportAction,
  BulkSubscription,
  BulkSubscriptionEntry,
  BulkSubscriptionImport,
  BulkSubscriptionState,
} from '@pds-bridge/bridge/pds/resources';

/** The fields a stored subscription keeps as the wire form (`BulkSubscription`) shows them. */
type SubscriptionDefinitionField = 'id' | 'name' | 'label' | 'description' | 'attributes' | 'active';

/**
 * A subscription as stored: the definition fields of the wire form, with times in epoch milliseconds;
 * `entries` is keyed by the canonical form of each entry (no duplicates).
 */
export interface StoredSubscription extends Pick<BulkSubscription, SubscriptionDefinitionField> {
  state: BulkSubscriptionState;
  /** Epoch milliseconds. */
  lastUpdated: number;
  entries: Map<string, BulkSubscriptionEntry>;
  /** Oldest first. */
  imports: StoredImport[];
}

/** An import record as stored (times in epoch milliseconds). */
export interface StoredImport {
  id: string;
  subscriptionId: string;
  action: BulkImportAction;
  source: 'API' | 'UPLOAD';
  fileName?: string;
  status: 'PENDING' | 'DONE';
  requestedAt: number;
  completedAt?: number;
  entriesRequested: number;
  entriesAdded: number;
  entriesRemoved: number;
}

/** Input of `create`. */
export interface NewSubscription {
  name: string;
  label?: string;
  description?: string;
  attributes: string[];
  active?: boolean;
}

/**
 * The canonical form of an entry: its pairs sorted by attribute name, so `{a:1,b:2}` and `{b:2,a:1}`
 * are the same entry.
 *
 * @example
 * entryKey({ b: 2, a: '1' }); // '[["a","1"],["b",2]]'
 */
export function entryKey(entry: BulkSubscriptionEntry): string {
  return JSON.stringify(Object.entries(entry).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Every bulk subscription of one simulator.
 *
 * @example
 * const store = new BulkSubscriptionStore();
 * const sub = store.create({ name: 'gtin-watch', attributes: ['gtin'] }, Date.now());
 * store.addEntries(sub, [{ gtin: '04006381333931' }]); // 1 added
 */
export class BulkSubscriptionStore {
  readonly #byId = new Map<string, StoredSubscription>();
  #nextId = 1;
  #nextImportId = 1;

  /** Every subscription, in creation order. */
  all(): StoredSubscription[] {
    return [...this.#byId.values()];
  }

  byId(id: string): StoredSubscription | undefined {
    return this.#byId.get(id);
  }

  byName(name: string): StoredSubscription | undefined {
    for (const subscription of this.#byId.values()) if (subscription.name === name) return subscription;
    return undefined;
  }

  /** True while the subscription is stored (not deleted). */
  has(subscription: StoredSubscription): boolean {
    return this.#byId.get(subscription.id) === subscription;
  }

  /** Stores a new subscription under the next id (the caller checked the name is free and valid). */
  create(input: NewSubscription, at: number, state: BulkSubscriptionState = 'IDLE'): StoredSubscription {
    const id = String(this.#nextId);
    this.#nextId += 1;
    const subscription: StoredSubscription = {
      id,
      name: input.name,
      label: input.label ?? '',
      description: input.description ?? '',
      attributes: [...input.attributes],
      active: input.active ?? true,
      state,
      lastUpdated: at,
      entries: new Map(),
      imports: [],
    };
    this.#byId.set(id, subscription);
    return subscription;
  }

  delete(subscription: StoredSubscription): void {
    this.#byId.delete(subscription.id);
  }

  /** Adds the entries that are not there yet; returns how many were new. */
  addEntries(subscription: StoredSubscription, entries: readonly BulkSubscriptionEntry[]): number {
    const before = subscription.entries.size;
    for (const entry of entries) {
      const key = entryKey(entry);
      if (!subscription.entries.has(key)) subscription.entries.set(key, { ...entry });
    }
    return subscription.entries.size - before;
  }

  /** Removes the given entries where present; returns how many were removed. */
  removeEntries(subscription: StoredSubscription, entries: readonly BulkSubscriptionEntry[]): number {
    let removed = 0;
    for (const entry of entries) if (subscription.entries.delete(entryKey(entry))) removed += 1;
    return removed;
  }

  /** Removes every entry; returns how many there were. */
  removeAllEntries(subscription: StoredSubscription): number {
    const removed = subscription.entries.size;
    subscription.entries.clear();
    return removed;
  }

  /** Records a requested change of the entries (status PENDING until `completeImport`). */
  startImport(
    subscription: StoredSubscription,
    change: Pick<StoredImport, 'action' | 'source' | 'entriesRequested' | 'fileName'>,
    at: number,
  ): StoredImport {
    const record: StoredImport = {
      id: String(this.#nextImportId),
      subscriptionId: subscription.id,
      action: change.action,
      source: change.source,
      status: 'PENDING',
      requestedAt: at,
      entriesRequested: change.entriesRequested,
      entriesAdded: 0,
      entriesRemoved: 0,
    };
    if (change.fileName !== undefined) record.fileName = change.fileName;
    this.#nextImportId += 1;
    subscription.imports.push(record);
    return record;
  }
}

/** The wire form of a subscription. */
export function subscriptionOnWire(subscription: StoredSubscription): BulkSubscription {
  return {
    id: subscription.id,
    name: subscription.name,
    label: subscription.label,
    description: subscription.description,
    attributes: [...subscription.attributes],
    active: subscription.active,
    state: subscription.state,
    lastUpdated: new Date(subscription.lastUpdated).toISOString(),
    entryCount: subscription.entries.size,
  };
}

/** The wire form of an import record. */
export function importOnWire(record: StoredImport): BulkSubscriptionImport {
  const { requestedAt, completedAt, ...rest } = record;
  const wire: BulkSubscriptionImport = { ...rest, requestedAt: new Date(requestedAt).toISOString() };
  if (completedAt !== undefined) wire.completedAt = new Date(completedAt).toISOString();
  return wire;
}
