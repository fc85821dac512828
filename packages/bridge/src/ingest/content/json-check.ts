/**
 * What a JSON import needs, checked byte by byte as the file streams (docs/spec-gaps.md, "Import
 * content"): one well-formed JSON text (RFC 8259) whose top level is an array of objects, the items.
 *
 * A validator of its own rather than @streamparser/json: that library's tokenizer leaves the grammar
 * to its parser, which builds every value; checking needs neither the values nor the strings, only a
 * state and the stack of open containers, so memory stays flat however large the file or its strings.
 *
 * Most of the file is read 64 bytes at a time by json-blocks.ts (WebAssembly SIMD): strings skipped
 * by bitmask, the grammar followed on the bytes between them. Where it stops (a number, a word, an
 * escape it does not take, anything wrong) the bytes are read here one by one until the reading is
 * between tokens again, and only this reading words a problem.
 */
import { ARRAY, JsonBlocks, type JsonPosition, MAX_BLOCK_DEPTH, OBJECT, State } from './json-blocks.ts';
import type { ByteCheck } from './problem.ts';
import { BLOCK_BYTES } from './wasm-module.ts';

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/** Deeper nesting is reported rather than followed: the stack is the only thing that grows. */
export const MAX_JSON_DEPTH = 10_000;

const FIX =
  'make the file one JSON array of item objects, e.g. [{"primaryKey__":"4006381333931","name":"Water"}] (check it with: node -e "JSON.parse(require(\'fs\').readFileSync(process.argv[1]))" FILE)';

const LITERALS: Record<number, Uint8Array> = {
  116: new TextEncoder().encode('true'),
  102: new TextEncoder().encode('false'),
  110: new TextEncoder().encode('null'),
};

export interface JsonCheckOptions {
  /**
   * Read with WebAssembly SIMD where the runtime has it (json-blocks.ts), the rest byte by byte;
   * false reads every byte in JavaScript. Same verdict either way. Default true.
   */
  simd?: boolean;
}

export class JsonCheck implements ByteCheck {
  /** The fast path, or undefined to read every byte here. */
  readonly #blocks: JsonBlocks | undefined;
  readonly #at: JsonPosition = { state: State.Value, stack: [], stringIsKey: false, items: 0, line: 1 };
  #unicodeLeft = 0;
  #literal: Uint8Array | undefined;
  #literalAt = 0;
  /** Bytes pushed so far. */
  #pushed = 0;
  /** Offset in the file of the first byte of the bytes being read. */
  #base = 0;
  #started = false;
  #problem: string | undefined;

  constructor(options: JsonCheckOptions = {}) {
    this.#blocks = options.simd === false ? undefined : JsonBlocks.create();
  }

