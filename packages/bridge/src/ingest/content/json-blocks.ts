/**
 * The JSON check's fast path: 64 bytes at a time in WebAssembly SIMD, about a third of the CPU per MiB
 * of reading every byte in JavaScript (docs/benchmarks.md, "Content check").
 *
 * How a window of 64 bytes is read: bitmasks of its quotes, backslashes, control bytes (< 0x20) and
 * white space (one bit per byte). A backslash escapes the byte after it; the quotes it does not escape
 * are the real ones, and the prefix XOR of their mask gives the bytes inside strings, which are then
 * skipped whole. The grammar (json-check.ts's states and its stack of open containers, held as one
 * bit per level) is followed only on the bytes left: real quotes and every byte outside strings that
 * is not white space.
 *
 * The scanner stops before the first byte it cannot vouch for, with the position as it stood there:
 * a control byte inside a string, an escape other than \" \/ \b \f \n \r \t (\\ and \u included), a
 * backslash as the window's last byte, a number or a word (true, false, null), anything the grammar
 * does not allow, nesting deeper than it holds, or a top level that is not an array of objects. The
 * byte-by-byte reading (json-check.ts) reads from there, so it alone words every problem, and hands
 * back once it is between tokens again. The result is the same, byte for byte, as reading every byte
 * (test/unit/ingest-content-check.test.ts holds the two together on random documents cut anywhere).
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

/** The validator's states (numbers: the hot loops compare them). The scanner follows the first seven. */
export const State = {
  Value: 0,
  ArrayValueOrEnd: 1,
  ObjectKeyOrEnd: 2,
  ObjectKey: 3,
  Colon: 4,
  AfterValue: 5,
  String: 6,
  Escape: 7,
  Unicode: 8,
  Literal: 9,
  Minus: 10,
  Zero: 11,
  Integer: 12,
  Dot: 13,
  Fraction: 14,
  Exponent: 15,
  ExponentSign: 16,
  ExponentDigits: 17,
} as const;
export type State = (typeof State)[keyof typeof State];

export const ARRAY = 1;
export const OBJECT = 2;

/** Where the JSON reading is between two bytes: json-check.ts's position, shared with the scanner. */
export interface JsonPosition {
  state: State;
  /** Open containers (ARRAY or OBJECT), outermost first. */
  stack: number[];
  /** Whether the string being read is an object key (a value follows it after `:`). */
  stringIsKey: boolean;
  /** Elements of the top-level array started so far. */
  items: number;
  line: number;
}

/** Open containers the scanner holds (one bit each of a 64-bit word): deeper nesting is read byte by byte. */
export const MAX_BLOCK_DEPTH = 62;

/** The state words in memory (32-bit each, the stack's bits 64-bit), by byte offset. */
const Word = { state: 0, isKey: 4, depth: 8, items: 12, line: 16, bits: 24 } as const;

// The function's parameters and locals, by index.
const [PTR, END] = [0, 1];
const [STATE, IS_KEY, DEPTH, BITS, ITEMS, LINE] = [2, 3, 4, 5, 6, 7];
const [QUOTES, BACKSLASHES, CONTROLS, SPACES, LFS, ESCAPED, INSIDE, STOPS, REST, POS, BYTE, TEMP] = [
  8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
];
/** A number or word's end (the byte after it) and that byte; in classify, each escaped byte and its value. */
const [AT, AT_BYTE] = [20, 21];
/** 1 where a stop is only the window's end: the scanner goes on with a window from there. */
const RESTART = 22;
const VECTORS = [23, 24, 25, 26];
const [V_QUOTE, V_BACKSLASH, V_SPACE, V_LOW_NIBBLE, V_LF, V_WHITE_SPACE] = [27, 28, 29, 30, 31, 32];
/**
 * White space by its low nibble: the one white-space byte with each low nibble (space 0x20, tab 0x09,
 * line feed 0x0a, carriage return 0x0d), and 0x00 for the others, which no byte with that nibble is.
 */
