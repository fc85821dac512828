/**
 * Just enough of the WebAssembly binary format (core spec 2.0, with the fixed-width SIMD
 * instructions) to assemble one module of one exported function and one exported memory, written
 * in TypeScript as instruction lists. Why not a `.wasm` file: the Lambda bundles are single files
 * built by esbuild, and a module assembled from readable instructions needs no second toolchain
 * and no generated blob to keep in step with its source. The bundles carry the bytes their build
 * assembled (scripts/bundle-options.ts), so only the source, run as it is, assembles at run time.
 */

export const I32 = 0x7f;
export const I64 = 0x7e;
export const V128 = 0x7b;
export type ValueType = typeof I32 | typeof I64 | typeof V128;

/**
 * One instruction or several, as bytes nested as they were written: flattened once when the module
 * is assembled (spreading every list into its parent costs milliseconds before the JIT).
 */
export type Code = readonly (number | Code)[];

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  do {
    const byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    out.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return out;
}

function signedLeb(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/**
 * The bytes of a module, appended in order. Sections and vectors are written as nested code lists
 * flattened once: spreading arrays into arrays made assembling a 2 KB module cost 10-18 ms of cold
 * code (docs/benchmarks.md, "The JSON check's grammar in one jump, and the scanners' first file").
 */
function flattenInto(out: number[], code: Code): void {
  for (let index = 0; index < code.length; index += 1) {
    const item = code[index] as number | Code;
    if (typeof item === 'number') out.push(item);
    else flattenInto(out, item);
  }
}

function flatten(code: Code): number[] {
  const out: number[] = [];
  flattenInto(out, code);
  return out;
}

const vector = (items: Code): Code => [unsignedLeb(items.length), items];
const section = (id: number, body: Code): Code => {
  const bytes = flatten(body);
  return [id, unsignedLeb(bytes.length), bytes];
};
const name = (text: string): Code => vector(Array.from(Buffer.from(text)));

/** The instructions the scanners use, by their text-format names. */
export const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  /** `if` without results: runs its body when the i32 on the stack is not 0. */
  if: [0x04, 0x40],
  br: (depth: number): Code => [0x0c, unsignedLeb(depth)],
  brIf: (depth: number): Code => [0x0d, unsignedLeb(depth)],
  /** `br_table`: branches to `labels[i]` for the i32 i on the stack, to `otherwise` beyond them. */
  brTable: (labels: readonly number[], otherwise: number): Code => [
    0x0e,
    vector(labels.map(unsignedLeb)),
    unsignedLeb(otherwise),
  ],
  select: [0x1b],
  get: (local: number): Code => [0x20, unsignedLeb(local)],
  set: (local: number): Code => [0x21, unsignedLeb(local)],
  tee: (local: number): Code => [0x22, unsignedLeb(local)],
  i32Load: (offset: number): Code => [0x28, 2, unsignedLeb(offset)],
  i64Load: (offset: number): Code => [0x29, 3, unsignedLeb(offset)],
  i64Load8U: (offset: number): Code => [0x31, 0, unsignedLeb(offset)],
  /** i64.load32_u / i64.store32: the shared state is 32-bit words read as i64. */
  load32: (offset: number): Code => [0x35, 2, unsignedLeb(offset)],
  store32: (offset: number): Code => [0x3e, 2, unsignedLeb(offset)],
  i64Store: (offset: number): Code => [0x37, 3, unsignedLeb(offset)],
  i32: (value: number): Code => [0x41, signedLeb(value)],
  i64: (value: number): Code => [0x42, signedLeb(value)],
  i32Eqz: [0x45],
  i32Sub: [0x6b],
  i32GeU: [0x4f],
  i32And: [0x71],
  i32Or: [0x72],
  i32Add: [0x6a],
  i64Eqz: [0x50],
  i64Eq: [0x51],
  i64Ne: [0x52],
  i64LtU: [0x54],
  i64GeU: [0x5a],
  i64Clz: [0x79],
  i64Ctz: [0x7a],
  i64Popcnt: [0x7b],
  i64Add: [0x7c],
  i64Sub: [0x7d],
  i64And: [0x83],
  i64Or: [0x84],
  i64Xor: [0x85],
  i64Shl: [0x86],
  i64ShrU: [0x88],
  i32WrapI64: [0xa7],
  i64ExtendI32S: [0xac],
  i64ExtendI32U: [0xad],
  v128Load: (offset: number): Code => [0xfd, 0x00, 4, unsignedLeb(offset)],
  /** A 16-byte constant, lane 0 first. */
  v128Const: (lanes: readonly number[]): Code => [0xfd, 0x0c, lanes],
  /** Lane i of the first operand at the index in lane i of the second (0 where that is 16 or more). */
  i8x16Swizzle: [0xfd, 0x0e],
  v128And: [0xfd, 0x4e],
  i8x16Add: [0xfd, 0x6e],
  /** Adjacent signed bytes added into 16-bit lanes. */
  i16x8ExtaddPairwiseI8x16S: [0xfd, 0x7c],
  /** Adjacent signed 16-bit lanes added into 32-bit lanes. */
  i32x4ExtaddPairwiseI16x8S: [0xfd, 0x7e],
  i16x8Add: [0xfd, 0x8e, 0x01],
  i32x4ExtractLane: (lane: number): Code => [0xfd, 0x1b, lane],
  i8x16Splat: [0xfd, 0x0f],
  i8x16Eq: [0xfd, 0x23],
  i8x16LtU: [0xfd, 0x26],
  v128Or: [0xfd, 0x50],
  i8x16Bitmask: [0xfd, 0x64],
} as const;

