/**
 * An exact set of non-negative integer ids kept as sorted, disjoint, non-adjacent ranges: the record
 * of the messaging assets the poller has emitted (checkpoint.ts). Ids that are mostly consecutive
 * cost a few numbers however many there are; each id that breaks a run costs two more.
 *
 * Stored as a flat array of deltas, `[start, length, gap, length, gap, length, ...]`: the first
 * range starts at `start` and holds `length` ids, each following range starts `gap` ids after the
 * end of the one before. Small numbers keep the JSON short (docs/benchmarks.md has the sizes).
 */

/**
 * Collects ids for an {@link IdRanges} in batches (one `addMany` per `batchSize` ids): for a stream of
 * ids in any order, e.g. a listing the PDS orders newest first.
 *
 * @example
 * const collector = new IdCollector(record); for (const id of ids) collector.add(id); collector.flush();
 */
export class IdCollector {
  readonly #target: IdRanges;
  readonly #buffer: Float64Array;
  #length = 0;
  /** Ids that were not in the target before, counted at each flush. */
  added = 0;

  constructor(target: IdRanges, batchSize = 65_536) {
    this.#target = target;
    this.#buffer = new Float64Array(batchSize);
  }

  add(id: number): void {
    this.#buffer[this.#length++] = id;
    if (this.#length === this.#buffer.length) this.flush();
  }

  /** Merges what is buffered; call it before reading the target. */
  flush(): void {
    if (this.#length === 0) return;
    this.added += this.#target.addMany(this.#buffer.subarray(0, this.#length));
    this.#length = 0;
  }
}

/**
 * The set. Lookups are a binary search over the ranges; adding an id that extends or joins ranges
 * at the top (the usual case: ids increase) is O(1), anywhere else O(ranges).
 *
 * @example
 * const ids = new IdRanges();
 * ids.add(3); ids.add(4); ids.add(9);
 * ids.has(4); // true
 * ids.encode(); // [3, 2, 5, 1]
 */
export class IdRanges {
  /** Range starts, ascending. */
  #lo: number[] = [];
  /** Range ends (inclusive), `#hi[i] + 1 < #lo[i + 1]`. */
  #hi: number[] = [];
  #size = 0;

  /** Ids in the set. */
  get size(): number {
    return this.#size;
  }

  /** Ranges the set is kept as. */
  get rangeCount(): number {
    return this.#lo.length;
  }

  /** The smallest and largest id, or `undefined` when empty. */
  get min(): number | undefined {
    return this.#lo[0];
  }

  get max(): number | undefined {
    return this.#hi[this.#hi.length - 1];
  }

  has(id: number): boolean {
    const index = this.#rangeAtOrBefore(id);
    return index >= 0 && id <= (this.#hi[index] as number);
  }

  /** Adds one id; true when it was not in the set. */
  add(id: number): boolean {
    return this.addRange(id, id) > 0;
  }

  /** Adds every id of `[from, to]`; returns how many were not in the set. */
  addRange(from: number, to: number): number {
    if (to < from) return 0;
    // Ranges that overlap or touch [from, to] are merged into one.
    let first = this.#rangeAtOrBefore(from - 1);
    if (first < 0 || (this.#hi[first] as number) < from - 1) first += 1;
    const last = this.#rangeAtOrBefore(to + 1);
    if (last < first) {
      this.#lo.splice(first, 0, from);
      this.#hi.splice(first, 0, to);
      this.#size += to - from + 1;
      return to - from + 1;
    }
    const lo = Math.min(from, this.#lo[first] as number);
    const hi = Math.max(to, this.#hi[last] as number);
    let covered = 0;
    for (let index = first; index <= last; index++) {
      covered += (this.#hi[index] as number) - (this.#lo[index] as number) + 1;
    }
    const added = hi - lo + 1 - covered;
    if (first === last) {
      this.#lo[first] = lo;
      this.#hi[first] = hi;
    } else {
      this.#lo.splice(first, last - first + 1, lo);
      this.#hi.splice(first, last - first + 1, hi);
    }
    this.#size += added;
    return added;
  }

  /**
   * Adds many ids at once in one merge: O(ranges + ids · log ids) whatever their order, where adding
   * them one by one in descending order would move every range each time. Returns how many were new.
   *
   * @example
   * ids.addMany(Float64Array.of(9, 3, 4));
   */
  addMany(ids: ArrayLike<number>): number {
    if (ids.length === 0) return 0;
    const sorted = Float64Array.from(ids).sort();
    const lo: number[] = [];
    const hi: number[] = [];
    const push = (from: number, to: number) => {
      const last = hi.length - 1;
      if (last >= 0 && from <= (hi[last] as number) + 1) {
        if (to > (hi[last] as number)) hi[last] = to;
      } else {
        lo.push(from);
        hi.push(to);
      }
    };
    let index = 0;
    let next = 0;
    while (index < this.#lo.length || next < sorted.length) {
      const takeOwn =
        next >= sorted.length ||
        (index < this.#lo.length && (this.#lo[index] as number) <= (sorted[next] as number));
      if (takeOwn) {
        push(this.#lo[index] as number, this.#hi[index] as number);
        index += 1;
      } else {
        push(sorted[next] as number, sorted[next] as number);
        next += 1;
      }
    }
    let size = 0;
    for (let each = 0; each < lo.length; each++) size += (hi[each] as number) - (lo[each] as number) + 1;
    const added = size - this.#size;
    this.#lo = lo;
    this.#hi = hi;
    this.#size = size;
    return added;
  }

  /** Removes one id; true when it was in the set. */
  delete(id: number): boolean {
    const index = this.#rangeAtOrBefore(id);
    if (index < 0 || id > (this.#hi[index] as number)) return false;
    const lo = this.#lo[index] as number;
    const hi = this.#hi[index] as number;
    if (lo === hi) {
      this.#lo.splice(index, 1);
      this.#hi.splice(index, 1);
    } else if (id === lo) {
      this.#lo[index] = lo + 1;
    } else if (id === hi) {
      this.#hi[index] = hi - 1;
    } else {
      this.#hi[index] = id - 1;
      this.#lo.splice(index + 1, 0, id + 1);
      this.#hi.splice(index + 1, 0, hi);
    }
    this.#size -= 1;
    return true;
  }

  /** The ranges, ascending, as `[from, to]` pairs (inclusive). */
  *ranges(): Generator<[number, number]> {
    for (let index = 0; index < this.#lo.length; index++) {
      yield [this.#lo[index] as number, this.#hi[index] as number];
    }
  }

  /**
   * The ids of this set that are not in `other`, ascending: counted all, listed up to `max`.
   *
   * @example
   * record.difference(listed, 100); // { count: 2, ids: [17, 40] }: emitted, no longer listed
   */
  difference(other: IdRanges, max: number): { count: number; ids: number[] } {
    const ids: number[] = [];
    let count = 0;
    const take = (from: number, to: number) => {
      count += to - from + 1;
      for (let id = from; id <= to && ids.length < max; id++) ids.push(id);
    };
    for (const [from, to] of this.ranges()) {
      let next = from;
      for (const [otherFrom, otherTo] of other.rangesWithin(from, to)) {
        if (otherFrom > next) take(next, otherFrom - 1);
        next = Math.max(next, otherTo + 1);
      }
      if (next <= to) take(next, to);
    }
    return { count, ids };
  }

  /** The ranges that overlap `[from, to]`, clipped to it. */
  *rangesWithin(from: number, to: number): Generator<[number, number]> {
    let index = Math.max(0, this.#rangeAtOrBefore(from));
    for (; index < this.#lo.length && (this.#lo[index] as number) <= to; index++) {
      const hi = this.#hi[index] as number;
      if (hi < from) continue;
      yield [Math.max(from, this.#lo[index] as number), Math.min(to, hi)];
    }
  }

  /** The stored form: `[start, length, gap, length, ...]` (see the module comment). */
  encode(): number[] {
    const out: number[] = [];
    for (let index = 0; index < this.#lo.length; index++) {
      const lo = this.#lo[index] as number;
      out.push(index === 0 ? lo : lo - (this.#hi[index - 1] as number), (this.#hi[index] as number) - lo + 1);
    }
    return out;
  }

  /**
   * The set of a stored form; throws a `RangeError` naming the first wrong number.
   *
   * @example
   * IdRanges.decode([3, 2, 5, 1]).has(9); // true
   */
  static decode(encoded: readonly number[]): IdRanges {
    if (encoded.length % 2 !== 0) throw new RangeError('the ranges must be pairs of numbers');
    const ids = new IdRanges();
    let end = -1;
    for (let index = 0; index < encoded.length; index += 2) {
      const step = encoded[index] as number;
      const length = encoded[index + 1] as number;
      const minStep = index === 0 ? 0 : 2;
      if (!Number.isSafeInteger(step) || step < minStep) {
        throw new RangeError(`number ${index} must be an integer >= ${minStep}, got ${step}`);
      }
      if (!Number.isSafeInteger(length) || length < 1) {
        throw new RangeError(`number ${index + 1} must be an integer >= 1, got ${length}`);
      }
      const lo = index === 0 ? step : end + step;
      end = lo + length - 1;
      if (!Number.isSafeInteger(end)) throw new RangeError(`range ${index / 2} ends above 2^53`);
      ids.#lo.push(lo);
      ids.#hi.push(end);
      ids.#size += length;
    }
    return ids;
  }

  /** A copy that changes independently. */
  clone(): IdRanges {
    const copy = new IdRanges();
    copy.#lo = [...this.#lo];
    copy.#hi = [...this.#hi];
    copy.#size = this.#size;
    return copy;
  }

  /** Index of the last range starting at or before `id`, or -1. */
  #rangeAtOrBefore(id: number): number {
    const lo = this.#lo;
    const count = lo.length;
    if (count === 0 || id < (lo[0] as number)) return -1;
    if (id >= (lo[count - 1] as number)) return count - 1;
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((lo[middle] as number) <= id) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