const WHITE_SPACE_BY_NIBBLE = Array.from(
  { length: 16 },
  (_, nibble) => [0x20, 0x09, 0x0a, 0x0d].find((byte) => (byte & 0x0f) === nibble) ?? 0,
);
/** The bytes a backslash may escape here (u is left to the byte-by-byte reading, and so is \\). */
const ESCAPABLE = '"/bfnrt';
/** ESCAPABLE as a set of bits: bytes 0-63 in the first word, 64-127 in the second (each below 2^53). */
const ESCAPABLE_BITS = [0, 1].map((word) =>
  [...ESCAPABLE]
    .map((byte) => byte.charCodeAt(0))
    .filter((code) => code >> 6 === word)
    .reduce((bits, code) => bits + 2 ** (code & 63), 0),
);
/**
 * Line feeds are counted in vectors: the window's (0 to -4 per byte lane) and the sum of the whole
 * windows taken so far (16-bit lanes, at most 1,024 windows per call: -8,192 at most).
 */
const [V_LF_COUNT, V_LINES] = [33, 34];
const LOCALS: ValueType[] = [
  ...Array.from({ length: 21 }, (): ValueType => I64),
  ...Array.from({ length: 12 }, (): ValueType => V128),
];

const ch = (text: string): number => text.charCodeAt(0);
const not = (local: number): Code => [op.get(local), op.i64(-1), op.i64Xor];
const nonZero = (code: Code): Code => [code, op.i64(0), op.i64Ne];
const is = (local: number, value: number): Code => [op.get(local), op.i64(value), op.i64Eq];
const set = (local: number, value: number): Code => [op.i64(value), op.set(local)];
const anyOf = (...conditions: Code[]): Code => [conditions, conditions.slice(1).map(() => op.i32Or)];
const allOf = (...conditions: Code[]): Code => [conditions, conditions.slice(1).map(() => op.i32And)];

/** The bitmask of the window's bytes for which `test` (a v128 of 0x00/0xff lanes from one vector) holds. */
function maskOf(test: (data: number) => Code): Code {
  return VECTORS.flatMap((data, k) => [
    test(data),
    op.i8x16Bitmask,
    op.i64ExtendI32U,
    k === 0 ? [] : [op.i64(16 * k), op.i64Shl, op.i64Or],
  ]);
}
const equal = (splat: number) => (data: number) => [op.get(data), op.get(splat), op.i8x16Eq];

/** A byte is white space when the table's entry for its low nibble is that byte (one lookup, not four compares). */
const whiteSpace = (data: number): Code => [
  [op.get(V_WHITE_SPACE), op.get(data), op.get(V_LOW_NIBBLE), op.v128And, op.i8x16Swizzle],
  [op.get(data), op.i8x16Eq],
];

function loadState(): Code[] {
  const splat = (byte: number, local: number) => [op.i32(byte), op.i8x16Splat, op.set(local)];
  const word = (offset: number, local: number) => [op.i32(0), op.load32(offset), op.set(local)];
  return [
    splat(ch('"'), V_QUOTE),
    splat(ch('\\'), V_BACKSLASH),
    splat(0x20, V_SPACE),
    splat(0x0f, V_LOW_NIBBLE),
    splat(0x0a, V_LF),
    [op.v128Const(WHITE_SPACE_BY_NIBBLE), op.set(V_WHITE_SPACE)],
    word(Word.state, STATE),
    word(Word.isKey, IS_KEY),
    word(Word.depth, DEPTH),
    word(Word.items, ITEMS),
    word(Word.line, LINE),
    [op.i32(0), op.i64Load(Word.bits), op.set(BITS)],
  ];
}

