/**
 * What the local stack tells a user about the files they drop before the ingest runs: which keys its
 * filters (INGEST_PREFIX, INGEST_SUFFIXES) let through, and which files the simulator creates items
 * from. The ingest accepts every file the filters pass and the PDS accepts it without saying whether
 * items were created, so a file that creates nothing would otherwise pass without a word.
 */
import {
  createIngestFilter,
  describeIngestFilters,
  type IngestFilterOptions,
  parseSuffixList,
} from '@pds-bridge/bridge/ingest/filters.ts';
import { ITEM_FILE_SUFFIXES } from '@pds-bridge/simulator';
import { parseCsv } from '@pds-bridge/simulator/csv.ts';

/** The column the simulator keys a CSV row by; a row without it is skipped. */
const PRIMARY_KEY_COLUMN = 'primaryKey__';

/** The filters the stack's ingest function reads from `env` (the stack passes the user's on). */
export function ingestFiltersOf(env: NodeJS.ProcessEnv): { prefix: string; suffixes: string[] } {
  return { prefix: env.INGEST_PREFIX ?? '', suffixes: parseSuffixList(env.INGEST_SUFFIXES) };
}

/** The files the simulator creates items from, and how ZIP archives count, in words. */
export function simulatorItemFiles(): string {
  return `${ITEM_FILE_SUFFIXES.join(' and ')} files (also as members of a .zip)`;
}

/**
 * The banner's line on what is ingested: the filters, and with the simulator, what creates items.
 *
 * @example
 * ```ts
 * dropRuleLine({ prefix: '', suffixes: [] }, true);
 * // 'Drop files to ingest them: every key (…); the simulator creates items from .csv and .json files (…), other files are accepted and create none'
 * ```
 */
export function dropRuleLine(filters: IngestFilterOptions, simulated: boolean): string {
  const simulator = simulated
    ? `; the simulator creates items from ${simulatorItemFiles()}, other files are accepted and create none`
    : '';
  return `Drop files to ingest them: ${describeIngestFilters(filters)}${simulator}.`;
}

/**
 * Warnings for one key about to be dropped: outside the filters (the ingest skips it), or with the
 * simulator, a file it creates no items from.
 *
 * @example
 * ```ts
 * dropWarnings('notes.txt', { filters: { prefix: 'incoming/' }, simulated: true });
 * // ['notes.txt is outside INGEST_PREFIX "incoming/": the stack will not ingest it (put it under incoming/: --prefix incoming/)', …]
 * ```
 */
export function dropWarnings(
  key: string,
  options: {
    filters: IngestFilterOptions;
    simulated: boolean;
    /** The file's first line, when it is a local .csv file: its header is checked too. */
    firstLine?: string;
  },
): string[] {
  const decision = createIngestFilter(options.filters)(key);
  if (!decision.accept) {
    const prefix = options.filters.prefix ?? '';
    const fix = key.startsWith(prefix) ? '' : ` (put it under ${prefix}: --prefix ${prefix})`;
    return [`${key} is ${decision.reason}: the stack will not ingest it${fix}`];
  }
  if (!options.simulated) return [];
  const lower = key.toLowerCase();
  const createsItems = [...ITEM_FILE_SUFFIXES, '.zip'].some((suffix) => lower.endsWith(suffix));
  if (!createsItems) {
    return [
      `${key}: the simulator creates items only from ${simulatorItemFiles()}; it accepts this file and creates none (pds.ingest.completed still says the import was accepted)`,
    ];
  }
  if (lower.endsWith('.csv') && options.firstLine !== undefined && !hasPrimaryKeyColumn(options.firstLine)) {
    return [
      `${key} has no ${PRIMARY_KEY_COLUMN} column in its header: the simulator skips every row and creates no items (pds.ingest.completed still says the import was accepted)`,
    ];
  }
  return [];
}

function hasPrimaryKeyColumn(headerLine: string): boolean {
  try {
    return parseCsv(headerLine.replace(/^\uFEFF/, '')).header.some(
      (name) => name.trim() === PRIMARY_KEY_COLUMN,
    );
  } catch {
    // A header the simulator cannot read either; the ingest's event and the simulator say more.
    return true;
  }
}
