/**
 * The content check of a dropped file, run on the bytes as they stream to the PDS: which check a
 * file gets (by its name: `.csv`, `.json`, and the members of a `.zip`), and the pass-through stream
 * that feeds it. Other files are not checked: the PDS records them without creating items.
 *
 * Why a problem fails the ingest instead of completing it with a warning: the PDS answers an import
 * without a body, so a file it cannot read would otherwise end as `pds.ingest.completed` with
 * nothing imported. A file that fails these checks is one no reader can take as the documented
 * format (docs/spec-gaps.md, "Import content"), so none of its entries is imported and the write
 * ends as `pds.ingest.failed` with code `unreadable`, naming the file, the place and the fix.
 */
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvCheck } from './csv-check.ts';
import { JsonCheck } from './json-check.ts';
import type { ByteCheck, ContentProblem } from './problem.ts';
import { Utf8Check } from './utf8.ts';
import { ZipCheck } from './zip-check.ts';

/** The check of one whole file. */
export interface ContentCheck {
  push(bytes: Uint8Array): void | Promise<void>;
  /** After the last byte: the first problem found, if any. */
  finish(): Promise<ContentProblem | undefined>;
}

/**
 * The check of a plain (not archived) file by its name, or undefined for a kind that is not checked.
 *
 * @example
 * ```ts
 * const check = byteCheckFor('items.csv'); // UTF-8, quotes, header and field counts
 * check?.push(bytes);
 * check?.finish(); // { problem: 'line 3 has 2 fields, the header has 3 …', fix: '…' } or undefined
 * ```
 */
export function byteCheckFor(name: string): ByteCheck | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv')) return allOf(new Utf8Check(), new CsvCheck());
  if (lower.endsWith('.json')) return allOf(new Utf8Check(), new JsonCheck());
  return undefined;
}

/**
 * The check of a dropped file by its name (`.zip` checks its members), or undefined.
 *
 * @example
 * ```ts
 * const check = contentCheckFor('drop/items.json');
 * for await (const chunk of stream) await check?.push(chunk);
 * await check?.finish(); // { file: 'items.json', problem: 'line 1 (byte 9): … ', fix: '…' }
 * ```
 */
export function contentCheckFor(name: string): ContentCheck | undefined {
  const file = name.slice(name.lastIndexOf('/') + 1);
  if (file.toLowerCase().endsWith('.zip')) {
    const zip = new ZipCheck(file, byteCheckFor);
    return { push: (bytes) => zip.push(bytes), finish: () => zip.finish() };
  }
  const check = byteCheckFor(file);
  if (!check) return undefined;
  return {
    push: (bytes) => check.push(bytes),
    finish: async () => {
      const verdict = check.finish();
      return verdict ? { file, ...verdict } : undefined;
    },
  };
}

/** A stream and the verdict of the check its bytes went through. */
export interface CheckedStream {
  /** Yields the same bytes as the source. */
  stream: Readable | AsyncIterable<Uint8Array>;
  /** Once the stream was read to its end: the first problem, if any. */
  verdict(): Promise<ContentProblem | undefined>;
}

/**
 * Passes `source` through the check of `name` (unchanged when the kind is not checked): the check
 * sees each chunk just after it went on and keeps no bytes (but at most 63 of the chunk it read
 * last). The bytes go on as an async iterable, not through a second stream: a pass-through
 * `Transform` alone cost the upload 6.6 % of its throughput (docs/benchmarks.md, "The content check
 * inside the upload, part by part").
 *
 * @example
 * ```ts
 * const checked = checkWhileStreaming(opened.stream, 'items.csv');
 * await pds.uploadGathering({ stream: checked.stream, size, fileName: 'items.csv' });
 * const problem = await checked.verdict();
 * ```
 */
export function checkWhileStreaming(source: Readable, name: string): CheckedStream {
  const check = contentCheckFor(name);
  if (!check) return { stream: source, verdict: async () => undefined };
  return { stream: checkedChunks(source, check), verdict: () => check.finish() };
}

/**
 * The source's chunks, each handed on before the check reads it: the check of a chunk waits for the
 * event loop's next turn, so it runs while the upload waits on its sockets rather than in front of
 * the chunk's sending, and at the latest before the next chunk is handed on (one chunk is held for
 * it at most, and the check sees the chunks in order). Checking each chunk first cost the upload
 * about twice as much of its throughput (docs/benchmarks.md, "Each chunk checked after it is handed
 * on, its last bytes with the next chunk"). The source is closed when this is.
 */
async function* checkedChunks(source: Readable, check: ContentCheck): AsyncGenerator<Uint8Array> {
  let checking: Promise<void> | undefined;
  try {
    for await (const chunk of source) {
      if (checking) await checking;
      yield chunk as Uint8Array;
      checking = nextTurn().then(() => check.push(chunk as Uint8Array));
      // Awaited with the next chunk or at the end; left unread when the upload stops first.
      checking.catch(() => {});
    }
    if (checking) await checking;
  } finally {
    if (!source.destroyed) source.destroy();
  }
}

/** One check made of several, fed alike; the first one's problem wins. */
function allOf(...checks: ByteCheck[]): ByteCheck {
  return {
    push(bytes) {
      for (const check of checks) check.push(bytes);
    },
    finish() {
      for (const check of checks) {
        const verdict = check.finish();
        if (verdict) return verdict;
      }
      return undefined;
    },
  };
}
