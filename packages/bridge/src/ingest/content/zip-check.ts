/**
 * The members of a ZIP archive, checked as the archive streams: each local file header is read in
 * turn and the member's bytes (inflated with node:zlib when deflated) go to the check of its kind,
 * so a broken CSV or JSON inside an archive is found like a dropped one. Only headers and the
 * inflater's window are held, never a member.
 *
 * What cannot be followed while streaming ends the check without a verdict on the rest (the PDS
 * decides): an encrypted member, a compression other than stored and deflate, or a stored member
 * whose size comes only after its data. Deflated members with sizes after their data (Java's
 * ZipOutputStream, yazl) are followed: the inflater says where their data ends.
 */
import { createInflateRaw, type InflateRaw } from 'node:zlib';
import type { ByteCheck, ContentProblem } from './problem.ts';

const LOCAL_HEADER = 0x04034b50;
const FIXED_HEADER_BYTES = 30;
/** A data descriptor is at most 24 bytes (ZIP64, with its optional signature). */
const MAX_DESCRIPTOR_BYTES = 24;
const STORED = 0;
const DEFLATED = 8;

interface Member {
  name: string;
  check: ByteCheck | undefined;
  /** Compressed bytes still to come; undefined when the size follows the data (flag bit 3). */
  left: number | undefined;
  inflater: Inflater | undefined;
}

/** Checks the members of one archive; `checkFor` picks the check of a member by its name. */
export class ZipCheck {
  readonly #archive: string;
  readonly #checkFor: (name: string) => ByteCheck | undefined;
  #pending: Buffer = Buffer.alloc(0);
  #state: 'header' | 'data' | 'descriptor' | 'done' = 'header';
  #member: Member | undefined;
  #problem: ContentProblem | undefined;

  constructor(archive: string, checkFor: (name: string) => ByteCheck | undefined) {
    this.#archive = archive;
    this.#checkFor = checkFor;
  }

  async push(bytes: Uint8Array): Promise<void> {
    let rest: Uint8Array = bytes;
    while (rest.length > 0 && this.#state !== 'done') {
      if (this.#state === 'data') rest = await this.#data(rest);
      else rest = this.#collect(rest);
    }
  }

  async finish(): Promise<ContentProblem | undefined> {
    // An archive cut inside a member is the PDS's to refuse; what was read of it is judged as is.
    if (this.#member) await this.#endMember();
    return this.#problem;
  }

  /** Header or descriptor bytes: gathered until the next header can be read. */
  #collect(bytes: Uint8Array): Uint8Array {
    const wanted = this.#state === 'header' ? this.#headerLength() : MAX_DESCRIPTOR_BYTES + 4;
    const take = Math.max(0, Math.min(bytes.length, wanted - this.#pending.length));
    this.#pending = Buffer.concat([this.#pending, bytes.subarray(0, take)]);
    const rest = bytes.subarray(take);
    if (this.#state === 'descriptor') this.#afterDescriptor();
    else if (this.#pending.length >= 4 && this.#pending.readUInt32LE(0) !== LOCAL_HEADER) {
      this.#state = 'done'; // the central directory (or something unknown): no member follows
    } else if (
      this.#pending.length === this.#headerLength() &&
      this.#pending.length > FIXED_HEADER_BYTES - 1
    ) {
      this.#startMember();
    }
    return this.#state === 'done' ? new Uint8Array(0) : rest;
  }

  #headerLength(): number {
    if (this.#pending.length < FIXED_HEADER_BYTES) return FIXED_HEADER_BYTES;
    return FIXED_HEADER_BYTES + this.#pending.readUInt16LE(26) + this.#pending.readUInt16LE(28);
  }

  #startMember(): void {
    const header = this.#pending;
    this.#pending = Buffer.alloc(0);
    const flags = header.readUInt16LE(6);
    const method = header.readUInt16LE(8);
    const nameLength = header.readUInt16LE(26);
    const name = header.subarray(FIXED_HEADER_BYTES, FIXED_HEADER_BYTES + nameLength).toString('utf8');
    const extra = header.subarray(FIXED_HEADER_BYTES + nameLength);
    const sizeFollows = (flags & 0x08) !== 0;
    const left = sizeFollows ? undefined : compressedSize(header.readUInt32LE(18), extra);
    const encrypted = (flags & 0x01) !== 0;
    const followable = method === DEFLATED || (method === STORED && left !== undefined);
    if (encrypted || !followable) {
      if (left === undefined) {
        this.#state = 'done';
        return;
      }
      this.#member = { name, check: undefined, left, inflater: undefined };
      this.#state = 'data';
      return;
    }
    const check = name.endsWith('/') ? undefined : this.#checkFor(name);
    const inflater = method === DEFLATED ? new Inflater((out) => check?.push(out)) : undefined;
    this.#member = { name, check, left, inflater };
    this.#state = 'data';
  }

  async #data(bytes: Uint8Array): Promise<Uint8Array> {
    const member = this.#member as Member;
    const part = member.left === undefined ? bytes : bytes.subarray(0, member.left);
    const taken = member.inflater ? await member.inflater.write(part) : this.#stored(member, part);
    // With its size known, a member's bytes are all its own, even after its deflate stream ended.
    const consumed = member.left === undefined ? taken : part.length;
    if (member.left !== undefined) member.left -= consumed;
    const ended = member.left === undefined ? member.inflater?.ended === true : member.left === 0;
    if (ended) await this.#endMember();
    if (ended && member.left === undefined) this.#state = 'descriptor';
    return bytes.subarray(consumed);
  }

  #stored(member: Member, part: Uint8Array): number {
    member.check?.push(part);
    return part.length;
  }

  async #endMember(): Promise<void> {
    const member = this.#member as Member;
    this.#member = undefined;
    this.#state = 'header';
    const damaged = member.inflater ? await member.inflater.end() : undefined;
    const verdict = damaged
      ? { problem: `its compressed data is damaged (${damaged})`, fix: 'build the archive again' }
      : member.check?.finish();
    if (verdict && this.#problem === undefined) {
      this.#problem = { file: `${this.#archive}:${member.name}`, ...verdict };
    }
  }

