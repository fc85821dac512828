/**
 * `npm run drop -- FILE...`: uploads files into the running local stack's drop bucket, where the
 * stack turns each into an S3 notification for the ingest function. Large files go up in parts.
 *
 * Exit codes: 0 every file uploaded, 1 a file could not be read or uploaded (or no stack runs),
 * 2 invalid flags.
 */
import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { UsageError } from '@pds-bridge/bridge/core';
import { contentCheckFor } from '@pds-bridge/bridge/ingest/content/check.ts';
import { createS3Client } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { parsedOrExitCode, parseFlags, processLineIo } from '@pds-bridge/cli/command-line.ts';
import { DEFAULT_STACK_FILE, emulatorClientConfig, stackFactsOrReport } from '@pds-bridge/cli/stack-file.ts';
import type { CliIo } from './cli.ts';
import { dropWarnings } from './ingest-hints.ts';
import { uploadFile } from './upload.ts';

/** The `--help` text. */
export const DROP_USAGE = `Usage: npm run drop -- [options] FILE...

Uploads files into the drop bucket of the running local stack (npm start); each becomes an S3
ObjectCreated notification for the ingest function. Files above 8 MiB are uploaded in parts.
Relative paths are read from the folder you run npm in. A .csv or .json file (also inside a .zip)
the PDS cannot import is uploaded with a warning naming the problem: the ingest fails it.

Options:
  --prefix <folder>    put the objects in this folder of the bucket: incoming and incoming/ both give
                       incoming/FILE
  --stack-file <path>  the running stack's connection facts (default ${DEFAULT_STACK_FILE})
  --help               print this text
`;

export interface DropCommand {
  /** Absolute paths, resolved from the folder the user ran the command in. */
  files: string[];
  /** Empty, or a folder ending in `/`. */
  prefix: string;
  stackFile: string;
}

/**
 * Parses the flags and file names; relative paths are resolved from `cwd`, which for `npm run drop`
 * is the folder npm was run in (`INIT_CWD`: npm itself runs scripts from the repository's root).
 *
 * @throws UsageError naming the problem
 */
export function parseDropArgs(
  argv: string[],
  cwd: string = process.env.INIT_CWD ?? process.cwd(),
): DropCommand | 'help' {
  const { values, positionals } = parseFlags(
    argv,
    {
      prefix: { type: 'string', default: '' },
      'stack-file': { type: 'string', default: DEFAULT_STACK_FILE },
      help: { type: 'boolean', default: false },
    },
    (message) => new UsageError(message),
    true,
  );
  if (values.help) return 'help';
  if (positionals.length === 0) throw new UsageError('name at least one FILE to drop');
  const prefix = String(values.prefix ?? '');
  if (prefix.startsWith('/')) throw new UsageError(`--prefix must not start with '/', got '${prefix}'`);
  return {
    files: positionals.map((file) => resolve(cwd, file)),
    // A prefix names a folder: `incoming` would otherwise glue itself to the name (incomingitems.csv).
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    stackFile: String(values['stack-file']),
  };
}

/**
 * Runs the command; resolves with the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runDropCli(process.argv.slice(2));
 * ```
 */
export async function runDropCli(argv: string[], io: CliIo = processLineIo): Promise<number> {
  const command = parsedOrExitCode('drop', io, DROP_USAGE, () => parseDropArgs(argv));
  if (typeof command === 'number') return command;
  for (const file of command.files) {
    const problem = await unreadable(file);
    if (problem) {
      io.err(`drop: ${problem}; nothing was uploaded`);
      return 1;
    }
  }
  const facts = await stackFactsOrReport('drop', io, command.stackFile);
  if (facts === undefined) return 1;
  const s3 = createS3Client({ ...emulatorClientConfig(facts.aws), forcePathStyle: true });
  try {
    for (const file of command.files) {
      const key = `${command.prefix}${basename(file)}`;
      // Uploaded all the same: the user may mean to test the filters.
      const filters = facts.ingest ?? { prefix: '', suffixes: [] };
      const firstLine = key.toLowerCase().endsWith('.csv') ? await firstLineOf(file) : undefined;
      const hints = {
        filters,
        simulated: facts.pds.simulated,
        ...(firstLine === undefined ? {} : { firstLine }),
      };
      for (const warning of [...dropWarnings(key, hints), ...(await contentWarnings(file, key))]) {
        io.err(`drop: warning: ${warning}`);
      }
      try {
        const uploaded = await uploadFile({ s3, bucket: facts.buckets.drop, path: file, key });
        const parts = uploaded.parts > 0 ? `, ${uploaded.parts} parts` : '';
        io.out(`uploaded ${file} → s3://${uploaded.bucket}/${uploaded.key} (${uploaded.size} bytes${parts})`);
      } catch (error) {
        io.err(
          `drop: uploading ${file} failed (${(error as Error).message}); is the local stack still running at ${facts.aws.endpoint}?`,
        );
        return 1;
      }
    }
    io.out('npm run events shows the ingest events as they arrive.');
    return 0;
  } finally {
    s3.destroy();
  }
}

/**
 * What the ingest's content check (packages/bridge/src/ingest/content) will find in the file: the
 * same check, run on the local copy before it is uploaded.
 */
async function contentWarnings(file: string, key: string): Promise<string[]> {
  const check = contentCheckFor(key);
  if (!check) return [];
  for await (const chunk of createReadStream(file)) await check.push(chunk as Buffer);
  const found = await check.finish();
  if (!found) return [];
  return [
    `${found.file} cannot be imported: ${found.problem}; the ingest will fail it (pds.ingest.failed, code unreadable) and import nothing of it. Fix: ${found.fix}`,
  ];
}

/** The first line of a file (at most its first 64 KiB), or undefined when it cannot be read. */
async function firstLineOf(file: string): Promise<string | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file);
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    return buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0];
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

async function unreadable(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    return info.isFile() ? undefined : `${file} is not a file`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${file} does not exist` : `cannot read ${file} (${(error as Error).message})`;
  }
}
