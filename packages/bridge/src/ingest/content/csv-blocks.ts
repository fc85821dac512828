/**
 * The CSV check's fast path: 64 bytes at a time in WebAssembly SIMD, about a fifth of the CPU per MiB
 * of reading every byte in JavaScript (docs/benchmarks.md, "Content check").
 *
 * How a block is read: bitmasks of its quotes, separators, line feeds and carriage returns (one bit
 * per byte); which bytes are inside quotes is the prefix XOR of the quote mask (every quote
 * toggles, so `""` inside a quoted field leaves it quoted, as the PDS reads it). That toggling is
 * the PDS's reading only while every quote that opens a field stands at a field's start (after a
 * separator or a line end) or right after a closing quote (`""`). A block where it does not (a
 * quote inside an unquoted value, `5" screen`), where a quote follows a carriage return, whose last
 * byte is a carriage return outside quotes, or that ends a row whose field count differs from the
 * header's is not taken: the scanner stops before it and the byte-by-byte reading
 * (csv-check.ts) reads it, so it alone words every problem. The result is the same position, byte
 * for byte, as reading every byte (test/unit/ingest-content-check.test.ts holds the two together
 * on random files cut at random places).
 */
import {
  assemble,
  BLOCK_BYTES,
  ChunkWindow,
  type Code,
  I32,
  I64,
  lazyScanner,
  op,
  type ScannerMemory,
  V128,
  type ValueType,
  WINDOW_AT,
} from './wasm-module.ts';

/** Where the CSV reading is between two bytes: csv-check.ts's position, shared with the scanner. */
export interface CsvPosition {
  /** Inside a quoted field. */
  quoted: boolean;
  /** A `"` inside a quoted field that may be the first of `""` (decided by the next byte). */
  quoteInQuoted: boolean;
  atFieldStart: boolean;
  /** Fields of the current row so far. */
  fields: number;
  /** Bytes of the current row outside line ends: 0 on a blank line (the scanner says only 0 or 1). */
  rowBytes: number;
  line: number;
  /** Line the current row started on. */
  rowLine: number;
  /** Line the open quoted field started on. */
  quoteLine: number;
}

/** The state words in memory (32-bit each), by byte offset. */
const Word = {
  separator: 0,
  headerFields: 4,
  quoted: 8,
  quoteInQuoted: 12,
  atFieldStart: 16,
  fields: 20,
  rowBytes: 24,
  line: 28,
  rowLine: 32,
  quoteLine: 36,
} as const;

// The function's parameters and locals, by index.
const PTR = 0;
const BLOCKS = 1;
const DONE_BLOCKS = 2;
const [HEADER, FIELDS, NONBLANK, LINE, ROW_LINE, QUOTE_LINE, ENTRY_OK, QIQ, INSIDE] = [
  3, 4, 5, 6, 7, 8, 9, 10, 11,
];
const [QUOTES, SEPARATORS, LFS, CRS, IN_QUOTES, CLOSING, OPENING, OUT_SEPARATORS, ROW_ENDS, NONBLANK_BYTES] =
  [12, 13, 14, 15, 16, 17, 18, 19, 20, 21];
const [REST, CONSUMED, END, TEMP] = [22, 23, 24, 25];
/** The row's counts as the block began (restored when the block is handed back), and atFieldStart. */
const [FIELDS_BEFORE, NONBLANK_BEFORE, AT_FIELD_START] = [26, 27, 28];
const [V_QUOTE, V_SEPARATOR, V_LF, V_CR] = [29, 30, 31, 32];
const VECTORS = [33, 34, 35, 36];
const LOCALS: ValueType[] = [
  I32,
  ...Array.from({ length: 26 }, (): ValueType => I64),
  ...Array.from({ length: 8 }, (): ValueType => V128),
];

const not = (local: number): Code => [op.get(local), op.i64(-1), op.i64Xor];
const nonZero = (code: Code): Code => [code, op.i64(0), op.i64Ne];
const storeWord = (offset: number, value: Code): Code => [op.i32(0), value, op.store32(offset)];
const loadWord = (offset: number, local: number): Code => [op.i32(0), op.load32(offset), op.set(local)];

/** The bitmask of the block's bytes equal to the byte in `vector` (bit i: byte i). */
function maskOf(vector: number): Code {
  return VECTORS.flatMap((data, k) => [
    op.get(data),
    op.get(vector),
    op.i8x16Eq,
    op.i8x16Bitmask,
    op.i64ExtendI32U,
    k === 0 ? [] : [op.i64(16 * k), op.i64Shl, op.i64Or],
  ]);
}