/**
 * The window's masks, the bytes inside strings, the places it must stop (STOPS) and the bytes the
 * grammar reads (REST: real quotes and bytes outside strings that are not white space, below the
 * first stop).
 */
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
    [maskOf(equal(V_QUOTE)), op.set(QUOTES)],
    [maskOf(equal(V_BACKSLASH)), op.set(BACKSLASHES)],
    [maskOf((data) => [op.get(data), op.get(V_SPACE), op.i8x16LtU]), op.set(CONTROLS)],
    [VECTORS.map((data) => equal(V_LF)(data)), op.i8x16Add, op.i8x16Add, op.i8x16Add, op.set(V_LF_COUNT)],
    [maskOf(whiteSpace), op.set(SPACES)],
    // A backslash as the last byte: what it escapes is in the next window.
    [op.get(BACKSLASHES), op.i64(63), op.i64ShrU, op.i64(63), op.i64Shl, op.set(STOPS)],
    [op.get(BACKSLASHES), op.i64(1), op.i64Shl, op.tee(ESCAPED)],
    [op.i64(0), op.i64Ne, op.if],
    unescapable,
    op.end,
    [op.get(QUOTES), not(ESCAPED), op.i64And, op.set(QUOTES)],
    // Inside a string (the opening quote too): an odd number of real quotes up to the byte, or an
    // even number when the window starts inside one.
    [op.get(QUOTES), op.set(TEMP), prefixXor],
    [op.get(TEMP), op.i64(0), op.get(STATE), op.i64(State.String), op.i64Eq, op.i64ExtendI32U, op.i64Sub],
    [op.i64Xor, op.set(INSIDE)],
    // A control byte inside a string.
    [op.get(CONTROLS), op.get(INSIDE), op.i64And, op.get(STOPS), op.i64Or, op.set(STOPS)],
    [op.get(INSIDE), op.get(SPACES), op.i64Or, op.i64(-1), op.i64Xor, op.get(QUOTES), op.i64Or],
    // ... below the first stop (every bit when there is none).
    [op.get(STOPS), op.i64(1), op.i64Sub, not(STOPS), op.i64And, op.i64And, op.set(REST)],
  ];
}

/** The byte at PTR + AT into AT_BYTE. */
const loadAt: Code = [op.get(PTR), op.get(AT), op.i32WrapI64, op.i32Add, op.i64Load8U(0), op.set(AT_BYTE)];
/**
 * An escape of a byte not in ESCAPABLE: stop at its backslash. Escapes are few, so each escaped byte
 * is looked up in ESCAPABLE_BITS alone, not the whole window compared with each escapable byte (seven
 * more vectors held across the loop).
 */
const unescapable: Code = [
  [op.get(ESCAPED), op.set(TEMP)],
  op.block,
  op.loop,
  [op.get(TEMP), op.i64Eqz, op.brIf(1)],
  [op.get(TEMP), op.i64Ctz, op.set(AT), loadAt],
  [op.i64(ESCAPABLE_BITS[0] ?? 0), op.i64(ESCAPABLE_BITS[1] ?? 0)],
  [op.get(AT_BYTE), op.i64(64), op.i64LtU, op.select, op.get(AT_BYTE), op.i64ShrU],
  [op.i64(1), op.i64And, op.i64Eqz, op.get(AT_BYTE), op.i64(128), op.i64GeU, op.i32Or, op.if],
  [op.i64(1), op.get(AT), op.i64(1), op.i64Sub, op.i64Shl, op.get(STOPS), op.i64Or, op.set(STOPS)],
  op.end,
  [op.get(TEMP), op.get(TEMP), op.i64(1), op.i64Sub, op.i64And, op.set(TEMP), op.br(0)],
  op.end,
  op.end,
];

const isDigit = (local: number): Code => [op.get(local), op.i64(0x30), op.i64Sub, op.i64(10), op.i64LtU];
/** Moves AT past the digits from AT on (not past the window's end). */
const digits: Code = [
  op.block,
  op.loop,
  [op.get(AT), op.i64(BLOCK_BYTES), op.i64GeU, op.brIf(1)],
  [loadAt, isDigit(AT_BYTE), op.i32Eqz, op.brIf(1)],
  [op.get(AT), op.i64(1), op.i64Add, op.set(AT), op.br(0)],
  op.end,
  op.end,
];
/**
 * Inside a `block` (depth 0) within the case's `if` (depth 1): a value ended at AT, before the
 * window's end and before a byte that may follow a value (else out of the block: stop). The bytes
 * up to AT are taken, and the byte-by-byte reading's number or word states never show; `next` is the
 * branch to the next byte from there.
 */
