/**
 * A small CSV reader for imports: a header row, `,` or `;` as separator (whichever the header uses
 * more), fields optionally quoted with `"` and `""` as an escaped quote, CRLF or LF line ends, a
 * leading byte-order mark ignored. Quoted fields may span lines; such line breaks read back as `\n`.
 * Files are read line by line (node:readline), so their size does not matter.
 */

import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { CsvFormatError } from './errors.ts';

export type CsvDelimiter = ',' | ';';

/**
 * Longest record read, in characters as written (quotes and the line breaks inside quoted fields
 * included): a quote that is never closed would otherwise gather the rest of the file into one
 * field in memory.
 */
export const MAX_CSV_RECORD_CHARS = 1024 * 1024;

/**
 * The separator of a file, from its header record: `;` when it has more semicolons than commas
 * outside quotes, else `,`. A quoted header name may span lines, so lines are fed until the
 * header's quotes close (or {@link MAX_CSV_RECORD_CHARS} have been read).
 *
 * @example
 * const detector = new DelimiterDetector();
 * detector.push('"primary key'); // false: a quote is open
 * detector.push('";name');       // true
 * detector.delimiter;            // ';'
 */
export class DelimiterDetector {
  #commas = 0;
  #semicolons = 0;
  #quoted = false;
  #length = 0;

