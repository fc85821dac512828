/**
 * What an import does with a stored gathering entry: a `.csv` (header row with `primaryKey__`) or a
 * `.json` file (an array of items) creates or updates items; anything else is recorded only.
 */

import { readFile } from 'node:fs/promises';
import { parseJson } from '@pds-bridge/bridge/core';
import type { Item } from '@pds-bridge/bridge/pds';
import { readCsvRecords } from './csv.ts';
import { DEMO_DATA_MODEL } from './datamodel.ts';
import { CsvFormatError } from './errors.ts';
import type { SimulatorState, StoredGatheringEntry } from './state.ts';

/** JSON files larger than this are recorded without creating items (JSON.parse needs the whole text). */
export const MAX_JSON_IMPORT_BYTES = 64 * 1024 * 1024;

/** The files an import creates items from (each member of a ZIP is an entry of its own); others are recorded only. */
export const ITEM_FILE_SUFFIXES = ['.csv', '.json'] as const;

/** The outcome of one import. */
export interface ImportOutcome {
  itemCount: number;
  note?: string;
}

const NUMBER_ATTRIBUTES = new Set(DEMO_DATA_MODEL.filter((a) => a.type === 'number').map((a) => a.name));

/**
 * Applies one gathering entry to the items of `state`.
 *
 * @example
 * await importEntry(state, gathering.entries[0]); // { itemCount: 3 }
 */
export async function importEntry(
  state: SimulatorState,
  entry: StoredGatheringEntry,
): Promise<ImportOutcome> {
  const extension = entry.path.toLowerCase().split('.').at(-1);
  if (extension === 'csv') return importCsv(state, entry.diskPath);
  if (extension === 'json') return importJson(state, entry);
  return {
    itemCount: 0,
    note: `not one of ${ITEM_FILE_SUFFIXES.join(', ')}: recorded without creating items`,
  };
}

async function importCsv(state: SimulatorState, diskPath: string): Promise<ImportOutcome> {
  let itemCount = 0;
  let skipped = 0;
  try {
    for await (const row of readCsvRecords(diskPath)) {
      if (row.primaryKey__ === undefined) {
        skipped += 1;
        continue;
      }
      state.upsertItem(typedRow(row));
      itemCount += 1;
    }
  } catch (error) {
    if (error instanceof CsvFormatError) return { itemCount, note: error.message };
    throw error;
  }
  return skipped > 0
    ? { itemCount, note: `${skipped} rows without primaryKey__ were skipped` }
    : { itemCount };
}

/** CSV cells are text; attributes the data model types as numbers are converted when they are numbers. */
function typedRow(row: Record<string, string>): Item {
  const item: Item = { ...row };
  for (const name of NUMBER_ATTRIBUTES) {
    const value = row[name];
    if (value !== undefined && value.trim() !== '' && Number.isFinite(Number(value)))
      item[name] = Number(value);
  }
  return item;
}

async function importJson(state: SimulatorState, entry: StoredGatheringEntry): Promise<ImportOutcome> {
  if (entry.size > MAX_JSON_IMPORT_BYTES) {
    return {
      itemCount: 0,
      note: `JSON larger than ${MAX_JSON_IMPORT_BYTES} bytes: recorded without creating items`,
    };
  }
  let items: unknown;
  try {
    items = parseJson(await readFile(entry.diskPath, 'utf8'));
  } catch (error) {
    return { itemCount: 0, note: `not valid JSON (${(error as Error).message})` };
  }
  if (!Array.isArray(items)) return { itemCount: 0, note: 'the JSON is not an array of items' };
  let itemCount = 0;
  for (const item of items) {
    if (isItemWithKey(item)) {
      state.upsertItem(item);
      itemCount += 1;
    }
  }
  const skipped = items.length - itemCount;
  return skipped > 0
    ? { itemCount, note: `${skipped} elements without a string primaryKey__ were skipped` }
    : { itemCount };
}

function isItemWithKey(value: unknown): value is Item {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const key = (value as Item).primaryKey__;
  return typeof key === 'string' && key !== '';
}
