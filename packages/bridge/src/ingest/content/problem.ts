/**
 * What the content checks report and share: the first reason a file cannot be imported, and the
 * running count of lines that names where it was found.
 */

/** Why a dropped file (or a member of a dropped ZIP) cannot be imported, and how to fix it. */
export interface ContentProblem {
  /** The file name, or `archive.zip:member.csv` for a member of an archive. */
  file: string;
  /** What is wrong, and where (line or byte offset). */
  problem: string;
  /** What the user does about it. */
  fix: string;
}

/** A check of one file's bytes, fed as they stream; it keeps only counters and states, never the bytes. */
export interface ByteCheck {
  /** Feeds the next bytes; after the first problem the rest is skipped. */
  push(bytes: Uint8Array): void;
  /** After the last byte: the first problem found, if any. */
  finish(): Omit<ContentProblem, 'file'> | undefined;
}

/** Byte values the checks look for; none of them occurs inside a multi-byte UTF-8 sequence. */
export const BYTE = Object.freeze({
  LF: 0x0a,
  CR: 0x0d,
  QUOTE: 0x22,
  COMMA: 0x2c,
  SEMICOLON: 0x3b,
});
