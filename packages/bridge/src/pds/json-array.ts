/**
 * Reads a JSON array answer element by element, so a listing of millions of entries never sits in
 * memory whole: at most the elements of one network chunk, and one element cut by the chunk's end,
 * are held at a time.
 *
 * Each chunk's complete elements are found by following only strings and nesting (a comma outside
 * every string and container ends an element) and read together by `parseJson` (core/json.ts:
 * `JSON.parse`, or @streamparser/json for a text whose keys carry an escape). A listing entry costs
 * the client 0.75 µs of CPU this way against 2.3 when @streamparser/json read every element, and
 * the messaging-asset poller reads the whole listing on every run where the PDS does not page it
 * (docs/benchmarks.md, "The listing read per run").
 */
import type { Readable } from 'node:stream';
import { parseJsonOr } from '../core/index.ts';

/** What the caller names the answer by in errors. */
export type ArrayShapeError = (message: string, cause?: unknown) => Error;

/** An element larger than this is refused rather than held: a listing entry is about 70 bytes. */
export const MAX_ELEMENT_BYTES = 1024 * 1024;

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** Where the reading is: inside a string or not, and how deep below the array. */
interface Split {
  inString: boolean;
  depth: number;
}

/**
 * Scans `bytes` from `from`: the index of the last comma that ends an element (or -1), and of the
 * bracket that closes the array (or -1, and then the scan went to the end); a `}` there is no
 * array's end, which the caller refuses. Inside a string it jumps from quote to quote; `bytes` holds
 * the whole element being read, so the backslashes before a quote are all there to count.
 */
function scan(bytes: Uint8Array, from: number, at: Split): { lastComma: number; close: number } {
  let lastComma = -1;
  let i = from;
  while (i < bytes.length) {
    if (at.inString) {
      const quote = bytes.indexOf(QUOTE, i);
      if (quote === -1) break;
      i = quote + 1;
      if (!escaped(bytes, quote)) at.inString = false;
      continue;
    }
    const byte = bytes[i] as number;
    if (byte === QUOTE) at.inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) at.depth += 1;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (at.depth === 0) return { lastComma, close: i };
      at.depth -= 1;
    } else if (byte === COMMA && at.depth === 0) lastComma = i;
    i += 1;
  }
  return { lastComma, close: -1 };
}

/** Whether the quote at `quote` is escaped: an odd number of backslashes right before it. */
function escaped(bytes: Uint8Array, quote: number): boolean {
  let backslashes = 0;
  for (let k = quote - 1; k >= 0 && bytes[k] === BACKSLASH; k--) backslashes += 1;
  return backslashes % 2 === 1;
}

/** Whether `bytes` holds only JSON white space. */
function blank(bytes: Uint8Array): boolean {
  return bytes.every(isSpace);
}

/**
 * The elements of the JSON array in `body`, in order, a batch per network chunk (the chunk's complete
 * elements; none is empty): a caller iterates each batch without a promise per element. Throws
 * (through `fail`) when the body is not one JSON array, is cut short, has anything after the array,
 * or holds an element larger than {@link MAX_ELEMENT_BYTES}; errors of the body itself pass through.
 * Stopping early (`break`) destroys the body, which releases its connection.
 *
 * @example
 * for await (const batch of jsonArrayBatches(response.body, (message) => new Error(message))) for (const element of batch) use(element);
 */
export async function* jsonArrayBatches(body: Readable, fail: ArrayShapeError): AsyncGenerator<unknown[]> {
  const at: Split = { inString: false, depth: 0 };
  const decoder = new TextDecoder();
  /** Bytes after the last element read: the start of the next one. */
  let pending: Uint8Array = new Uint8Array(0);
  let opened = false;
  let closed = false;
  /** Whether a batch was read before: then an array's last element is never an empty one. */
  let readBefore = false;
  /** The elements in `bytes` (elements separated by commas), read together. */
  const read = (bytes: Uint8Array): unknown[] => {
    if (blank(bytes)) throw fail('the answer is not valid JSON: an empty element in the array');
    const text = `[${decoder.decode(bytes)}]`;
    return parseJsonOr(text, (cause) => fail('the answer is not valid JSON', cause)) as unknown[];
  };
  try {
    for await (const chunk of body) {
      let bytes: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (closed) {
        if (!blank(bytes)) throw fail('the answer is not valid JSON: something follows the array');
        continue;
      }
      if (!opened) {
        const first = bytes.findIndex((byte) => !isSpace(byte));
        if (first === -1) continue;
        if (bytes[first] !== OPEN_ARRAY) throw fail('the answer is not a JSON array');
        opened = true;
        bytes = bytes.subarray(first + 1);
      }
      const from = pending.length;
      const joined = from === 0 ? bytes : Buffer.concat([pending, bytes]);
      const { lastComma, close } = scan(joined, from, at);
      // The element still open at the chunk's end (or the array's last one): it is held until it ends.
      if ((close === -1 ? joined.length : close) - (lastComma + 1) > MAX_ELEMENT_BYTES) {
        throw fail(`an element of the array is larger than ${MAX_ELEMENT_BYTES} bytes`);
      }
      if (close !== -1) {
        closed = true;
        if (joined[close] !== CLOSE_ARRAY) throw fail('the answer is not valid JSON: a } closes the array');
        if (!blank(joined.subarray(close + 1))) {
          throw fail('the answer is not valid JSON: something follows the array');
        }
        const last = joined.subarray(0, close);
        if (readBefore || lastComma !== -1 || !blank(last)) {
          yield read(last);
        }
        pending = new Uint8Array(0);
        continue;
      }
      // A copy: the open element's bytes must not depend on the stream leaving its chunk alone.
      if (lastComma === -1) {
        pending = joined === bytes ? bytes.slice() : joined;
      } else {
        const batch = read(joined.subarray(0, lastComma));
        readBefore = true;
        pending = joined.slice(lastComma + 1);
        yield batch;
      }
    }
    if (!opened) throw fail('an empty body where a JSON array was expected');
    if (!closed) throw fail('the answer ends before its JSON array does');
  } finally {
    if (!body.destroyed) body.destroy();
  }
}