const valueEndsAt = (next: Code): Code => [
  [op.get(AT), op.i64(BLOCK_BYTES), op.i64GeU, op.i64ExtendI32U, op.set(RESTART)],
  [nonZero(op.get(RESTART)), op.brIf(0)],
  loadAt,
  anyOf(...[',', '}', ']', ' ', '\t', '\n', '\r'].map((byte) => is(AT_BYTE, ch(byte)))),
  [op.i32Eqz, op.brIf(0)],
  [op.get(REST), op.i64(-1), op.get(AT), op.i64Shl, op.i64And, op.set(REST)],
  set(STATE, State.AfterValue),
  next,
];
/** A number without an exponent (-?(0|[1-9][0-9]*)(.[0-9]+)?): others are read byte by byte. */
const number = (next: Code): Code => [
  op.block,
  [op.get(POS), is(BYTE, ch('-')), op.i64ExtendI32U, op.i64Add, op.set(AT), loadAt],
  [isDigit(AT_BYTE), op.i32Eqz, op.brIf(0)],
  [op.get(AT), op.i64(1), op.i64Add, op.set(AT)],
  [is(AT_BYTE, ch('0')), op.i32Eqz, op.if, digits, op.end],
  [loadAt, is(AT_BYTE, ch('.')), op.if],
  [op.get(AT), op.i64(1), op.i64Add, op.set(AT), loadAt, isDigit(AT_BYTE), op.i32Eqz, op.brIf(1)],
  [digits, op.end],
  valueEndsAt(next),
  op.end,
];
/** true, null or false. */
const word = (next: Code): Code => [
  op.block,
  [op.get(PTR), op.get(POS), op.i32WrapI64, op.i32Add, op.i32Load(0), op.i64ExtendI32U, op.set(AT_BYTE)],
  [op.get(POS), op.i64(4), op.i64Add, op.set(AT)],
  [anyOf(is(AT_BYTE, 0x65757274), is(AT_BYTE, 0x6c6c756e)), op.i32Eqz, op.if],
  [is(AT_BYTE, 0x736c6166), op.i32Eqz, op.brIf(1)],
  [loadAt, is(AT_BYTE, ch('e')), op.i32Eqz, op.brIf(1)],
  [op.get(AT), op.i64(1), op.i64Add, op.set(AT)],
  op.end,
  valueEndsAt(next),
  op.end,
];

/**
 * The grammar's cases, one per state, in the order of their blocks: the state picks its case with
 * one `br_table` (testing the cases one after another cost most of the check's time), and a case
 * that takes no byte falls into the next where that one reads on (an empty array's `]`, then any
 * value; an empty object's `}`, then a key) or stops.
 */
const CASES = [
  State.String,
  State.ArrayValueOrEnd,
  State.Value,
  State.ObjectKeyOrEnd,
  State.ObjectKey,
  State.Colon,
  State.AfterValue,
] as const;

/**
 * The cases' helpers. From the code of case k (after its block's end), the branch depths count the
 * later cases' blocks, the grammar's own block (leaving it is "stop"), then the byte loop; `inner`
 * counts the blocks opened inside the case.
 */
const stop = (k: number, inner = 0): Code => op.br(CASES.length - 1 - k + inner);
const next = (k: number, inner = 0): Code => op.br(CASES.length - k + inner);
const when = (k: number, condition: Code, then: Code[]): Code => [condition, op.if, then, next(k, 1), op.end];
const depthAtLeast = (n: number): Code => [op.get(DEPTH), op.i64(n), op.i64GeU];
const notTooDeep: Code = [op.get(DEPTH), op.i64(MAX_BLOCK_DEPTH), op.i64LtU];
/** The open container's kind: 1 for an object (only read where DEPTH > 0). */
const top = [op.get(BITS), op.get(DEPTH), op.i64(1), op.i64Sub, op.i64ShrU, op.i64(1), op.i64And];
const at = (state: State): number => CASES.indexOf(state as (typeof CASES)[number]);
const takeNext: Code = [op.get(REST), op.get(REST), op.i64(1), op.i64Sub, op.i64And, op.set(REST)];
const nextIs = (byte: string): Code => [
  [op.get(PTR), op.get(REST), op.i64Ctz, op.i32WrapI64, op.i32Add, op.i64Load8U(0)],
  [op.i64(ch(byte)), op.i64Eq],
];
const close = (k: number, byte: string, kind: number): Code =>
  when(k, allOf(is(BYTE, ch(byte)), depthAtLeast(1), [top, op.i64(kind), op.i64Eq]), [
    [op.get(DEPTH), op.i64(1), op.i64Sub, op.set(DEPTH), set(STATE, State.AfterValue)],
  ]);
