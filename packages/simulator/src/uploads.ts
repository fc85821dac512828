/**
 * Receives the multipart body of POST /api/v1/gatherings: every `file` part is streamed to disk while
 * its size and SHA-256 are computed (nothing is held in memory, whatever the size), then ZIP archives
 * are expanded member by member from the stored file.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { extname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import yauzl from 'yauzl';
import { admitArchive } from './archive-limits.ts';
import { ArchiveLimitError, SimulatorHttpError } from './errors.ts';
import type { Gathering, SimulatorState, StoredGatheringEntry } from './state.ts';

/** Where a stored file is and what it holds. */
export interface StoredFile {
  diskPath: string;
  size: number;
  sha256: string;
}

/** An entry before it joins its gathering. */
type UnkeyedEntry = Pick<
  StoredGatheringEntry,
  'assetKey' | 'path' | 'contentType' | 'size' | 'sha256' | 'diskPath'
>;

/** One received `file` part, before archives are expanded. */
export interface ReceivedPart extends StoredFile {
  assetKey: string;
  fileName: string;
  contentType: string;
}

/**
 * Streams `source` to `diskPath`, hashing on the way.
 *
 * @example
 * const { size, sha256 } = await storeStream(fileStream, '/tmp/upload/abc');
 */
export async function storeStream(source: Readable, diskPath: string): Promise<StoredFile> {
  const hash = createHash('sha256');
  let size = 0;
  await pipeline(
    source,
    async function* measure(chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    createWriteStream(diskPath),
  );
  return { diskPath, size, sha256: hash.digest('hex') };
}

/**
 * Receives one upload into a new gathering (stored in `state`), one entry per plain file and per
 * archive member; 400 when the body has no `file` part or an archive cannot be read.
 */
export async function receiveGathering(
  req: IncomingMessage,
  state: SimulatorState,
  uploadDir: string,
): Promise<Gathering> {
  requireMultipart(req);
  const gatheringKey = state.newUuid();
  return receiveInto(req, state, join(uploadDir, gatheringKey), 'each file', async (parts, directory) => {
    const entries: StoredGatheringEntry[] = [];
    const paths = new Set<string>();
    for (const part of parts) {
      const expanded = isArchive(part) ? await expandArchive(part, state, directory) : [asEntry(part)];
      for (const entry of expanded)
        entries.push({ ...entry, gatheringKey, path: uniquePath(entry.path, paths) });
    }
    const gathering = { gatheringKey, entries };
    state.gatherings.set(gatheringKey, gathering);
    return gathering;
  });
}

/**
 * The frame of a multipart upload kept on disk (after {@link requireMultipart}): the `file` parts stored in
 * a new `directory`, 400 when there is none, then `use`. When anything fails the directory is removed, so a
 * refused upload leaves no files behind.
 *
 * @example
 * ```ts
 * const count = await receiveInto(req, state, '/tmp/up/1', 'each file', async (parts) => parts.length);
 * ```
 */
export async function receiveInto<T>(
  req: IncomingMessage,
  state: SimulatorState,
  directory: string,
  what: string,
  use: (parts: ReceivedPart[], directory: string) => Promise<T>,
): Promise<T> {
  await mkdir(directory, { recursive: true });
  try {
    const parts = await receiveParts(req, state, directory);
    if (parts.length === 0) {
      throw new SimulatorHttpError(
        400,
        `The upload has no 'file' part with a file name; send ${what} as form field 'file'`,
      );
    }
    return await use(parts, directory);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/** 415 unless the request is `multipart/form-data`. */
export function requireMultipart(req: IncomingMessage): void {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    throw new SimulatorHttpError(
      415,
      `Content-Type must be multipart/form-data with a 'file' part, got '${contentType || 'none'}'`,
    );
  }
}

/**
 * Streams every `file` part that has a file name into `directory` (one file per part, named by a new
 * UUID); other fields are skipped. 400 when the multipart body is malformed.
 *
 * @example
 * const parts = await receiveParts(req, state, '/tmp/uploads'); // [{ fileName: 'a.csv', diskPath, size, sha256, ... }]
 */
export function receiveParts(
  req: IncomingMessage,
  state: SimulatorState,
  directory: string,
): Promise<ReceivedPart[]> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, defParamCharset: 'utf8' });
    } catch (error) {
      reject(new SimulatorHttpError(400, `The multipart body cannot be read (${(error as Error).message})`));
      return;
    }
    const stored: Array<Promise<ReceivedPart>> = [];
    parser.on('file', (field, stream, info) => {
      if (field !== 'file' || !info.filename) {
        stream.resume();
        return;
      }
      const assetKey = state.newUuid();
      const meta = { assetKey, fileName: info.filename, contentType: info.mimeType };
      stored.push(storeStream(stream, join(directory, assetKey)).then((file) => ({ ...meta, ...file })));
    });
    parser.on('error', (error) => {
      req.unpipe(parser);
      Promise.allSettled(stored).then(() =>
        reject(new SimulatorHttpError(400, `The multipart body is malformed (${(error as Error).message})`)),
      );
    });
    parser.on('close', () => {
      Promise.all(stored).then(resolve, reject);
    });
    req.on('close', () => {
      if (!req.complete) parser.destroy(new Error('the client closed the connection before the body ended'));
    });
    req.pipe(parser);
  });
}