  push(bytes: Uint8Array): void {
    let i = 0;
    if (!this.#started && bytes.length > 0) {
      this.#started = true;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    }
    const chunkOffset = this.#pushed;
    this.#pushed += bytes.length;
    const blocks = this.#blocks;
    if (blocks === undefined) {
      this.#base = chunkOffset;
      this.#readBytes(bytes, i, bytes.length, false);
      return;
    }
    const { input } = blocks;
    while (i < bytes.length && this.#problem === undefined) {
      i += input.fill(bytes, i, chunkOffset);
      this.#base = input.offset;
      input.carry(this.#readWindow(blocks, input.length));
    }
  }

  /**
   * Reads the window's `length` bytes: by the scanner while a whole block is left, byte by byte where
   * it stops. Returns where the bytes it leaves to the next window start: fewer than a block, when the
   * scanner can read on there; else `length`.
   */
  #readWindow(blocks: JsonBlocks, length: number): number {
    let i = 0;
    while (i < length && this.#problem === undefined) {
      if (this.#scannable()) {
        if (length - i < BLOCK_BYTES) return i;
        i = blocks.scan(i, length, this.#at);
        if (length - i < BLOCK_BYTES) continue;
      }
      i = this.#readBytes(blocks.input.bytes, i, length, true);
    }
    return length;
  }

  /** Whether the scanner can read on from here: between tokens or in a string, the stack not too deep. */
  #scannable(): boolean {
    return this.#at.state <= State.String && this.#at.stack.length <= MAX_BLOCK_DEPTH;
  }

  /**
   * Reads `bytes` from `from` to `end` one by one; returns where it stopped: at the end, at a problem
   * or, with `handBack`, after at least one byte, where the scanner can read on.
   */
  #readBytes(bytes: Uint8Array, from: number, end: number, handBack: boolean): number {
    let i = from;
    for (; i < end && this.#problem === undefined; i += 1) {
      if (handBack && i > from && this.#scannable()) return i;
      if (this.#at.state === State.String) {
        // The hot loop: most bytes of a JSON file are inside strings.
        let byte = bytes[i] as number;
        while (byte !== QUOTE && byte !== BACKSLASH && byte >= SPACE && i < end - 1) {
          i += 1;
          byte = bytes[i] as number;
        }
        if (byte === QUOTE) this.#endString();
        else if (byte === BACKSLASH) this.#at.state = State.Escape;
        else if (byte < SPACE)
          this.#fail(i, 'a control character (a raw line break or tab?) inside a string');
        continue;
      }
      const byte = bytes[i] as number;
      if (byte === SPACE || byte === LF || byte === CR || byte === TAB) {
        if (byte === LF) this.#at.line += 1;
        // Between tokens white space changes nothing; it ends a number or a word (below).
        if (this.#at.state <= State.AfterValue) continue;
      }
      this.#step(byte, i);
    }
    return i;
  }

  finish(): { problem: string; fix: string } | undefined {
    const input = this.#blocks?.input;
    if (input !== undefined && this.#problem === undefined) {
      // The last chunk's last bytes, left for a next one.
      const carried = input.carried();
      this.#base = input.offset;
      this.#readBytes(carried, 0, carried.length, false);
    }
    if (this.#problem === undefined && this.#isNumberEnd()) this.#at.state = State.AfterValue;
    if (
      this.#problem === undefined &&
      !(this.#at.state === State.AfterValue && this.#at.stack.length === 0)
    ) {
      this.#problem = this.#started
        ? `the JSON text ends early, on line ${this.#at.line} (an unclosed ${this.#at.stack.at(-1) === OBJECT ? 'object' : this.#at.stack.length > 0 ? 'array' : 'value'})`
        : 'the file is empty';
    }
    return this.#problem === undefined ? undefined : { problem: this.#problem, fix: FIX };
  }

  #step(byte: number, at: number): void {
    switch (this.#at.state) {
      case State.Value:
        this.#value(byte, at);
        return;
      case State.ArrayValueOrEnd:
        if (isSpace(byte)) return;
        if (byte === 0x5d) {
          this.#close(ARRAY, at);
          return;
        }
        this.#value(byte, at);
        return;
      case State.ObjectKeyOrEnd:
        if (isSpace(byte)) return;
        if (byte === 0x7d) {
          this.#close(OBJECT, at);
          return;
        }
        this.#key(byte, at);
        return;
      case State.ObjectKey:
        if (isSpace(byte)) return;
        this.#key(byte, at);
        return;
      case State.Colon:
        if (isSpace(byte)) return;
        if (byte === 0x3a) this.#at.state = State.Value;
        else this.#fail(at, `${describe(byte)} where a ":" should follow the key`);
        return;
      case State.AfterValue:
        this.#afterValue(byte, at);
        return;
      case State.Escape:
        if (byte === 0x75) {
          this.#at.state = State.Unicode;
          this.#unicodeLeft = 4;
        } else if ('"\\/bfnrt'.includes(String.fromCharCode(byte))) this.#at.state = State.String;
        else this.#fail(at, `an invalid escape \\${String.fromCharCode(byte)} in a string`);
        return;
      case State.Unicode:
        if (!isHex(byte)) {
          this.#fail(at, 'an invalid \\u escape in a string (it needs 4 hex digits)');
          return;
        }
        this.#unicodeLeft -= 1;
        if (this.#unicodeLeft === 0) this.#at.state = State.String;
        return;
      case State.Literal:
        this.#literalByte(byte, at);
        return;
      default:
        this.#number(byte, at);
        return;
    }
  }

  #value(byte: number, at: number): void {
    if (isSpace(byte)) return;
    const depth = this.#at.stack.length;
    if (depth === 0 && byte !== 0x5b) {
      this.#fail(at, `the top level is ${kindOf(byte)}, not an array of items`);
      return;
    }
    if (depth === 1 && byte !== 0x7b && startsValue(byte)) {
      this.#fail(at, `item ${this.#at.items + 1} of the top-level array is ${kindOf(byte)}, not an object`);
      return;
    }
    if (depth === 1) this.#at.items += 1;
    if (byte === 0x5b || byte === 0x7b) {
      if (depth >= MAX_JSON_DEPTH) {
        this.#fail(at, `values nested more than ${MAX_JSON_DEPTH} deep`);
        return;
      }
      this.#at.stack.push(byte === 0x5b ? ARRAY : OBJECT);
      this.#at.state = byte === 0x5b ? State.ArrayValueOrEnd : State.ObjectKeyOrEnd;
    } else if (byte === QUOTE) {
      this.#at.stringIsKey = false;
      this.#at.state = State.String;
    } else if (LITERALS[byte]) {
      this.#literal = LITERALS[byte];
      this.#literalAt = 1;
      this.#at.state = State.Literal;
    } else if (byte === 0x2d) this.#at.state = State.Minus;
    else if (byte === 0x30) this.#at.state = State.Zero;
    else if (byte >= 0x31 && byte <= 0x39) this.#at.state = State.Integer;
    else this.#fail(at, `${describe(byte)} where a value should be`);
  }

  #key(byte: number, at: number): void {
    if (byte !== QUOTE) {
      this.#fail(at, `${describe(byte)} where a quoted key should be`);
      return;
    }
    this.#at.stringIsKey = true;
    this.#at.state = State.String;
  }

  #endString(): void {
    this.#at.state = this.#at.stringIsKey ? State.Colon : State.AfterValue;
  }

  #afterValue(byte: number, at: number): void {
    if (isSpace(byte)) return;
    const open = this.#at.stack.at(-1);
    if (open === undefined) {
      this.#fail(at, `${describe(byte)} after the end of the JSON text`);
      return;
    }
    if (byte === COMMA) {
      this.#at.state = open === ARRAY ? State.Value : State.ObjectKey;
    } else if (byte === 0x5d || byte === 0x7d) {
      this.#close(byte === 0x5d ? ARRAY : OBJECT, at);
    } else {
      this.#fail(
        at,
        `${describe(byte)} where a "," or the end of the ${open === ARRAY ? 'array' : 'object'} should be`,
      );
    }
  }

  #close(kind: number, at: number): void {
    if (this.#at.stack.at(-1) !== kind) {
      this.#fail(
        at,
        `a "${kind === ARRAY ? ']' : '}'}" that closes no ${kind === ARRAY ? 'array' : 'object'}`,
      );
      return;
    }
    this.#at.stack.pop();
    this.#at.state = State.AfterValue;
  }

  #literalByte(byte: number, at: number): void {
    const literal = this.#literal as Uint8Array;
    if (byte !== literal[this.#literalAt]) {
      this.#fail(at, `an unknown word (not ${new TextDecoder().decode(literal)}, and strings need quotes)`);
      return;
    }
    this.#literalAt += 1;
    if (this.#literalAt === literal.length) this.#at.state = State.AfterValue;
  }

  #number(byte: number, at: number): void {
    const digit = byte >= 0x30 && byte <= 0x39;
    switch (this.#at.state) {
      case State.Minus:
        if (byte === 0x30) this.#at.state = State.Zero;
        else if (digit) this.#at.state = State.Integer;
        else this.#fail(at, 'a "-" without digits');
        return;
      case State.Integer:
        if (digit) return;
        break;
      case State.Dot:
        if (digit) this.#at.state = State.Fraction;
        else this.#fail(at, 'a number with no digits after its "."');
        return;
      case State.Fraction:
        if (digit) return;
        break;
      case State.Exponent:
        if (byte === 0x2b || byte === 0x2d) this.#at.state = State.ExponentSign;
        else if (digit) this.#at.state = State.ExponentDigits;
        else this.#fail(at, 'a number with no digits in its exponent');
        return;
      case State.ExponentSign:
        if (digit) this.#at.state = State.ExponentDigits;
        else this.#fail(at, 'a number with no digits in its exponent');
        return;
      case State.ExponentDigits:
        if (digit) return;
        this.#endNumber(byte, at);
        return;
    }
    // Zero, Integer or Fraction, and the byte is no digit of theirs.
    if (byte === 0x2e && this.#at.state !== State.Fraction) this.#at.state = State.Dot;
    else if (byte === 0x65 || byte === 0x45) this.#at.state = State.Exponent;
    else if (digit) this.#fail(at, 'a number with a leading zero');
    else this.#endNumber(byte, at);
  }

  #endNumber(byte: number, at: number): void {
    this.#at.state = State.AfterValue;
    this.#afterValue(byte, at);
  }

  #isNumberEnd(): boolean {
    return (
      this.#at.state === State.Zero ||
      this.#at.state === State.Integer ||
      this.#at.state === State.Fraction ||
      this.#at.state === State.ExponentDigits
    );
  }

  #fail(at: number, what: string): void {
    this.#problem = `line ${this.#at.line} (offset ${this.#base + at}): ${what}`;
  }
}

function isSpace(byte: number): boolean {
  return byte === SPACE || byte === LF || byte === CR || byte === TAB;
}

function isHex(byte: number): boolean {
  return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66);
}

function startsValue(byte: number): boolean {
  return (
    byte === 0x7b ||
    byte === 0x5b ||
    byte === QUOTE ||
    byte === 0x2d ||
    (byte >= 0x30 && byte <= 0x39) ||
    LITERALS[byte] !== undefined
  );
}

/** What a value starting with `byte` is, in words. */
function kindOf(byte: number): string {
  if (byte === 0x7b) return 'an object';
  if (byte === 0x5b) return 'an array';
  if (byte === QUOTE) return 'a string';
  if (byte === 0x2d || (byte >= 0x30 && byte <= 0x39)) return 'a number';
  if (LITERALS[byte]) return 'true, false or null';
  return describe(byte);
}

function describe(byte: number): string {
  return byte >= 0x21 && byte <= 0x7e
    ? `"${String.fromCharCode(byte)}"`
    : `byte 0x${byte.toString(16).padStart(2, '0')}`;
}
