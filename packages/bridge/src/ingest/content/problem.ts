/**
 * What the content checks report and share: the first reason a file cannot be imported, and the
 * interface of a check of one file's bytes. (Each check keeps the byte values it looks for as
 * constants of its own module: the hot loops compare against them.)
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