  /** Feeds the next line; true once the header record is complete. */
  push(line: string): boolean {
    for (const char of line) {
      if (char === '"') this.#quoted = !this.#quoted;
      else if (!this.#quoted && char === ',') this.#commas += 1;
      else if (!this.#quoted && char === ';') this.#semicolons += 1;
    }
    this.#length += line.length + 1;
    return !this.#quoted || this.#length > MAX_CSV_RECORD_CHARS;
  }

  get delimiter(): CsvDelimiter {
    return this.#semicolons > this.#commas ? ';' : ',';
  }
}

/**
 * The separator a header line uses (see {@link DelimiterDetector} for headers spanning lines).
 *
 * @example
 * detectDelimiter('primaryKey__;name'); // ';'
 */
export function detectDelimiter(headerLine: string): CsvDelimiter {
  const detector = new DelimiterDetector();
  for (const line of headerLine.split('\n')) if (detector.push(line)) break;
  return detector.delimiter;
}

/**
 * Turns physical lines into records; a record whose quoted field is still open waits for the next line.
 *
 * @example
 * const reader = new CsvLineReader(',');
 * reader.push('a,"b'); // undefined (the quote is still open)
 * reader.push('c"');   // ['a', 'b\nc']
 */
export class CsvLineReader {
  readonly delimiter: CsvDelimiter;
  #fields: string[] = [];
  #field = '';
  #quoted = false;
  #atFieldStart = true;
  /** Characters of the record so far, for {@link MAX_CSV_RECORD_CHARS}. */
  #length = 0;
  readonly #maxChars: number;

  constructor(delimiter: CsvDelimiter, maxChars = MAX_CSV_RECORD_CHARS) {
    this.delimiter = delimiter;
    this.#maxChars = maxChars;
  }

  /** True while a quoted field is open across lines. */
  get pending(): boolean {
    return this.#quoted;
  }

  /** Feeds one line (without its line end); returns the record it completes, if any. */
  push(line: string): string[] | undefined {
    this.#length += line.length;
    if (this.#length > this.#maxChars) {
      throw new CsvFormatError(
        `a record is longer than ${this.#maxChars} characters`,
        'CSV_RECORD_TOO_LONG',
        'shorten its values, or close the quote that gathers the rest of the file into it',
      );
    }
    for (let i = 0; i < line.length; i += 1) {
      const char = line[i] as string;
      if (this.#quoted) {
        if (char !== '"') this.#field += char;
        else if (line[i + 1] === '"') {
          this.#field += '"';
          i += 1;
        } else this.#quoted = false;
      } else if (char === this.delimiter) {
        this.#fields.push(this.#field);
        this.#field = '';
        this.#atFieldStart = true;
      } else if (char === '"' && this.#atFieldStart) {
        this.#quoted = true;
        this.#atFieldStart = false;
      } else {
        this.#field += char;
        this.#atFieldStart = false;
      }
    }
    if (this.#quoted) {
      this.#field += '\n';
      this.#length += 1;
      return undefined;
    }
    this.#length = 0;
    const record = [...this.#fields, this.#field];
    this.#fields = [];
    this.#field = '';
    this.#atFieldStart = true;
    return record;
  }
}

/** A parsed CSV document: the header names and the data rows. */
export interface CsvTable {
  header: string[];
  rows: string[][];
}

/**
 * Parses a whole CSV text (for small inputs and tests; files go through `readCsvRecords`).
 *
 * @example
 * parseCsv('primaryKey__;name\r\n1;"Oat ""Gold"""\r\n'); // { header: ['primaryKey__', 'name'], rows: [['1', 'Oat "Gold"']] }
 */
export function parseCsv(text: string): CsvTable {
  // The record stream strips one byte-order mark, as for a file: stripping here too took two.
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.at(-1) === '') lines.pop();
  const records = recordsOf(lines);
  const [header = [], ...rows] = records;
  return { header, rows };
}

function recordsOf(lines: string[]): string[][] {
  const stream = new CsvRecordStream();
  const records = lines.flatMap((line) => stream.push(line));
  records.push(...stream.end('the input'));
  return records.filter((record) => !isBlank(record));
}

/**
 * Lines in, records out: the header's lines are held until its delimiter is known (a quoted header
 * name may span lines), then every line goes through one {@link CsvLineReader}.
 */
class CsvRecordStream {
  readonly #detector = new DelimiterDetector();
  #held: string[] = [];
  #reader: CsvLineReader | undefined;

  /** The records `line` completes (none while the header is still being read). */
  push(line: string): string[][] {
    if (this.#reader) {
      const record = this.#reader.push(line);
      return record ? [record] : [];
    }
    this.#held.push(this.#held.length === 0 ? line.replace(/^\uFEFF/, '') : line);
    return this.#detector.push(line) ? this.#release() : [];
  }

  /** The records of the lines still held; throws when a quoted field is left open at the end of `what`. */
  end(what: string): string[][] {
    const records = this.#reader ? [] : this.#release();
    if (this.#reader?.pending)
      throw new CsvFormatError(`a quoted field is not closed before the end of ${what}`);
    return records;
  }

  #release(): string[][] {
    const reader = new CsvLineReader(this.#detector.delimiter);
    this.#reader = reader;
    const records: string[][] = [];
    for (const line of this.#held) {
      const record = reader.push(line);
      if (record) records.push(record);
    }
    this.#held = [];
    return records;
  }
}

/**
 * Streams the data rows of a CSV file as objects keyed by the header names; empty cells are left out.
 *
 * @example
 * for await (const row of readCsvRecords('/tmp/items.csv')) show(row.primaryKey__);
 */
export async function* readCsvRecords(filePath: string): AsyncGenerator<Record<string, string>> {
  const input = createReadStream(filePath, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  const stream = new CsvRecordStream();
  let header: string[] | undefined;
  const rows = function* (records: string[][]): Generator<Record<string, string>> {
    for (const record of records) {
      if (isBlank(record)) continue;
      if (!header) header = record.map((name) => name.trim());
      else yield rowObject(header, record);
    }
  };
  try {
    for await (const line of lines) yield* rows(stream.push(line));
    yield* rows(stream.end('the file'));
  } finally {
    lines.close();
    input.destroy();
  }
}

function rowObject(header: string[], record: string[]): Record<string, string> {
  const row: Record<string, string> = {};
  header.forEach((name, index) => {
    const value = record[index];
    if (name !== '' && value !== undefined && value !== '') row[name] = value;
  });
  return row;
}

function isBlank(record: string[]): boolean {
  return record.length === 1 && record[0] === '';
}
