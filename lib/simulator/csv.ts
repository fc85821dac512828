/**
 * A small CSV reader for imports: a header row, `,` or `;` as separator (whichever the header uses
 * more), fields optionally quoted with `"` and `""` as an escaped quote, CRLF or LF line ends, a
 * leading byte-order mark ignored. Quoted fields may span lines; such line breaks read back as `\n`.
 * Files are read line by line (node:readline), so their size does not matter.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export type CsvDelimiter = ',' | ';';

/**
 * The separator a header line uses: `;` when it has more semicolons than commas outside quotes, else `,`.
 *
 * @example
 * detectDelimiter('primaryKey__;name'); // ';'
 */
export function detectDelimiter(headerLine: string): CsvDelimiter {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of headerLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === ',') commas += 1;
    else if (!quoted && char === ';') semicolons += 1;
  }
  return semicolons > commas ? ';' : ',';
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

  constructor(delimiter: CsvDelimiter) {
    this.delimiter = delimiter;
  }

  /** True while a quoted field is open across lines. */
  get pending(): boolean {
    return this.#quoted;
  }

  /** Feeds one line (without its line end); returns the record it completes, if any. */
  push(line: string): string[] | undefined {
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
      return undefined;
    }
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
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  if (lines.at(-1) === '') lines.pop();
  const records = recordsOf(lines);
  const [header = [], ...rows] = records;
  return { header, rows };
}

function recordsOf(lines: string[]): string[][] {
  const first = lines[0];
  if (first === undefined) return [];
  const reader = new CsvLineReader(detectDelimiter(first));
  const records: string[][] = [];
  for (const line of lines) {
    const record = reader.push(line);
    if (record && !isBlank(record)) records.push(record);
  }
  if (reader.pending) throw new CsvFormatError('a quoted field is not closed before the end of the input');
  return records;
}

/** The CSV text cannot be read; the message says where it is broken. */
export class CsvFormatError extends Error {
  constructor(detail: string) {
    super(`Invalid CSV: ${detail}; close every quoted field with '"' and escape quotes inside it as '""'`);
    this.name = 'CsvFormatError';
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
  let reader: CsvLineReader | undefined;
  let header: string[] | undefined;
  try {
    for await (const rawLine of lines) {
      const line = reader ? rawLine : rawLine.replace(/^\uFEFF/, '');
      reader ??= new CsvLineReader(detectDelimiter(line));
      const record = reader.push(line);
      if (!record || isBlank(record)) continue;
      if (!header) header = record.map((name) => name.trim());
      else yield rowObject(header, record);
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (reader?.pending) throw new CsvFormatError('a quoted field is not closed before the end of the file');
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