function loadState(): Code[] {
  const splat = (byte: Code, local: number) => [byte, op.i8x16Splat, op.set(local)];
  return [
    splat(op.i32(0x22), V_QUOTE),
    splat([op.i32(0), op.i32Load(Word.separator)], V_SEPARATOR),
    splat(op.i32(0x0a), V_LF),
    splat(op.i32(0x0d), V_CR),
    loadWord(Word.headerFields, HEADER),
    loadWord(Word.quoteInQuoted, QIQ),
    // Inside quotes (all ones) when quoted and no closing quote waits for its next byte.
    [op.i64(0), op.i32(0), op.load32(Word.quoted), op.get(QIQ), op.i64(1), op.i64Xor],
    [op.i64And, op.i64Sub, op.set(INSIDE)],
    loadWord(Word.atFieldStart, AT_FIELD_START),
    [op.get(AT_FIELD_START), op.get(QIQ), op.i64Or, op.set(ENTRY_OK)],
    loadWord(Word.fields, FIELDS),
    loadWord(Word.rowBytes, NONBLANK),
    loadWord(Word.line, LINE),
    loadWord(Word.rowLine, ROW_LINE),
    loadWord(Word.quoteLine, QUOTE_LINE),
  ];
}

/** The block's masks, which bytes are inside quotes, and the two ways out (branch depth 1: give up). */
function classify(): Code[] {
  const prefixXor = [1, 2, 4, 8, 16, 32].flatMap((shift) => [
    op.get(TEMP),
    op.get(TEMP),
    op.i64(shift),
    op.i64Shl,
    op.i64Xor,
    op.set(TEMP),
  ]);
  return [
    ...VECTORS.map((data, k) => [op.get(PTR), op.v128Load(16 * k), op.set(data)]),
    [maskOf(V_QUOTE), op.tee(QUOTES), op.set(TEMP)],
    [maskOf(V_SEPARATOR), op.set(SEPARATORS)],
    [maskOf(V_LF), op.set(LFS)],
    [maskOf(V_CR), op.set(CRS)],
    [prefixXor, op.get(TEMP), op.get(INSIDE), op.i64Xor, op.set(IN_QUOTES)],
    [op.get(QUOTES), not(IN_QUOTES), op.i64And, op.set(CLOSING)],
    [op.get(QUOTES), op.get(IN_QUOTES), op.i64And, op.set(OPENING)],
    [op.get(SEPARATORS), not(IN_QUOTES), op.i64And, op.set(OUT_SEPARATORS)],
    [op.get(LFS), not(IN_QUOTES), op.i64And, op.set(ROW_ENDS)],
    // A quote opens a field only after a separator, a line end or a closing quote (`""`).
    [op.get(OUT_SEPARATORS), op.get(ROW_ENDS), op.i64Or, op.get(CLOSING), op.i64Or],
    [op.i64(1), op.i64Shl, op.get(ENTRY_OK), op.i64Or, op.i64(-1), op.i64Xor],
    [nonZero([op.get(OPENING), op.i64And]), op.brIf(1)],
    // A carriage return outside quotes as the last byte: whether a field starts after it is the
    // byte before it's to say, which the next block does not see.
    [nonZero([op.get(CRS), not(IN_QUOTES), op.i64And, op.i64(63), op.i64ShrU])],
    op.brIf(1),
    // Bytes that make a row not blank: outside quotes (the opening quote too), not CR or LF.
    [op.get(IN_QUOTES), op.get(QUOTES), op.i64Xor, op.get(CRS), op.i64Or, op.get(LFS)],
    [op.i64Or, op.i64(-1), op.i64Xor, op.set(NONBLANK_BYTES)],
  ];
}

/** Adds the separators and not-blank bytes under `mask` (in TEMP) to the current row. */
const addToRow: Code[] = [
  [op.get(FIELDS), op.get(OUT_SEPARATORS), op.get(TEMP), op.i64And, op.i64Popcnt],
  [op.i64Add, op.set(FIELDS)],
  [op.get(NONBLANK), op.get(NONBLANK_BYTES), op.get(TEMP), op.i64And, op.i64Or],
  op.set(NONBLANK),
];

