/**
 * Property tier (issue 21): the simulator's CSV reader, for the files anyone drops into an import.
 * Budgets and replay: test/helpers/property.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CsvLineReader,
  MAX_CSV_RECORD_CHARS,
  parseCsv,
  readCsvRecords,
} from '../../packages/simulator/src/csv.ts';
import { CsvFormatError } from '../../packages/simulator/src/errors.ts';
import { holds, hostileString, withinTimeBudget, withinTimeBudgetAsync } from '../helpers/property.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'pds-csv-property-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Field text: anything but a carriage return (which reads back as a line break, by design). */
const field = fc
  .oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: fc.constantFrom('a', ',', ';', '"', '\n', ' ', 'ü', '\ud800'), maxLength: 8 }),
  )
  .map((text) => text.replaceAll('\r', ''));
const table = fc.integer({ min: 2, max: 4 }).chain((columns) =>
  fc.record({
    header: fc.array(field, { minLength: columns, maxLength: columns }),
    rows: fc.array(fc.array(field, { minLength: columns, maxLength: columns }), { maxLength: 5 }),
    delimiter: fc.constantFrom(',', ';'),
    lineEnd: fc.constantFrom('\n', '\r\n'),
  }),
);
const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
/** A CSV text as a careful writer writes it: every field quoted, quotes doubled. */
function written(input: { header: string[]; rows: string[][]; delimiter: string; lineEnd: string }): string {
  return [input.header, ...input.rows]
    .map((record) => record.map(quote).join(input.delimiter))
    .join(input.lineEnd);
}
/** CSV-ish text: a written table with a piece inserted, or anything. */
const csvText = fc.oneof(
  table.map(written),
  fc
    .tuple(table.map(written), fc.nat(), fc.constantFrom('"', '\n', '\r', ';', ',', '\uFEFF'))
    .map(
      ([text, at, piece]) =>
        text.slice(0, at % (text.length + 1)) + piece + text.slice(at % (text.length + 1)),
    ),
  hostileString({ maxLength: 60 }),
);

describe('simulator CSV, property-tested', () => {
  it('reads back every table a careful writer writes, whatever its fields hold', async () => {
    await holds(
      fc.property(table, (input) => {
        // The delimiter is detected from the header: a one-field-per-column header with ';' wins only with more ';'.
        const parsed = parseCsv(written(input));
        expect(parsed.header).toEqual(input.header);
        expect(parsed.rows).toEqual(input.rows);
      }),
      { runs: 800 },
    );
  });

  it('no exception escapes but CsvFormatError, whatever the text, within the time budget', async () => {
    await holds(
      fc.property(csvText, (text) => {
        try {
          withinTimeBudget(() => parseCsv(text));
        } catch (error) {
          expect(error).toBeInstanceOf(CsvFormatError);
        }
      }),
      { runs: 800 },
    );
  });

  it('differential: a file streamed row by row gives the rows of the whole text read at once, or the same refusal', async () => {
    let file = 0;
    await holds(
      fc.asyncProperty(csvText, async (raw) => {
        // Files hold UTF-8: a lone surrogate would be written as U+FFFD, so compare well-formed text.
        const text = raw.toWellFormed();
        const filePath = path.join(directory, `${file++}.csv`);
        writeFileSync(filePath, text, 'utf8');
        const whole = answerOf(() => expectedRecords(parseCsv(text)));
        const streamed = await withinTimeBudgetAsync(() =>
          answerOfAsync(async () => {
            const rows: Array<Record<string, string>> = [];
            for await (const row of readCsvRecords(filePath)) rows.push(row);
            return rows;
          }),
        );
        expect(streamed).toEqual(whole);
      }),
      { runs: 200 },
    );
  });

  it.each([
    ['two byte-order marks, then a line', '\uFEFF\uFEFF\na'],
    ['two byte-order marks, then an open quote', '\uFEFF\uFEFF"'],
  ])(
    'differential, found by it: %s gives the same answer both ways (one BOM stripped, once)',
    async (_name, text) => {
      // prepare
      const filePath = path.join(directory, 'double-bom.csv');
      writeFileSync(filePath, text, 'utf8');

      // act
      const whole = answerOf(() => expectedRecords(parseCsv(text)));
      const streamed = await answerOfAsync(async () => {
        const rows: Array<Record<string, string>> = [];
        for await (const row of readCsvRecords(filePath)) rows.push(row);
        return rows;
      });

      // assess
      expect(streamed).toEqual(whole);
    },
  );
});

describe('the CSV record limit', () => {
  it(`reads a record of exactly ${MAX_CSV_RECORD_CHARS} characters and refuses one more with CSV_RECORD_TOO_LONG`, () => {
    // prepare
    const value = (length: number) => 'x'.repeat(length - 2);

    // act
    const atLimit = parseCsv(`a,b\n1,${value(MAX_CSV_RECORD_CHARS)}\n`);
    const refusal = (() => {
      try {
        parseCsv(`a,b\n1,${value(MAX_CSV_RECORD_CHARS + 1)}\n`);
      } catch (error) {
        return error;
      }
    })();

    // assess
    expect(atLimit.rows[0]?.[1]).toHaveLength(MAX_CSV_RECORD_CHARS - 2);
    expect(refusal).toBeInstanceOf(CsvFormatError);
    expect(refusal).toMatchObject({ code: 'CSV_RECORD_TOO_LONG' });
  });

  it('counts the lines a quoted field spans, so an unclosed quote cannot gather the whole file', () => {
    // prepare: a limit of 11 characters as written: '"1234', its line break and '5678"'
    const reader = new CsvLineReader(',', 11);

    // act
    const first = reader.push('"1234');
    const second = reader.push('5678"');
    const overflow = () => {
      reader.push('"1234');
      reader.push('56789"');
    };

    // assess
    expect(first).toBeUndefined();
    expect(second).toEqual(['1234\n5678']);
    expect(overflow).toThrow(/longer than 11 characters/);
  });
});

/** What `readCsvRecords` yields for a parsed table: header trimmed, empty cells left out. */
function expectedRecords(table: { header: string[]; rows: string[][] }): Array<Record<string, string>> {
  const header = table.header.map((name) => name.trim());
  return table.rows.map((record) => {
    const row: Record<string, string> = {};
    header.forEach((name, index) => {
      const value = record[index];
      if (name !== '' && value !== undefined && value !== '') row[name] = value;
    });
    return row;
  });
}

function answerOf<T>(read: () => T): T | string {
  try {
    return read();
  } catch (error) {
    if (error instanceof CsvFormatError) return `refused: ${error.code}`;
    throw error;
  }
}

async function answerOfAsync<T>(read: () => Promise<T>): Promise<T | string> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof CsvFormatError) return `refused: ${error.code}`;
    throw error;
  }
}
