/**
 * The files the ingest chaos run drops: CSVs of varied size, ZIPs of several members, under odd keys
 * (spaces, `+`, `%`, `&`, unicode, deep prefixes). Drawn from a seeded PRNG, so a seed replays a run.
 *
 * Every file name starts with `d<index>` (`d007 price+list.csv`, `d012 bundle.zip`): the PDS names its
 * gathering entries after the file name, so the tally can tell which drop a gathering came from.
 */

import type { Item } from '../../../packages/bridge/src/pds/index.ts';
import { itemsCsv, zipOf } from '../../../packages/local/src/demo-files.ts';
import type { Random } from '../../../packages/simulator/src/random.ts';

export interface Drop {
  index: number;
  /** The decoded object key. */
  key: string;
  kind: 'csv' | 'zip';
  body: Buffer;
  /** Gathering entry paths the PDS will list for it (archive members as `<zip name>/<member>`). */
  entryPaths: string[];
}

/** Folders of varied depth and spelling; a key keeps `%2F` literally, its event key encodes it again. */
const PREFIXES = [
  'incoming/',
  'incoming/2026/03/02/supplier-a/batch-7/',
  'in coming/Q1 2026/',
  'über/ordner+x/',
  'deep/a/b/c/d/e/f/g/h/',
  'percent%2Fin-key/',
  '',
];

/** File name stems (after the `d<index> ` token) with the characters S3 event keys encode. */
const STEMS = ['items', 'Q1 report', 'price+list', '100% ready', 'Käse & Brot', '日本語 (1)', 'a=b;c'];

/** Rows per CSV: mostly small files, some medium, a few large ones (about 1.5 MB). */
function csvRows(random: Random): number {
  const roll = random();
  if (roll < 0.7) return 1 + Math.floor(random() * 60);
  if (roll < 0.95) return 500 + Math.floor(random() * 2_000);
  return 15_000 + Math.floor(random() * 5_000);
}

function itemsOf(index: number, part: string, count: number): Item[] {
  return Array.from({ length: count }, (_, row) => ({
    primaryKey__: `CHAOS-${index}-${part}-${row}`,
    name: `Chaos item ${index}/${part}/${row}`,
    category: 'FOOD',
    netContent: 1 + (row % 500),
    netContentUnit: 'GRM',
    simple_date: '2026-03-02',
  }));
}

function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** The `d<index>` token every file name of drop `index` starts with. */
export function dropToken(index: number): string {
  return `d${String(index).padStart(3, '0')}`;
}

/** The drop index an entry path starts with, or undefined for a path of no drop of ours. */
export function dropIndexOfPath(entryPath: string): number | undefined {
  const match = /^d(\d{3,})/.exec(entryPath);
  return match ? Number(match[1]) : undefined;
}

/**
 * `count` drops, about one in five a ZIP of 2 to 4 members (CSV and JSON).
 *
 * @example
 * ```ts
 * const drops = await makeDrops(200, mulberry32(7));
 * drops[0]?.key; // e.g. 'in coming/Q1 2026/d000 price+list.csv'
 * ```
 */
export async function makeDrops(count: number, random: Random): Promise<Drop[]> {
  const drops: Drop[] = [];
  for (let index = 0; index < count; index++) {
    const prefix = pick(random, PREFIXES);
    const stem = `${dropToken(index)} ${pick(random, STEMS)}`;
    if (random() < 0.2) {
      const members = await zipMembers(index, random);
      drops.push({
        index,
        key: `${prefix}${stem}.zip`,
        kind: 'zip',
        body: await zipOf(members),
        entryPaths: members.map((member) => `${stem}/${member.name}`),
      });
    } else {
      drops.push({
        index,
        key: `${prefix}${stem}.csv`,
        kind: 'csv',
        body: Buffer.from(itemsCsv(itemsOf(index, 'csv', csvRows(random)))),
        entryPaths: [`${stem}.csv`],
      });
    }
  }
  return drops;
}

async function zipMembers(index: number, random: Random): Promise<Array<{ name: string; body: Buffer }>> {
  const count = 2 + Math.floor(random() * 3);
  return Array.from({ length: count }, (_, member) => {
    const items = itemsOf(index, `m${member}`, 1 + Math.floor(random() * 40));
    return member % 2 === 1
      ? { name: `more/items-${member}.json`, body: Buffer.from(JSON.stringify(items)) }
      : { name: `items-${member}.csv`, body: Buffer.from(itemsCsv(items)) };
  });
}
