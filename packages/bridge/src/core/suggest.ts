/**
 * The closest known name to a misspelt one, for "did you mean …?" in usage errors (the `pds` command,
 * deploy parameters). Edit distance from fastest-levenshtein, compared case-insensitively; a name
 * further than a third of its length (at least 2 edits) from every candidate gets no suggestion, so a
 * wild guess is not dressed up as a typo.
 */
import { distance } from 'fastest-levenshtein';

/**
 * The candidate nearest to `name`, or `undefined` when none is near enough.
 *
 * @example
 * ```ts
 * closestName('alarmMail', ['alarmEmail', 'pdsBaseUrl']); // 'alarmEmail'
 * closestName('chanels', ['channels', 'watch', 'bridge']); // 'channels'
 * closestName('zzz', ['channels']); // undefined
 * ```
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  let best: { candidate: string; edits: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(wanted, candidate.toLowerCase());
    if (edits <= limit && (best === undefined || edits < best.edits)) best = { candidate, edits };
  }
  return best?.candidate;
}
