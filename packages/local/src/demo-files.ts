/**
 * The sample files the demo drops: a CSV and a ZIP (a JSON array and another CSV inside) with items
 * that pass the simulator's demo data model (packages/simulator/src/datamodel.ts): 13-digit GTIN-like primary
 * keys with valid check digits, a name, a category, net content with its unit, a date that is no Friday.
 * Keys differ from run to run (and from the simulator's own demo items), so runs never collide.
 */
import { randomInt } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Item } from '@pds-bridge/bridge/pds';
import { withCheckDigit } from '@pds-bridge/simulator/datamodel.ts';
import { ZipFile } from 'yazl';

/** One file to drop. */
export interface DemoFile {
  name: string;
  body: Buffer;
}

/** The files of one demo run and the keys they carry. */
export interface DemoFiles {
  csv: DemoFile;
  zip: DemoFile;
  /** Paths inside the ZIP, as the PDS will name the gathering entries. */
  zipMembers: string[];
  /** Every item's primary key, CSV first. */
  primaryKeys: string[];
}

const PRODUCTS: ReadonlyArray<Omit<Item, 'primaryKey__'>> = [
  { name: 'Apple Juice 1 l', category: 'BEVERAGE', netContent: 1, netContentUnit: 'LTR' },
  { name: 'Rye Crispbread', category: 'FOOD', netContent: 250, netContentUnit: 'GRM' },
  { name: 'Laundry Pods 20 pcs', category: 'NON_FOOD', netContent: 20, netContentUnit: 'EA' },
  { name: 'Still Water 1,5 l', category: 'BEVERAGE', netContent: 1500, netContentUnit: 'MLT' },
  { name: 'Hazelnut Spread', category: 'FOOD', netContent: 400, netContentUnit: 'GRM' },
  { name: 'Hand Soap "Lavender"', category: 'NON_FOOD', netContent: 300, netContentUnit: 'MLT' },
];

/** A Monday: a Friday `simple_date` draws a warning, and a warning turns a review into REVIEW. */
const SIMPLE_DATE = '2026-03-02';

const CSV_COLUMNS = ['primaryKey__', 'name', 'category', 'netContent', 'netContentUnit', 'simple_date'];

/**
 * The demo items of one run: GS1 company prefix 0614141 (GS1's example prefix), a run number and an index.
 *
 * @example
 * ```ts
 * demoItems(5001)[0]?.primaryKey__; // '0614141500109' (the last digit is the check digit)
 * ```
 */
export function demoItems(run: number): Item[] {
  // Runs 5000-9999 keep clear of the simulator's demo items (0614141 12345-12349).
  const runDigits = String(5000 + (Math.abs(Math.trunc(run)) % 5000));
  return PRODUCTS.map((product, index) => ({
    primaryKey__: withCheckDigit(`0614141${runDigits}${index}`),
    ...product,
    simple_date: SIMPLE_DATE,
  }));
}

/**
 * Items as CSV with a header row; fields with a comma, quote or line break are quoted.
 *
 * @example
 * ```ts
 * itemsCsv([{ primaryKey__: '1', name: 'A, B' }]); // 'primaryKey__,name,...\r\n1,"A, B",...\r\n'
 * ```
 */
export function itemsCsv(items: readonly Item[]): string {
  const cell = (value: unknown) => {
    const text = value === undefined || value === null ? '' : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const rows = [CSV_COLUMNS, ...items.map((item) => CSV_COLUMNS.map((column) => item[column]))];
  return `${rows.map((row) => row.map(cell).join(',')).join('\r\n')}\r\n`;
}

/**
 * A ZIP archive of the given files, in memory (demo files are small).
 *
 * @example
 * ```ts
 * const zip = await zipOf([{ name: 'items.json', body: Buffer.from('[]') }]);
 * ```
 */
export async function zipOf(files: readonly DemoFile[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const file of files) zip.addBuffer(file.body, file.name, { mtime: new Date(Date.UTC(2026, 0, 5)) });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as Readable) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The demo's files for one run (a random run number unless given).
 *
 * @example
 * ```ts
 * const files = await demoFiles();
 * files.csv.name; // 'demo-items-5xxx.csv'
 * ```
 */
export async function demoFiles(run = randomInt(0, 5000)): Promise<DemoFiles> {
  const items = demoItems(run);
  const number = 5000 + (run % 5000);
  const csvItems = items.slice(0, 3);
  const jsonItems = items.slice(3, 5);
  const zippedCsvItems = items.slice(5);
  const members: DemoFile[] = [
    { name: 'items.json', body: Buffer.from(`${JSON.stringify(jsonItems, null, 2)}\n`) },
    { name: 'more-items.csv', body: Buffer.from(itemsCsv(zippedCsvItems)) },
  ];
  return {
    csv: { name: `demo-items-${number}.csv`, body: Buffer.from(itemsCsv(csvItems)) },
    zip: { name: `demo-items-${number}.zip`, body: await zipOf(members) },
    zipMembers: members.map((member) => member.name),
    primaryKeys: items.map((item) => String(item.primaryKey__)),
  };
}
