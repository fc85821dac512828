/**
 * UTF-8 validity of a byte stream fed in chunks: a sequence cut by a chunk boundary is carried to the
 * next chunk (at most 3 bytes), each chunk is checked natively (`buffer.isUtf8`), and only a chunk
 * that fails is scanned byte by byte to name the offset.
 */
import { isUtf8 } from 'node:buffer';
import type { ByteCheck } from './problem.ts';

/** The file is not UTF-8 text: the PDS reads imports as UTF-8 (docs/spec-gaps.md). */
const FIX = 'save the file as UTF-8 (in a spreadsheet: "CSV UTF-8"; with iconv: iconv -f LATIN1 -t UTF-8)';

const NOTHING = new Uint8Array(0);

export class Utf8Check implements ByteCheck {
  /** Bytes of a sequence begun at the end of the previous chunk. */
  #carry: Uint8Array = NOTHING;
  /** Offset in the file of the next byte pushed. */
  #offset = 0;
  #problem: string | undefined;

  push(bytes: Uint8Array): void {
    if (this.#problem !== undefined) return;
    const start = this.#offset;
    this.#offset += bytes.length;
    if (start === 0 && startsWithUtf16Mark(bytes)) {
      this.#problem = 'the file is UTF-16 text (it starts with a UTF-16 byte-order mark), not UTF-8';
      return;
    }
    let from = 0;
    if (this.#carry.length > 0) {
      const needed = sequenceLength(this.#carry[0] as number) - this.#carry.length;
      const joined = new Uint8Array(this.#carry.length + Math.min(needed, bytes.length));
      joined.set(this.#carry);
      joined.set(bytes.subarray(0, needed), this.#carry.length);
      if (joined.length < this.#carry.length + needed) {
        this.#carry = joined;
        return;
      }
      if (!isUtf8(joined)) {
        this.#fail(start - this.#carry.length);
        return;
      }
      this.#carry = NOTHING;
      from = needed;
    }
    const cut = completeLength(bytes);
    // The whole chunk as it is where it can be: a view per chunk costs a fresh process its cold code.
    const complete = from === 0 && cut === bytes.length ? bytes : bytes.subarray(from, cut);
    if (cut > from && !isUtf8(complete)) {
      this.#fail(start + from + firstInvalid(complete));
      return;
    }
    const rest = Math.max(cut, from);
    this.#carry = rest === bytes.length ? NOTHING : new Uint8Array(bytes.subarray(rest));
  }

  finish(): { problem: string; fix: string } | undefined {
    if (this.#problem === undefined && this.#carry.length > 0) {
      this.#fail(this.#offset - this.#carry.length);
    }
    return this.#problem === undefined ? undefined : { problem: this.#problem, fix: FIX };
  }

  #fail(offset: number): void {
    this.#problem = `the file is not UTF-8 text: the bytes at offset ${offset} are no UTF-8 character`;
  }
}

function startsWithUtf16Mark(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/** Bytes of the sequence a lead byte starts (1 for ASCII and for bytes that cannot lead, so they fail). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  return 1;
}

/** How many bytes of `bytes` end with a complete sequence: an incomplete one at the end is left out. */
function completeLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] as number;
    if ((byte & 0xc0) !== 0x80) {
      // The last lead byte: keep its sequence for the next chunk if it runs past the end.
      return sequenceLength(byte) > back ? bytes.length - back : bytes.length;
    }
  }
  return bytes.length;
}

/** Offset of the first byte that starts no valid sequence (only called on bytes that failed). */
function firstInvalid(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes[i] as number);
    if (length === 1 && (bytes[i] as number) >= 0x80) return i;
    if (!isUtf8(bytes.subarray(i, i + length))) return i;
    i += length;
  }
  return 0;
}