/** Each row that ends in the block: its field count against the header's (branch depth 3: give up). */
function rows(): Code[] {
  return [
    [op.i64(0), op.set(CONSUMED), op.get(ROW_ENDS), op.set(REST)],
    op.block,
    op.loop,
    [op.get(REST), op.i64Eqz, op.brIf(1)],
    [op.get(REST), op.i64Ctz, op.set(END)],
    // The row's bytes in this block: below its line end, after what earlier rows took.
    [op.i64(1), op.get(END), op.i64Shl, op.i64(1), op.i64Sub, not(CONSUMED), op.i64And],
    op.set(TEMP),
    ...addToRow,
    [nonZero(op.get(NONBLANK)), op.get(FIELDS), op.get(HEADER), op.i64Ne, op.i32And],
    op.brIf(3),
    [op.i64(1), op.set(FIELDS), op.i64(0), op.set(NONBLANK)],
    [op.i64(2), op.get(END), op.i64Shl, op.i64(1), op.i64Sub, op.set(CONSUMED)],
    [op.get(REST), op.get(REST), op.i64(1), op.i64Sub, op.i64And, op.set(REST)],
    op.br(0),
    op.end,
    op.end,
    // What follows the last line end belongs to the next row.
    [not(CONSUMED), op.set(TEMP)],
    ...addToRow,
  ];
}

/** The line numbers and the position after the block. */
function commit(): Code[] {
  // LINE plus the block's line feeds below the lowest set bit of `bit`.
  const linesBelow = (bit: Code): Code => [
    op.get(LINE),
    op.get(LFS),
    bit,
    op.i64(1),
    op.i64Sub,
    op.i64And,
    op.i64Popcnt,
    op.i64Add,
  ];
  return [
    // The row after the block's last line end starts on the line after it (CONSUMED + 1 is the bit
    // after that line end; when it was bit 63, CONSUMED + 1 wraps to 0 and every bit is below).
    [
      linesBelow([op.get(CONSUMED), op.i64(1), op.i64Add]),
      op.get(ROW_LINE),
      nonZero(op.get(ROW_ENDS)),
      op.select,
    ],
    op.set(ROW_LINE),
    // A quote that opens a field (not the second of `""`): its line is the open field's.
    [op.get(OPENING), op.get(CLOSING), op.i64(1), op.i64Shl, op.get(QIQ), op.i64Or],
    [op.i64(-1), op.i64Xor, op.i64And, op.set(TEMP)],
    linesBelow([op.i64(1), op.i64(63), op.get(TEMP), op.i64Clz, op.i64Sub, op.i64Shl]),
    [op.get(QUOTE_LINE), nonZero(op.get(TEMP)), op.select, op.set(QUOTE_LINE)],
    [op.get(LINE), op.get(LFS), op.i64Popcnt, op.i64Add, op.set(LINE)],
    [op.get(CLOSING), op.i64(63), op.i64ShrU, op.set(QIQ)],
    [op.i64(0), op.get(IN_QUOTES), op.i64(63), op.i64ShrU, op.i64Sub, op.set(INSIDE)],
    [op.get(OUT_SEPARATORS), op.get(ROW_ENDS), op.i64Or, op.i64(63), op.i64ShrU],
    op.set(AT_FIELD_START),
    [op.get(AT_FIELD_START), op.get(QIQ), op.i64Or, op.set(ENTRY_OK)],
  ];
}

/** The position the caller reads back: after the last block taken. */
function storeState(): Code[] {
  return [
    storeWord(Word.quoted, [op.get(INSIDE), op.i64(1), op.i64And, op.get(QIQ), op.i64Or]),
    storeWord(Word.quoteInQuoted, op.get(QIQ)),
    storeWord(Word.atFieldStart, op.get(AT_FIELD_START)),
    storeWord(Word.fields, op.get(FIELDS)),
    storeWord(Word.rowBytes, [nonZero(op.get(NONBLANK)), op.i64ExtendI32U]),
    storeWord(Word.line, op.get(LINE)),
    storeWord(Word.rowLine, op.get(ROW_LINE)),
    storeWord(Word.quoteLine, op.get(QUOTE_LINE)),
  ];
}