/**
 * A string value's opening quote just taken after a key's ":" (inside `depth` blocks of case k): its
 * closing quote, and a "," after it (an object's next member).
 */
const stringAfterColon = (k: number, depth: number): Code => [
  [op.get(REST), op.i64Eqz, op.if, set(IS_KEY, 0), set(STATE, State.String), next(k, depth + 1), op.end],
  [takeNext, set(STATE, State.AfterValue)],
  [nonZero(op.get(REST)), op.if, nextIs(','), op.if, takeNext, set(STATE, State.ObjectKey), op.end, op.end],
];
/**
 * An opening quote (inside `depth` blocks of its case): the next byte the grammar reads is the
 * closing quote, everything between is masked, so both are taken in one step, and a key's ":"
 * after them too, then a string value after the ":" and a "," after that (an object's member in
 * one step: each step through the state's jump costs about as much as the work of a case). A
 * string that runs past the window is read on in the String state.
 */
const openingQuote = (k: number, isKey: boolean, depth: number): Code => [
  [op.get(REST), op.i64Eqz, op.if],
  [set(IS_KEY, isKey ? 1 : 0), set(STATE, State.String), next(k, depth + 1), op.end],
  takeNext,
  isKey
    ? [
        [nonZero(op.get(REST)), op.if, nextIs(':'), op.if, takeNext, set(STATE, State.Value)],
        [nonZero(op.get(REST)), op.if, nextIs('"'), op.if, takeNext, stringAfterColon(k, depth + 4)],
        [op.end, op.end, next(k, depth + 2), op.end, op.end, set(STATE, State.Colon)],
      ]
    : set(STATE, State.AfterValue),
];

/**
 * One byte the grammar reads (BYTE, at POS), inside the byte loop: each case ends with `br` to the
 * next byte (the loop); a byte no case takes leaves the grammar (the caller stops there).
 */
function grammar(): Code[] {
  const cases: Record<(typeof CASES)[number], Code> = {
    // The quote that ends the string: whether a value or a ":" follows depends on what it was.
    [State.String]: [
      [op.i64(State.Colon), op.i64(State.AfterValue), op.get(IS_KEY), op.i32WrapI64, op.select],
      [op.set(STATE), next(at(State.String))],
    ],
    [State.ArrayValueOrEnd]: close(at(State.ArrayValueOrEnd), ']', 0),
    [State.Value]: (() => {
      const k = at(State.Value);
      const inItem = depthAtLeast(2);
      return [
        // A string value: not at the top level, nor as an item (items are objects).
        when(k, allOf(is(BYTE, ch('"')), inItem), [openingQuote(k, false, 1)]),
        // A number or a word inside an item; one that does not end in this window stops here.
        [
          allOf(inItem, anyOf(is(BYTE, ch('-')), isDigit(BYTE))),
          op.if,
          number(next(k, 2)),
          stop(k, 1),
          op.end,
        ],
        // An object: an item (counted) or deeper; the top level is an array.
        when(k, allOf(is(BYTE, ch('{')), depthAtLeast(1), notTooDeep), [
          [op.get(ITEMS), is(DEPTH, 1), op.i64ExtendI32U, op.i64Add, op.set(ITEMS)],
          [op.get(BITS), op.i64(1), op.get(DEPTH), op.i64Shl, op.i64Or, op.set(BITS)],
          [op.get(DEPTH), op.i64(1), op.i64Add, op.set(DEPTH), set(STATE, State.ObjectKeyOrEnd)],
        ]),
        // An array: the top level, or deeper than the items.
        when(k, allOf(is(BYTE, ch('[')), [is(DEPTH, 1), op.i32Eqz], notTooDeep), [
          [op.get(BITS), op.i64(1), op.get(DEPTH), op.i64Shl, op.i64(-1), op.i64Xor, op.i64And, op.set(BITS)],
          [op.get(DEPTH), op.i64(1), op.i64Add, op.set(DEPTH), set(STATE, State.ArrayValueOrEnd)],
        ]),
        [inItem, op.if, word(next(k, 2)), op.end],
        stop(k),
      ];
    })(),
    [State.ObjectKeyOrEnd]: close(at(State.ObjectKeyOrEnd), '}', 1),
    [State.ObjectKey]: [
      when(at(State.ObjectKey), is(BYTE, ch('"')), [openingQuote(at(State.ObjectKey), true, 1)]),
      stop(at(State.ObjectKey)),
    ],
    [State.Colon]: [
      when(at(State.Colon), is(BYTE, ch(':')), [set(STATE, State.Value)]),
      stop(at(State.Colon)),
    ],
    [State.AfterValue]: [
      when(at(State.AfterValue), allOf(is(BYTE, ch(',')), depthAtLeast(1)), [
        [op.i64(State.ObjectKey), op.i64(State.Value), top, op.i32WrapI64, op.select, op.set(STATE)],
      ]),
      close(at(State.AfterValue), '}', 1),
      close(at(State.AfterValue), ']', 0),
    ],
  };
  // The label of each state's case (the scanner runs only in the states up to String).
  const labels = Array.from({ length: State.String + 1 }, (_, state) => at(state as State));
  return [
    op.block,
    CASES.map(() => op.block),
    [op.get(STATE), op.i32WrapI64, op.brTable(labels, CASES.length)],
    CASES.map((state) => [op.end, cases[state]]),
    op.end,
  ];
}