/** The part of the WebAssembly JavaScript API used here (the project's TypeScript libraries have no DOM). */
interface WebAssemblyApi {
  CompileError: new () => Error;
  Module: new (bytes: Uint8Array<ArrayBuffer>) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

/**
 * The exports of an instance of `bytes`, or undefined where the runtime cannot compile them (no
 * WebAssembly, or one without the instructions they use).
 */
export function instantiate(bytes: Uint8Array<ArrayBuffer>): Record<string, unknown> | undefined {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined) return undefined;
  let module: object;
  try {
    // Compiling validates: validating first as well decoded the module twice in a fresh process.
    module = new api.Module(bytes);
  } catch (error) {
    if (error instanceof api.CompileError) return undefined;
    throw error;
  }
  return new api.Instance(module).exports;
}

/** What a block scanner module exports: `scan(i32, i32) -> i32` and its memory. */
export interface Scanner {
  scan(first: number, second: number): number;
  memory: { buffer: ArrayBuffer };
}

/** Bytes a scanner reads at a time: one bit each of a 64-bit mask. */
export const BLOCK_BYTES = 64;
/** Where a scanner's input window starts in its memory: its state words come before it. */
export const WINDOW_AT = 64;
/** Input bytes of a chunk copied into a scanner's memory per call. */
export const WINDOW_BYTES = 1024 * BLOCK_BYTES;

/**
 * A scanner and its memory as its reader uses it: the state words from 0, the input window at
 * WINDOW_AT (WINDOW_BYTES of a chunk, and room before them for fewer than a block carried from the
 * chunk before).
 */
export interface ScannerMemory {
  readonly scanner: Scanner;
  readonly words: Uint32Array;
  readonly window: Uint8Array;
}

/**
 * A check's chunks as its scanner reads them, a window at a time: each window starts with the bytes
 * the one before left unread (fewer than a block), so a chunk's last bytes are read by the scanner
 * with the next chunk's first ones instead of one by one in JavaScript, which cost a fresh process
 * about 5 of the 71 ms of CPU the JSON check of its first 64 MiB file took (docs/benchmarks.md, "Each
 * chunk checked after it is handed on, its last bytes with the next chunk"). The scanner's memory is shared by
 * every check of its kind, and a window is filled and read within one synchronous push, so the
 * carried bytes are kept here between pushes, not there.
 *
 * @example
 * ```ts
 * const input = new ChunkWindow(memory.window);
 * let taken = 0;
 * while (taken < chunk.length) {
 *   taken += input.fill(chunk, taken, chunkOffset); // input.bytes[0, input.length) to read
 *   input.carry(readUpTo(input.length)); // the bytes from there on open the next window
 * }
 * ```
 */
export class ChunkWindow {
  /** The scanner's input window; the bytes of this check in it only between a fill and a carry. */
  readonly bytes: Uint8Array;
  readonly #carried = new Uint8Array(BLOCK_BYTES);
  #carriedLength = 0;
  #length = 0;
  #offset = 0;

  constructor(window: Uint8Array) {
    this.bytes = window;
  }

  /** Bytes in the window since the last fill. */
  get length(): number {
    return this.#length;
  }

  /** Offset in the file of the window's first byte (after a carry: of the first carried byte). */
  get offset(): number {
    return this.#offset;
  }

  /**
   * Fills the window with the carried bytes and then `chunk` from `from` on, as much as fits;
   * returns how many bytes of the chunk it took. `chunkOffset` is the chunk's offset in the file
   * (for `offset`; a reader that names no offsets leaves it out).
   */
  fill(chunk: Uint8Array, from: number, chunkOffset = 0): number {
    const taken = Math.min(WINDOW_BYTES, chunk.length - from);
    const carried = this.#carriedLength;
    for (let k = 0; k < carried; k += 1) this.bytes[k] = this.#carried[k] as number;
    this.bytes.set(
      from === 0 && taken === chunk.length ? chunk : chunk.subarray(from, from + taken),
      carried,
    );
    this.#length = carried + taken;
    this.#offset = chunkOffset + from - carried;
    return taken;
  }

