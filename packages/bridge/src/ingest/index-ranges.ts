/**
 * A set of entry indexes kept as ascending, disjoint half-open ranges `[from, to)`: the imported
 * entries of a gathering in its progress record. Imports finish roughly in order, so the set of a
 * 10,000-entry archive stays a handful of ranges (at most one gap per import in flight) instead of
 * 10,000 flags, and rewriting it costs the same whatever the archive's size.
 */

/** Ascending, disjoint, non-adjacent ranges `[from, to)` of non-negative integers. */
export type IndexRanges = ReadonlyArray<readonly [number, number]>;

/**
 * The union of `ranges` and `indexes`, normalised (sorted, merged, adjacent ranges joined).
 *
 * @example
 * addIndexes([[0, 3]], [3, 4, 7]); // [[0, 5], [7, 8]]
 */
export function addIndexes(ranges: IndexRanges, indexes: Iterable<number>): Array<[number, number]> {
  const pieces: Array<[number, number]> = ranges.map(([from, to]) => [from, to]);
  for (const index of indexes) pieces.push([index, index + 1]);
  return normaliseRanges(pieces);
}

/**
 * Sorts and merges ranges as read from a stored record; refuses what is not a list of integer pairs.
 *
 * @throws TypeError naming the problem
 */
export function normaliseRanges(ranges: unknown): Array<[number, number]> {
  if (!Array.isArray(ranges)) throw new TypeError('importedRanges is not a list of [from, to) pairs');
  const pieces = ranges.map((range) => {
    const valid =
      Array.isArray(range) &&
      range.length === 2 &&
      Number.isSafeInteger(range[0]) &&
      Number.isSafeInteger(range[1]) &&
      range[0] >= 0 &&
      range[1] > range[0];
    if (!valid) throw new TypeError(`importedRanges holds ${JSON.stringify(range)}, not a [from, to) pair`);
    return [range[0], range[1]] as [number, number];
  });
  pieces.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const piece of pieces) {
    const last = merged.at(-1);
    if (last && piece[0] <= last[1]) last[1] = Math.max(last[1], piece[1]);
    else merged.push(piece);
  }
  return merged;
}

/** Whether `index` is in the set (binary search). */
export function hasIndex(ranges: IndexRanges, index: number): boolean {
  let low = 0;
  let high = ranges.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [from, to] = ranges[middle] as readonly [number, number];
    if (index < from) high = middle - 1;
    else if (index >= to) low = middle + 1;
    else return true;
  }
  return false;
}

/** How many indexes the set holds. */
export function countIndexes(ranges: IndexRanges): number {
  let count = 0;
  for (const [from, to] of ranges) count += to - from;
  return count;
}

/** The indexes below `size` that are not in the set, ascending. */
export function missingIndexes(ranges: IndexRanges, size: number): number[] {
  const missing: number[] = [];
  let next = 0;
  for (const [from, to] of ranges) {
    for (let index = next; index < Math.min(from, size); index++) missing.push(index);
    next = Math.max(next, to);
  }
  for (let index = next; index < size; index++) missing.push(index);
  return missing;
}

/** The set of the indexes whose flag is true. */
export function rangesOfFlags(flags: readonly boolean[]): Array<[number, number]> {
  return addIndexes(
    [],
    flags.flatMap((flag, index) => (flag ? [index] : [])),
  );
}