/**
 * `scan(ptr, end)`: reads windows of 64 bytes from `ptr` while one fits before `end`; returns where
 * it stopped, the position there in memory.
 */
export function jsonScannerModule(): Uint8Array<ArrayBuffer> {
  const linesBelow = (stop: Code): Code => [
    [maskOf(equal(V_LF)), op.set(LFS)],
    op.get(LINE),
    op.get(LFS),
    op.i64(1),
    stop,
    op.i64Shl,
    op.i64(1),
    op.i64Sub,
    op.i64And,
    op.i64Popcnt,
    op.i64Add,
    op.set(LINE),
  ];
  const body: Code[] = [
    ...loadState(),
    op.block, // out: no whole window left, or stopped for the byte-by-byte reading
    op.loop, // windows
    [op.get(END), op.get(PTR), op.i32Sub, op.i32(BLOCK_BYTES), op.i32GeU, op.i32Eqz, op.brIf(1)],
    op.block, // stopped: before the byte at PTR + POS
    ...classify(),
    op.block,
    op.loop,
    [op.get(REST), op.i64Eqz, op.brIf(1)],
    [op.get(REST), op.i64Ctz, op.set(POS), set(RESTART, 0)],
    [op.get(REST), op.get(REST), op.i64(1), op.i64Sub, op.i64And, op.set(REST)],
    [op.get(PTR), op.get(POS), op.i32WrapI64, op.i32Add, op.i64Load8U(0), op.set(BYTE)],
    ...grammar(),
    // No case took the byte: stop before it.
    op.br(2),
    op.end,
    op.end,
    [op.get(STOPS), op.i64Ctz, op.set(POS), set(RESTART, 1), nonZero(op.get(STOPS)), op.brIf(0)],
    [op.get(V_LINES), op.get(V_LF_COUNT), op.i16x8ExtaddPairwiseI8x16S, op.i16x8Add, op.set(V_LINES)],
    [op.get(PTR), op.i32(BLOCK_BYTES), op.i32Add, op.set(PTR), op.br(1)],
    op.end,
    linesBelow(op.get(POS)),
    [op.get(PTR), op.get(POS), op.i32WrapI64, op.i32Add, op.set(PTR)],
    // A value running past the window's end, or a backslash as its last byte: a window from there
    // reads it whole (unless it starts there: then it is longer than a window).
    [op.get(RESTART), op.i32WrapI64, nonZero(op.get(POS)), op.i32And, op.brIf(0)],
    op.end,
    op.end,
    [op.i32(0), op.get(STATE), op.store32(Word.state)],
    [op.i32(0), op.get(IS_KEY), op.store32(Word.isKey)],
    [op.i32(0), op.get(DEPTH), op.store32(Word.depth)],
    [op.i32(0), op.get(ITEMS), op.store32(Word.items)],
    [op.get(V_LINES), op.i32x4ExtaddPairwiseI16x8S, op.set(V_LINES)],
    [
      op.get(LINE),
      [0, 1, 2, 3].map((lane) => [op.get(V_LINES), op.i32x4ExtractLane(lane), op.i64ExtendI32S, op.i64Sub]),
    ],
    [op.set(LINE), op.i32(0), op.get(LINE), op.store32(Word.line)],
    [op.i32(0), op.get(BITS), op.i64Store(Word.bits)],
    op.get(PTR),
  ];
  return assemble({ name: 'scan', params: [I32, I32], results: [I32], locals: LOCALS, body }, 2);
}