/** `scan(ptr, blocks)`: how many whole blocks from `ptr` it took, the position after them in memory. */
export function csvScannerModule(): Uint8Array<ArrayBuffer> {
  const body: Code[] = [
    ...loadState(),
    op.block, // taken: every block
    op.block, // handed back: the block at PTR
    op.loop,
    [op.get(DONE_BLOCKS), op.get(BLOCKS), op.i32GeU, op.brIf(2)],
    [op.get(FIELDS), op.set(FIELDS_BEFORE), op.get(NONBLANK), op.set(NONBLANK_BEFORE)],
    ...classify(),
    ...rows(),
    ...commit(),
    [op.get(PTR), op.i32(BLOCK_BYTES), op.i32Add, op.set(PTR)],
    [op.get(DONE_BLOCKS), op.i32(1), op.i32Add, op.set(DONE_BLOCKS)],
    op.br(0),
    op.end,
    op.end,
    // Only the rows' counts change before a block can be handed back: as they were before it.
    [op.get(FIELDS_BEFORE), op.set(FIELDS), op.get(NONBLANK_BEFORE), op.set(NONBLANK)],
    op.end,
    ...storeState(),
    op.get(DONE_BLOCKS),
  ];
  return assemble({ name: 'scan', params: [I32, I32], results: [I32], locals: LOCALS, body }, 2);
}

const scanner = lazyScanner('csv', csvScannerModule);

/**
 * Reads the whole 64-byte blocks of a check's rows in WebAssembly, a window at a time (`input`: a
 * chunk's bytes after those the window before left unread), handing each block it does not take to
 * `byBytes` (the byte-by-byte reading of that block, false once it found a problem).
 *
 * @example
 * ```ts
 * const blocks = CsvBlocks.create(); // undefined where WebAssembly SIMD is missing
 * blocks.input.fill(chunk, 0);
 * const end = blocks.scan(blocks.input.length, position, 0x2c, 5, (start) => readBytes(start, start + 64));
 * // position now says where the reading is at `end`; fewer than 64 bytes of the window follow it
 * ```
 */
export class CsvBlocks {
  readonly #memory: ScannerMemory;
  readonly input: ChunkWindow;

  private constructor(memory: ScannerMemory) {
    this.#memory = memory;
    this.input = new ChunkWindow(memory.window);
  }

  static create(): CsvBlocks | undefined {
    const memory = scanner();
    return memory ? new CsvBlocks(memory) : undefined;
  }

  /**
   * Reads the whole blocks of the window's first `length` bytes; returns where they end (or where a
   * problem was found).
   */
  scan(
    length: number,
    at: CsvPosition,
    separator: number,
    headerFields: number,
    byBytes: (start: number) => boolean,
  ): number {
    const blocks = length >>> 6;
    let taken = 0;
    while (taken < blocks) {
      this.#write(at, separator, headerFields);
      taken += this.#memory.scanner.scan(WINDOW_AT + taken * BLOCK_BYTES, blocks - taken);
      this.#read(at);
      if (taken === blocks) break;
      if (!byBytes(taken * BLOCK_BYTES)) return taken * BLOCK_BYTES;
      taken += 1;
    }
    return blocks * BLOCK_BYTES;
  }

  #write(at: CsvPosition, separator: number, headerFields: number): void {
    const { words } = this.#memory;
    words[Word.separator / 4] = separator;
    words[Word.headerFields / 4] = headerFields;
    words[Word.quoted / 4] = at.quoted ? 1 : 0;
    words[Word.quoteInQuoted / 4] = at.quoteInQuoted ? 1 : 0;
    words[Word.atFieldStart / 4] = at.atFieldStart ? 1 : 0;
    words[Word.fields / 4] = at.fields;
    words[Word.rowBytes / 4] = at.rowBytes > 0 ? 1 : 0;
    words[Word.line / 4] = at.line;
    words[Word.rowLine / 4] = at.rowLine;
    words[Word.quoteLine / 4] = at.quoteLine;
  }

  #read(at: CsvPosition): void {
    const { words } = this.#memory;
    at.quoted = words[Word.quoted / 4] === 1;
    at.quoteInQuoted = words[Word.quoteInQuoted / 4] === 1;
    at.atFieldStart = words[Word.atFieldStart / 4] === 1;
    at.fields = words[Word.fields / 4] as number;
    at.rowBytes = words[Word.rowBytes / 4] as number;
    at.line = words[Word.line / 4] as number;
    at.rowLine = words[Word.rowLine / 4] as number;
    at.quoteLine = words[Word.quoteLine / 4] as number;
  }
}