  /** After a member whose sizes follow its data: the next header starts within the descriptor's bytes. */
  #afterDescriptor(): void {
    const at = this.#pending.indexOf('PK\x03\x04', 0, 'latin1');
    if (at >= 0) {
      this.#pending = this.#pending.subarray(at);
      this.#state = 'header';
    } else if (
      this.#pending.indexOf('PK\x01\x02', 0, 'latin1') >= 0 ||
      this.#pending.length >= MAX_DESCRIPTOR_BYTES + 4
    ) {
      this.#state = 'done';
    }
  }
}

/** The compressed size from the header, or from its ZIP64 extra field when the header says 0xFFFFFFFF. */
function compressedSize(size: number, extra: Buffer): number {
  if (size !== 0xffffffff) return size;
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    // ZIP64: uncompressed size, then compressed size (both present when the header's are 0xFFFFFFFF).
    if (id === 0x0001 && length >= 16) return Number(extra.readBigUInt64LE(at + 12));
    at += 4 + length;
  }
  return size;
}

/**
 * node:zlib's raw inflater, told the compressed bytes one write at a time. When the deflate stream
 * ends inside a write, zlib takes no more of it: `bytesWritten` says how much it took, so the bytes
 * after a member are found without knowing its size.
 */
class Inflater {
  readonly #zlib: InflateRaw;
  #error: Error | undefined;
  #ended = false;

  constructor(onData: (bytes: Uint8Array) => void) {
    this.#zlib = createInflateRaw();
    this.#zlib.on('data', onData);
    this.#zlib.on('error', (error: Error) => {
      this.#error ??= error;
    });
    this.#zlib.on('end', () => {
      this.#ended = true;
    });
  }

  get ended(): boolean {
    return this.#ended || this.#error !== undefined;
  }

  /** Writes `bytes`; resolves with how many of them belong to the deflate stream. */
  async write(bytes: Uint8Array): Promise<number> {
    if (this.ended) return 0;
    const before = this.#zlib.bytesWritten;
    await new Promise<void>((resolve) => {
      // A damaged stream reports on 'error'; the write's own callback may then never come.
      const done = () => {
        this.#zlib.off('error', done);
        resolve();
      };
      this.#zlib.once('error', done);
      this.#zlib.write(bytes, done);
    });
    return this.ended ? this.#zlib.bytesWritten - before : bytes.length;
  }

  /** Ends the member; resolves with why its data could not be inflated, if it could not. */
  async end(): Promise<string | undefined> {
    if (!this.#zlib.closed) {
      await new Promise<void>((resolve) => {
        this.#zlib.once('close', resolve);
        this.#zlib.end();
      });
    }
    return this.#error?.message;
  }
}
