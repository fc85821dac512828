/**
 * Which dropped objects are ingested: folder placeholders (keys ending in `/`, created by the S3
 * console's "Create folder") never are, and a prefix and a list of suffixes narrow the rest. A skipped
 * object is not an error: the caller logs and counts it.
 */

export interface IngestFilterOptions {
  /** Only keys starting with this are ingested (`INGEST_PREFIX`); empty for all. Case-sensitive, as S3 keys are. */
  prefix?: string;
  /** Only keys ending in one of these are ingested (`INGEST_SUFFIXES`); empty for all. Case-insensitive. */
  suffixes?: readonly string[];
}

/** Accept, or skip with the reason. */
export type FilterDecision = { accept: true } | { accept: false; reason: string };

/**
 * Builds the filter.
 *
 * @example
 * ```ts
 * const accepts = createIngestFilter({ prefix: 'incoming/', suffixes: ['.csv', '.zip'] });
 * accepts('incoming/items.CSV'); // { accept: true }
 * accepts('incoming/'); // { accept: false, reason: 'a folder placeholder (key ends in "/")' }
 * ```
 */
export function createIngestFilter(options: IngestFilterOptions = {}): (key: string) => FilterDecision {
  const prefix = options.prefix ?? '';
  const suffixes = (options.suffixes ?? []).map((suffix) => suffix.toLowerCase());
  return (key) => {
    if (key.endsWith('/')) return { accept: false, reason: 'a folder placeholder (key ends in "/")' };
    if (!key.startsWith(prefix)) return { accept: false, reason: `outside the prefix "${prefix}"` };
    const lower = key.toLowerCase();
    if (suffixes.length > 0 && !suffixes.some((suffix) => lower.endsWith(suffix))) {
      return { accept: false, reason: `not ending in one of ${suffixes.join(', ')}` };
    }
    return { accept: true };
  };
}

/**
 * Splits a comma-separated suffix list, trimming blanks and dropping empty items.
 *
 * @example
 * ```ts
 * parseSuffixList(' .csv, .json ,,.zip'); // ['.csv', '.json', '.zip']
 * ```
 */
export function parseSuffixList(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