function isArchive(part: ReceivedPart): boolean {
  return /\.zip$/i.test(part.fileName) || /^application\/(x-)?zip\b/i.test(part.contentType);
}

function asEntry(part: ReceivedPart): UnkeyedEntry {
  const { assetKey, fileName, contentType, diskPath, size, sha256 } = part;
  return { assetKey, path: fileName, contentType, size, sha256, diskPath };
}

async function expandArchive(
  archive: ReceivedPart,
  state: SimulatorState,
  directory: string,
): Promise<Array<UnkeyedEntry>> {
  const prefix = archive.fileName.replace(/\.zip$/i, '');
  const entries: Array<UnkeyedEntry> = [];
  await eachArchiveMember(archive, 'upload a valid ZIP or rename it', async (member) => {
    if (member.isDirectory) return;
    const assetKey = state.newUuid();
    const file = await storeStream(await member.open(), join(directory, assetKey));
    entries.push({ assetKey, path: `${prefix}/${member.fileName}`, contentType: '', ...file });
  });
  return entries;
}

/** One member of an uploaded archive; `open` reads its bytes (once). */
export interface ArchiveMember {
  fileName: string;
  isDirectory: boolean;
  open(): Promise<Readable>;
}

/**
 * Walks an uploaded ZIP member by member within the archive limits (archive-limits.ts; 413 past one),
 * then deletes the archive, whose members replace it. A `SimulatorHttpError` from `visit` keeps its
 * answer; any other failure is an unreadable archive, a 400 that ends with `remedy`.
 *
 * @example
 * await eachArchiveMember(part, 'upload a valid ZIP', async (member) => names.push(member.fileName));
 */
export async function eachArchiveMember(
  archive: ReceivedPart,
  remedy: string,
  visit: (member: ArchiveMember) => Promise<void>,
): Promise<void> {
  let zip: yauzl.ZipFile | undefined;
  try {
    const opened = await yauzl.openPromise(archive.diskPath, { lazyEntries: true });
    zip = opened;
    const admit = admitArchive({ name: archive.fileName, bytes: archive.size, members: opened.entryCount });
    for await (const entry of opened.eachEntry()) {
      admit(entry.uncompressedSize);
      await visit({
        fileName: entry.fileName,
        isDirectory: entry.fileName.endsWith('/'),
        open: () => opened.openReadStreamPromise(entry),
      });
    }
  } catch (error) {
    if (error instanceof SimulatorHttpError) throw error;
    if (error instanceof ArchiveLimitError) throw new SimulatorHttpError(413, error.message);
    throw new SimulatorHttpError(
      400,
      `The file '${archive.fileName}' is not a readable ZIP archive (${(error as Error).message}); ${remedy}`,
    );
  } finally {
    if (zip?.isOpen) zip.close();
  }
  await rm(archive.diskPath, { force: true });
}

/** Keeps paths unique within one gathering: a repeated `a.csv` becomes `a (2).csv`, then `a (3).csv`. */
export function uniquePath(path: string, used: Set<string>): string {
  let candidate = path;
  const extension = extname(path);
  const stem = path.slice(0, path.length - extension.length);
  for (let n = 2; used.has(candidate); n += 1) candidate = `${stem} (${n})${extension}`;
  used.add(candidate);
  return candidate;
}
