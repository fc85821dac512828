/**
 * Custom tags of items, each stored with the moment it was (last) added, so "recently stored" and
 * `newestFirst` mean something. A tag appears at most once per item; adding it again makes it newest.
 */

/** How many of an item's tags count as "recently stored": the list shows only the newest this many. */
export const RECENT_TAG_LIMIT = 1000;

/** A tag as stored. */
export interface StoredTag {
  tag: string;
  /** Epoch milliseconds of the last time it was added. */
  storedAt: number;
  /** Increases with every addition: orders tags stored within the same millisecond. */
  sequence: number;
}

/**
 * The tags of every item, by primary key.
 *
 * @example
 * const tags = new ItemTagStore();
 * tags.add('0614141123452', ['organic', 'promo:2026'], Date.now());
 * tags.recent('0614141123452').map((t) => t.tag); // ['organic', 'promo:2026']
 */
export class ItemTagStore {
  readonly #byItem = new Map<string, Map<string, StoredTag>>();
  #sequence = 0;

  /** Adds (or refreshes) tags in the given order. */
  add(primaryKey: string, tags: readonly string[], at: number): void {
    let stored = this.#byItem.get(primaryKey);
    if (!stored) {
      stored = new Map();
      this.#byItem.set(primaryKey, stored);
    }
    for (const tag of tags) {
      this.#sequence += 1;
      // Deleting first moves a re-added tag to the end of the insertion order, which stays oldest-first.
      stored.delete(tag);
      stored.set(tag, { tag, storedAt: at, sequence: this.#sequence });
    }
  }

  /** Removes the given tags (unknown ones are ignored), or every tag when `tags` is undefined; returns how many went. */
  remove(primaryKey: string, tags?: readonly string[]): number {
    const stored = this.#byItem.get(primaryKey);
    if (!stored) return 0;
    if (tags === undefined) {
      const count = stored.size;
      this.#byItem.delete(primaryKey);
      return count;
    }
    let count = 0;
    for (const tag of tags) if (stored.delete(tag)) count += 1;
    return count;
  }

  /** The newest RECENT_TAG_LIMIT tags of an item, oldest first. */
  recent(primaryKey: string): StoredTag[] {
    const stored = [...(this.#byItem.get(primaryKey)?.values() ?? [])];
    return stored.slice(Math.max(0, stored.length - RECENT_TAG_LIMIT));
  }

  /** Every stored tag of an item (recent or not), oldest first. */
  all(primaryKey: string): StoredTag[] {
    return [...(this.#byItem.get(primaryKey)?.values() ?? [])];
  }
}
