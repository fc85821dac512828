/**
 * What a CSV import needs, checked as the file streams (docs/spec-gaps.md, "Import content"): a
 * header row, `,` or `;` as separator (whichever the header uses more outside quotes), every quoted
 * field closed, and every row with as many fields as the header. Quotes follow the PDS's reading: a
 * `"` opens a quoted field only at a field's start, `""` inside one is a quote, and a quoted field
 * may span lines. Blank lines are skipped.
 *
 * The rows after the header are read 64 bytes at a time by csv-blocks.ts (WebAssembly SIMD) where it
 * can vouch for a block, a chunk's last bytes with the next chunk's first ones; the header, the
 * file's last bytes and every block it hands back are read here byte by byte, and only this reading
 * words a problem.
 */
import { CsvBlocks, type CsvPosition } from './csv-blocks.ts';
import type { ByteCheck } from './problem.ts';
import { BLOCK_BYTES } from './wasm-module.ts';

// Bytes that never occur inside a multi-byte UTF-8 sequence, so the bytes can be read undecoded.
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;

const UNCLOSED_FIX =
  'close the quote, or write a quote inside a quoted value as "" (a value with the separator or a line break must be quoted)';
const FIELDS_FIX =
  'give every row as many fields as the header: quote values that contain the separator, and add empty fields for missing values';

export interface CsvCheckOptions {
  /**
   * Read whole 64-byte blocks with WebAssembly SIMD where the runtime has it (csv-blocks.ts), the
   * rest byte by byte; false reads every byte in JavaScript. Same verdict either way. Default true.
   */
  simd?: boolean;
}

