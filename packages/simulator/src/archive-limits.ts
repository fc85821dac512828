/**
 * Limits on the ZIP archives the simulator expands (uploads of gatherings and of asset folders): a
 * small archive can declare millions of members or gigabytes of content (a ZIP bomb), and each
 * member becomes a file on disk. The sizes checked are the ones the central directory declares;
 * yauzl refuses a member whose bytes differ from its declaration (`validateEntrySizes`), so a
 * member cannot expand past what was checked.
 */

import { ArchiveLimitError } from './errors.ts';

export interface ArchiveLimits {
  /** Most members (directories included); default {@link MAX_ARCHIVE_MEMBERS}. */
  maxMembers: number;
  /** Most bytes all members expand to; default {@link MAX_ARCHIVE_EXPANDED_BYTES}. */
  maxExpandedBytes: number;
  /**
   * Largest ratio of expanded bytes to the archive's own size, checked once the members expand to
   * more than {@link RATIO_FREE_BYTES} (small archives of repetitive text compress far better than
   * this, harmlessly); default {@link MAX_EXPANSION_RATIO}.
   */
  maxRatio: number;
}

export const MAX_ARCHIVE_MEMBERS = 10_000;
export const MAX_ARCHIVE_EXPANDED_BYTES = 1024 * 1024 * 1024;
export const MAX_EXPANSION_RATIO = 100;
/** Expanded bytes below which the ratio is not checked. */
export const RATIO_FREE_BYTES = 10 * 1024 * 1024;

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = {
  maxMembers: MAX_ARCHIVE_MEMBERS,
  maxExpandedBytes: MAX_ARCHIVE_EXPANDED_BYTES,
  maxRatio: MAX_EXPANSION_RATIO,
};

/**
 * Checks what an archive's central directory declares before anything is expanded: its member
 * count, and (member by member, through the returned function) the bytes they expand to.
 *
 * @example
 * const admit = admitArchive({ name: 'items.zip', bytes: 2048, members: zip.entryCount });
 * for await (const member of zip.eachEntry()) { admit(member.uncompressedSize); … }
 */
export function admitArchive(
  archive: { name: string; bytes: number; members: number },
  limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS,
): (memberBytes: number) => void {
  if (archive.members > limits.maxMembers) {
    throw new ArchiveLimitError(
      'ARCHIVE_TOO_MANY_MEMBERS',
      archive.name,
      `has ${archive.members} members, more than the ${limits.maxMembers} allowed`,
    );
  }
  let expanded = 0;
  return (memberBytes) => {
    expanded += memberBytes;
    if (expanded > limits.maxExpandedBytes) {
      throw new ArchiveLimitError(
        'ARCHIVE_TOO_LARGE_EXPANDED',
        archive.name,
        `expands to more than ${limits.maxExpandedBytes} bytes`,
      );
    }
    if (expanded > RATIO_FREE_BYTES && expanded > limits.maxRatio * archive.bytes) {
      throw new ArchiveLimitError(
        'ARCHIVE_EXPANSION_RATIO',
        archive.name,
        `expands to more than ${limits.maxRatio} times its own ${archive.bytes} bytes`,
      );
    }
  };
}
