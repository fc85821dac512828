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
    if (!key.startsWith(prefix)) return { accept: false, reason: `outside INGEST_PREFIX "${prefix}"` };
    const lower = key.toLowerCase();
    if (suffixes.length > 0 && !suffixes.some((suffix) => lower.endsWith(suffix))) {
      return { accept: false, reason: `not ending in one of INGEST_SUFFIXES ${suffixes.join(', ')}` };
    }
    return { accept: true };
  };
}

/**
 * The filters in words, for a banner: `every key`, or what a key must look like to be ingested.
 *
 * @example
 * ```ts
 * describeIngestFilters({ prefix: 'incoming/', suffixes: ['.csv'] }); // 'keys under incoming/ ending in .csv (INGEST_PREFIX, INGEST_SUFFIXES)'
 * ```
 */
export function describeIngestFilters(options: IngestFilterOptions = {}): string {
  const prefix = options.prefix ?? '';
  const suffixes = options.suffixes ?? [];
  if (prefix === '' && suffixes.length === 0) return 'every key (no INGEST_PREFIX or INGEST_SUFFIXES set)';
  const parts = [
    prefix === '' ? 'keys' : `keys under ${prefix}`,
    suffixes.length === 0 ? '' : `ending in ${suffixes.join(', ')}`,
  ].filter(Boolean);
  const variables = [prefix === '' ? '' : 'INGEST_PREFIX', suffixes.length === 0 ? '' : 'INGEST_SUFFIXES'];
  return `${parts.join(' ')} only (${variables.filter(Boolean).join(', ')})`;
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