export class CsvCheck implements ByteCheck {
  /** The fast path, or undefined to read every byte here. */
  readonly #blocks: CsvBlocks | undefined;
  /** Fields of the header, known once the header row has ended. */
  #headerFields: number | undefined;
  /** While the header streams: separators seen outside quotes. */
  #commas = 0;
  #semicolons = 0;
  #separator: number = COMMA;
  #at: CsvPosition = {
    quoted: false,
    quoteInQuoted: false,
    atFieldStart: true,
    fields: 1,
    rowBytes: 0,
    line: 1,
    rowLine: 1,
    quoteLine: 0,
  };
  #started = false;
  #problem: { problem: string; fix: string } | undefined;

  constructor(options: CsvCheckOptions = {}) {
    this.#blocks = options.simd === false ? undefined : CsvBlocks.create();
  }

  push(bytes: Uint8Array): void {
    let i = 0;
    if (!this.#started && bytes.length > 0) {
      this.#started = true;
      // A UTF-8 byte-order mark before the header is not part of its first name.
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    }
    for (; i < bytes.length && this.#headerFields === undefined; i += 1) this.#headerByte(bytes[i] as number);
    if (i < bytes.length && this.#problem === undefined) this.#rows(bytes, i);
  }

  finish(): { problem: string; fix: string } | undefined {
    const at = this.#at;
    const carried = this.#blocks?.input.carried();
    // The last chunk's last bytes, left for a next one.
    if (carried !== undefined && this.#problem === undefined) this.#rowsByBytes(carried, 0, carried.length);
    if (this.#problem === undefined && at.quoted && !at.quoteInQuoted) {
      this.#problem = {
        problem: `the quoted field opened on line ${at.quoteLine} is never closed: the file ends inside it`,
        fix: UNCLOSED_FIX,
      };
    }
    if (this.#problem === undefined && at.rowBytes > 0) {
      // The last row has no line end.
      if (this.#headerFields === undefined) this.#endHeader();
      else this.#checkRow(at);
    }
    if (this.#problem === undefined && this.#headerFields === undefined) {
      this.#problem = {
        problem: 'the file has no header row (it is empty or blank)',
        fix: 'start the file with a header row naming the columns, primaryKey__ among them',
      };
    }
    return this.#problem;
  }

  /** One byte of the header row: both separators count until the row ends and one wins. */
  #headerByte(byte: number): void {
    const at = this.#at;
    if (at.quoteInQuoted) {
      at.quoteInQuoted = false;
      if (byte === QUOTE) return;
      at.quoted = false;
    }
    if (at.quoted) {
      if (byte === QUOTE) at.quoteInQuoted = true;
      else if (byte === LF) at.line += 1;
      return;
    }
    if (byte === LF) {
      if (at.rowBytes > 0) this.#endHeader();
      at.line += 1;
      at.rowLine = at.line;
      at.rowBytes = 0;
      at.atFieldStart = true;
      return;
    }
    if (byte === CR) return;
    at.rowBytes += 1;
    if (byte === COMMA || byte === SEMICOLON) {
      if (byte === COMMA) this.#commas += 1;
      else this.#semicolons += 1;
      at.atFieldStart = true;
    } else if (byte === QUOTE && at.atFieldStart) {
      at.quoted = true;
      at.quoteLine = at.line;
      at.atFieldStart = false;
    } else {
      at.atFieldStart = false;
    }
  }

  #endHeader(): void {
    this.#separator = this.#semicolons > this.#commas ? SEMICOLON : COMMA;
    this.#headerFields = 1 + (this.#separator === SEMICOLON ? this.#semicolons : this.#commas);
    this.#at.fields = 1;
  }

  /**
   * The rows after the header: whole blocks by the fast path where there is one, a window at a time
   * (the bytes after its last whole block open the next window), the rest byte by byte.
   */
  #rows(bytes: Uint8Array, from: number): void {
    const blocks = this.#blocks;
    if (blocks === undefined) {
      this.#rowsByBytes(bytes, from, bytes.length);
      return;
    }
    const headerFields = this.#headerFields as number;
    const { input } = blocks;
    const window = input.bytes;
    let i = from;
    while (i < bytes.length && this.#problem === undefined) {
      i += input.fill(bytes, i);
      const end = blocks.scan(input.length, this.#at, this.#separator, headerFields, (start) =>
        this.#rowsByBytes(window, start, start + BLOCK_BYTES),
      );
      input.carry(this.#problem === undefined ? end : input.length);
    }
  }

  /**
   * The rows in `bytes[from..to)`, byte by byte: false once a problem is found. Ordinary bytes are
   * passed over in local variables, and inside a quoted field only its closing quote is looked for.
   */
  #rowsByBytes(bytes: Uint8Array, from: number, to: number): boolean {
    const separator = this.#separator;
    const at = this.#at;
    let { quoted, quoteInQuoted, atFieldStart, fields, rowBytes, line } = at;
    const length = to;
    let i = from;
    while (i < length) {
      if (quoteInQuoted) {
        quoteInQuoted = false;
        if (bytes[i] === QUOTE) {
          i += 1;
          continue;
        }
        quoted = false;
      }
      if (quoted) {
        // Inside quotes only the closing quote matters (and line ends, for the line numbers).
        while (i < length) {
          const byte = bytes[i] as number;
          if (byte === QUOTE) break;
          if (byte === LF) line += 1;
          i += 1;
        }
        quoteInQuoted = i < length;
        i += 1;
        continue;
      }
      const byte = bytes[i] as number;
      if (byte === separator) {
        fields += 1;
        rowBytes += 1;
        atFieldStart = true;
      } else if (byte === LF) {
        if (rowBytes > 0) {
          at.fields = fields;
          at.line = line;
          if (fields !== this.#headerFields && !this.#checkRow(at)) return false;
        }
        fields = 1;
        rowBytes = 0;
        atFieldStart = true;
        line += 1;
        at.rowLine = line;
      } else if (byte === QUOTE && atFieldStart) {
        quoted = true;
        at.quoteLine = line;
        atFieldStart = false;
        rowBytes += 1;
      } else if (byte !== CR) {
        rowBytes += 1;
        atFieldStart = false;
      }
      i += 1;
    }
    at.quoted = quoted;
    at.quoteInQuoted = quoteInQuoted;
    at.atFieldStart = atFieldStart;
    at.fields = fields;
    at.rowBytes = rowBytes;
    at.line = line;
    return true;
  }

  /** Whether the row that just ended has the header's field count; records the problem if not. */
  #checkRow(at: CsvPosition): boolean {
    if (at.fields === this.#headerFields) return true;
    const where = at.rowLine === at.line ? `line ${at.line}` : `the row on lines ${at.rowLine}–${at.line}`;
    this.#problem = {
      problem: `${where} has ${at.fields} fields, the header has ${this.#headerFields} (separator "${String.fromCharCode(this.#separator)}")`,
      fix: FIELDS_FIX,
    };
    return false;
  }
}