const scanner = lazyScanner('json', jsonScannerModule);

/**
 * Reads a check's chunks 64 bytes at a time in WebAssembly, a window at a time (`input`: a chunk's
 * bytes after those the window before left unread), stopping where the byte-by-byte reading must
 * take over.
 *
 * @example
 * ```ts
 * const blocks = JsonBlocks.create(); // undefined where WebAssembly SIMD is missing
 * blocks.input.fill(chunk, 0, chunkOffset);
 * const stop = blocks.scan(0, blocks.input.length, position);
 * // position now says where the reading is at `stop`: before a byte only the byte-by-byte reading
 * // takes, or fewer than 64 bytes before the window's end
 * ```
 */
export class JsonBlocks {
  readonly #memory: ScannerMemory;
  readonly input: ChunkWindow;

  private constructor(memory: ScannerMemory) {
    this.#memory = memory;
    this.input = new ChunkWindow(memory.window);
  }

  static create(): JsonBlocks | undefined {
    const memory = scanner();
    return memory ? new JsonBlocks(memory) : undefined;
  }

  /**
   * Reads the window from `from` to `end` (the position must be between tokens or in a string, the
   * stack not too deep); returns where it stopped.
   */
  scan(from: number, end: number, at: JsonPosition): number {
    this.#write(at);
    const stop = this.#memory.scanner.scan(WINDOW_AT + from, WINDOW_AT + end) - WINDOW_AT;
    this.#read(at);
    return stop;
  }

  #write(at: JsonPosition): void {
    const { words } = this.#memory;
    let low = 0;
    let high = 0;
    const { stack } = at;
    for (let level = 0; level < stack.length; level += 1) {
      if (stack[level] !== OBJECT) continue;
      if (level < 32) low |= 1 << level;
      else high |= 1 << (level - 32);
    }
    words[Word.state / 4] = at.state;
    words[Word.isKey / 4] = at.stringIsKey ? 1 : 0;
    words[Word.depth / 4] = stack.length;
    words[Word.items / 4] = at.items;
    words[Word.line / 4] = at.line;
    words[Word.bits / 4] = low;
    words[Word.bits / 4 + 1] = high;
  }

  #read(at: JsonPosition): void {
    const { words } = this.#memory;
    at.state = words[Word.state / 4] as State;
    at.stringIsKey = words[Word.isKey / 4] === 1;
    at.items = words[Word.items / 4] as number;
    at.line = words[Word.line / 4] as number;
    const depth = words[Word.depth / 4] as number;
    const low = words[Word.bits / 4] as number;
    const high = words[Word.bits / 4 + 1] as number;
    const { stack } = at;
    // Shrunk and grown without holes: a holey stack would change the position's hidden class, and
    // the next check's position would then throw the optimised reading back to the interpreter once.
    while (stack.length > depth) stack.pop();
    for (let level = 0; level < depth; level += 1) {
      const bit = level < 32 ? (low >>> level) & 1 : (high >>> (level - 32)) & 1;
      if (level < stack.length) stack[level] = bit === 1 ? OBJECT : ARRAY;
      else stack.push(bit === 1 ? OBJECT : ARRAY);
    }
  }
}
