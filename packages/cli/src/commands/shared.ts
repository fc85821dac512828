/**
 * Helpers shared by the `pds` commands: reading JSON input files, guessing content types, streaming a
 * local file to an upload with progress.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import { parseJsonOr } from '@pds-bridge/bridge/core';
import type { StreamUploadSource } from '@pds-bridge/bridge/pds';
import { booleanFlag, type CliOptions, type FlagValues, stringFlag } from '../args.ts';
import type { CommandResult } from '../command.ts';
import { CliInputError } from '../errors.ts';
import { formatTable } from '../output.ts';
import type { TransferProgress } from '../progress.ts';

/** Largest JSON input file read into memory (items, entries). */
const MAX_JSON_INPUT_BYTES = 64 * 1024 * 1024;

const CONTENT_TYPES: Record<string, string> = {
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.zip': 'application/zip',
  '.txt': 'text/plain',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
};

/**
 * The content type of a file name by its extension; `application/octet-stream` when unknown.
 *
 * @example
 * ```ts
 * contentTypeOf('items.CSV'); // 'text/csv'
 * ```
 */
export function contentTypeOf(fileName: string): string {
  return CONTENT_TYPES[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Reads and parses a JSON file.
 *
 * @throws CliInputError naming the file and what is wrong with it
 */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a regular file');
    if (info.size > MAX_JSON_INPUT_BYTES) throw new Error(`larger than ${MAX_JSON_INPUT_BYTES} bytes`);
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliInputError(`cannot read ${path}: ${messageOf(error)}; pass a readable JSON file`, {
      cause: error,
    });
  }
  return parseJsonOr(
    text,
    (cause) => new CliInputError(`${path} is not valid JSON: ${messageOf(cause)}`, { cause }),
  );
}

/** A file to upload: its size checked, its bytes counted by the progress reporter as they are read. */
export interface CountedUpload {
  source: StreamUploadSource & { stream: Readable };
  /** Reports the outcome on the progress line. */
  done(note?: string): void;
  failed(): void;
}

/**
 * Opens a local file as an upload source whose bytes are counted for the progress bar.
 *
 * @throws CliInputError when the file is missing or not a regular file
 * @example
 * ```ts
 * const upload = await countedUpload(progress, 'items.csv');
 * const entries = await pds.uploadGathering(upload.source);
 * upload.done(`${entries.length} entries`);
 * ```
 */
export async function countedUpload(
  progress: TransferProgress,
  path: string,
  contentType?: string,
): Promise<CountedUpload> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a regular file');
    size = info.size;
  } catch (error) {
    throw new CliInputError(`cannot upload ${path}: ${messageOf(error)}; pass a readable file`, {
      cause: error,
    });
  }
  const fileName = basename(path);
  const file = progress.start(fileName, size);
  // pipeline destroys the counter when the file cannot be read, which fails the upload with the reason.
  const stream = pipeline(createReadStream(path, { highWaterMark: 256 * 1024 }), file.counter, () => {});
  return {
    source: { stream, size, fileName, contentType: contentType ?? contentTypeOf(fileName) },
    done: (note) => file.done(note),
    failed: () => file.failed(),
  };
}

/**
 * Uploads each file in turn (one stream at a time), reporting each one's progress and outcome (as
 * `describe` words the result); the results in the order of `files`.
 */
export async function uploadEach<T>(
  progress: TransferProgress,
  files: readonly string[],
  contentType: string | undefined,
  send: (source: StreamUploadSource) => Promise<T>,
  describe: (result: T) => string,
): Promise<Array<{ file: string; result: T }>> {
  const results: Array<{ file: string; result: T }> = [];
  for (const file of files) {
    results.push({ file, result: await withUpload(progress, file, contentType, send, describe) });
  }
  return results;
}

/** Runs an upload of `path`, reporting its progress and outcome. */
async function withUpload<T>(
  progress: TransferProgress,
  path: string,
  contentType: string | undefined,
  send: (source: StreamUploadSource) => Promise<T>,
  describe: (result: T) => string,
): Promise<T> {
  const upload = await countedUpload(progress, path, contentType);
  try {
    const result = await send(upload.source);
    upload.done(describe(result));
    return result;
  } catch (error) {
    upload.failed();
    if (!upload.source.stream.destroyed) upload.source.stream.destroy();
    throw error;
  }
}

/** `1 entry`, `3 entries`: the count with the noun in the fitting number. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A list result shown as a table: the records as data, one row per record as text.
 *
 * @example
 * ```ts
 * return tableResult(channels, ['ID', 'NAME', 'TYPE'], (c) => [c.id, c.name, c.type]);
 * ```
 */
export function tableResult<T>(
  records: readonly T[],
  headers: readonly string[],
  row: (record: T) => readonly unknown[],
): CommandResult {
  return { data: records, text: () => formatTable(headers, records.map(row)) };
}

/**
 * A list of words shown one per line, or `empty` when there is none.
 *
 * @example
 * ```ts
 * return linesResult(tags, '(no tags)');
 * ```
 */
export function linesResult(lines: readonly string[], empty: string): CommandResult {
  return { data: lines, text: () => (lines.length === 0 ? empty : lines.join('\n')) };
}

/**
 * The flags of a conditional GET (`--if-none-match ETAG`, `--allow-caching`); `held` names what the
 * ETag belongs to in the help text.
 *
 * @example
 * ```ts
 * options: { ...conditionalGetOptions('a model'), verbose: { type: 'boolean' } },
 * ```
 */
export function conditionalGetOptions(held: string): CliOptions {
  return {
    'if-none-match': { type: 'string', value: 'ETAG', description: `ETag of ${held} you hold` },
    'allow-caching': { type: 'boolean', description: 'let caches reuse the answer' },
  };
}

/**
 * The values of {@link conditionalGetOptions} as the client takes them (allowCaching undefined when off).
 *
 * @example
 * ```ts
 * const answer = await pds.dataModel.current(conditionalGetFlags(flags));
 * ```
 */
export function conditionalGetFlags(flags: FlagValues): { ifNoneMatch?: string; allowCaching?: true } {
  return {
    ifNoneMatch: stringFlag(flags, 'if-none-match'),
    allowCaching: booleanFlag(flags, 'allow-caching') || undefined,
  };
}
