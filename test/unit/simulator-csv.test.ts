import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CsvLineReader,
  detectDelimiter,
  parseCsv,
  readCsvRecords,
} from '../../packages/simulator/src/csv.ts';
import { CsvFormatError } from '../../packages/simulator/src/errors.ts';

describe('detectDelimiter', () => {
  it('picks the separator the header uses more, ignoring quoted text', () => {
    expect(detectDelimiter('primaryKey__;name;category')).toBe(';');
    expect(detectDelimiter('primaryKey__,name')).toBe(',');
    expect(detectDelimiter('"a;b;c",d')).toBe(',');
  });
});

describe('parseCsv', () => {
  it('reads a header and rows separated by commas with CRLF line ends', () => {
    // Prepare
    const text = 'primaryKey__,name\r\n1,Water\r\n2,Oats\r\n';

    // Act
    const table = parseCsv(text);

    // Assess
    expect(table).toEqual({
      header: ['primaryKey__', 'name'],
      rows: [
        ['1', 'Water'],
        ['2', 'Oats'],
      ],
    });
  });

  it('unquotes fields, turns "" into a quote and keeps separators inside quotes', () => {
    const table = parseCsv('k;name;note\n1;"Oat ""Gold""";"a;b,c"\n');

    expect(table.rows).toEqual([['1', 'Oat "Gold"', 'a;b,c']]);
  });

  it('keeps a quoted field that spans lines, with the line break as \\n', () => {
    const table = parseCsv('k,text\r\n1,"first\r\nsecond"\r\n2,x');

    expect(table.rows).toEqual([
      ['1', 'first\nsecond'],
      ['2', 'x'],
    ]);
  });

  it('keeps empty fields, skips blank lines and ignores a byte-order mark', () => {
    const table = parseCsv('\uFEFFa,b,c\n\n1,,3\n,,\n');

    expect(table.header).toEqual(['a', 'b', 'c']);
    expect(table.rows).toEqual([
      ['1', '', '3'],
      ['', '', ''],
    ]);
  });

  it('treats a quote inside an unquoted field as a plain character', () => {
    expect(parseCsv('a,b\n5" screen,x').rows).toEqual([['5" screen', 'x']]);
  });

  it('refuses a quoted field that is never closed', () => {
    expect(() => parseCsv('a,b\n1,"open')).toThrow(CsvFormatError);
  });
});

describe('CsvLineReader', () => {
  it('returns nothing while a quoted field is open and the record once it closes', () => {
    const reader = new CsvLineReader(',');

    const first = reader.push('1,"a');
    const pendingAfterFirst = reader.pending;
    const second = reader.push('b"');

    expect(first).toBeUndefined();
    expect(pendingAfterFirst).toBe(true);
    expect(second).toEqual(['1', 'a\nb']);
    expect(reader.pending).toBe(false);
  });
});

describe('readCsvRecords', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-csv-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('streams rows of a file as objects keyed by the header, leaving empty cells out', async () => {
    // Prepare
    const file = join(dir, 'items.csv');
    await writeFile(file, '\uFEFFprimaryKey__;name;category\r\n1;"Water; still";BEVERAGE\r\n2;;FOOD\r\n');

    // Act
    const rows = [];
    for await (const row of readCsvRecords(file)) rows.push(row);

    // Assess
    expect(rows).toEqual([
      { primaryKey__: '1', name: 'Water; still', category: 'BEVERAGE' },
      { primaryKey__: '2', category: 'FOOD' },
    ]);
  });

  it('reads many rows of a larger file in order', async () => {
    const file = join(dir, 'many.csv');
    const lines = ['primaryKey__,n', ...Array.from({ length: 20_000 }, (_, i) => `${i},"v ""${i}"""`)];
    await writeFile(file, `${lines.join('\n')}\n`);

    let count = 0;
    let last: Record<string, string> | undefined;
    for await (const row of readCsvRecords(file)) {
      count += 1;
      last = row;
    }

    expect(count).toBe(20_000);
    expect(last).toEqual({ primaryKey__: '19999', n: 'v "19999"' });
  });

  it('fails on a file whose last quoted field is not closed', async () => {
    const file = join(dir, 'broken.csv');
    await writeFile(file, 'a,b\n1,"never closed\n');

    const read = async () => {
      for await (const _row of readCsvRecords(file)) {
        // consume
      }
    };

    await expect(read()).rejects.toThrow(CsvFormatError);
  });
});