  /** Keeps the window's bytes from `from` on (fewer than a block) to open the next window. */
  carry(from: number): void {
    const left = this.#length - from;
    if (left >= BLOCK_BYTES) throw new RangeError(`${left} bytes left to carry: a scanner reads them`);
    for (let k = 0; k < left; k += 1) this.#carried[k] = this.bytes[from + k] as number;
    this.#carriedLength = left;
    this.#offset += from;
    this.#length = 0;
  }

  /** The bytes carried by the last `carry`: after the last chunk, they are read byte by byte. */
  carried(): Uint8Array {
    return this.#carried.subarray(0, this.#carriedLength);
  }
}

/**
 * The scanners' module bytes as a bundle carries them, base64 by the scanner's name: a bundle's
 * build (scripts/bundle-options.ts) assembles them from the same instruction lists. Undefined where
 * the source runs as it is (tests, the local stack): there the first check assembles its scanner.
 */
declare const PDS_BRIDGE_SCANNER_MODULES: Readonly<Record<string, string>> | undefined;

/** The bytes of scanner `name`: the bundle's, or assembled by `build` where the source runs as it is. */
function scannerBytes(name: string, build: () => Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const bundled =
    typeof PDS_BRIDGE_SCANNER_MODULES === 'undefined' ? undefined : PDS_BRIDGE_SCANNER_MODULES[name];
  return bundled === undefined ? build() : new Uint8Array(Buffer.from(bundled, 'base64'));
}

/**
 * The one instance of scanner `name` (the checks push synchronously, so one is enough), made when
 * the first check of its kind is: or null where the runtime has no WebAssembly SIMD. Not when the
 * module loads: making a scanner costs cold code and about 10 MiB of resident memory, which every
 * process importing the checks (a function handed a ZIP, the drop command) would pay for both
 * scanners (docs/benchmarks.md, "The content check without a second stream"). A bundle carries the
 * module's bytes, so there the first check compiles them instead of assembling them: 3-5 ms of CPU
 * for the JSON scanner in a fresh bundled process instead of 13-19 (docs/benchmarks.md, "The JSON
 * check's members in one step, and the first file's fixed costs"). Either way V8's optimising
 * compile of the scanner follows on a background thread, 5-14 ms of CPU once per process
 * (docs/benchmarks.md, "The 64 MiB row measured with 81 runs, and where a fresh process's check goes").
 */
export function lazyScanner(name: string, build: () => Uint8Array<ArrayBuffer>): () => ScannerMemory | null {
  let memory: ScannerMemory | null | undefined;
  return () => {
    if (memory === undefined) {
      const scanner = instantiate(scannerBytes(name, build)) as Scanner | undefined;
      memory = scanner
        ? {
            scanner,
            words: new Uint32Array(scanner.memory.buffer, 0, WINDOW_AT / 4),
            window: new Uint8Array(scanner.memory.buffer, WINDOW_AT, BLOCK_BYTES + WINDOW_BYTES),
          }
        : null;
    }
    return memory;
  };
}

export interface FunctionSpec {
  /** Exported under this name. */
  name: string;
  params: ValueType[];
  results: ValueType[];
  /** Local variables after the parameters, in order. */
  locals: ValueType[];
  body: Code[];
}

/**
 * The bytes of a module exporting `fn` and a memory of `pages` 64 KiB pages (as `memory`).
 *
 * @example
 * ```ts
 * const bytes = assemble({ name: 'one', params: [], results: [I32], locals: [], body: [op.i32(1)] }, 1);
 * instantiate(bytes)?.one(); // 1
 * ```
 */
export function assemble(fn: FunctionSpec, pages: number): Uint8Array<ArrayBuffer> {
  const type = [0x60, vector(fn.params), vector(fn.results)];
  const code = flatten([vector(fn.locals.map((t) => [1, t])), fn.body, op.end]);
  return new Uint8Array(
    flatten([
      [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      section(1, vector([type])),
      section(3, vector([[0]])),
      section(5, vector([[0x00, unsignedLeb(pages)]])),
      section(
        7,
        vector([
          [name(fn.name), 0x00, 0],
          [name('memory'), 0x02, 0],
        ]),
      ),
      section(10, vector([[unsignedLeb(code.length), code]])),
    ]),
  );
}
