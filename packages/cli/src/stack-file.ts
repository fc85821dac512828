/**
 * The connection facts of a running local stack, written to a small JSON file (default
 * `.local/stack.json`, readable by its owner only) so that `npm run drop` and `npm run events` find it.
 * The file names the process that wrote it; a file left behind by a stack that is gone is reported
 * as such instead of leading to connection errors.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { LineIo } from './command-line.ts';
import { StackFileError } from './errors.ts';

/** Where the stack writes its facts, relative to the working directory (the project root for npm scripts). */
export const DEFAULT_STACK_FILE = '.local/stack.json';

const queueSchema = z.object({ name: z.string(), url: z.string() });

const stackFactsSchema = z.object({
  version: z.literal(1),
  pid: z.number().int(),
  startedAt: z.string(),
  aws: z.object({
    endpoint: z.string(),
    region: z.string(),
    accessKeyId: z.string(),
    secretAccessKey: z.string(),
  }),
  buckets: z.object({ drop: z.string(), state: z.string() }),
  eventQueues: z.array(queueSchema).min(1),
  api: z.object({ url: z.string(), token: z.string() }),
  /** `password` only for the simulator (its demo credentials are no secret); absent in older files. */
  pds: z.object({
    url: z.string(),
    username: z.string(),
    password: z.string().optional(),
    simulated: z.boolean(),
  }),
  /** The ingest's key filters (absent in files of older stacks: no filters). */
  ingest: z.object({ prefix: z.string(), suffixes: z.array(z.string()) }).optional(),
});

/** What the file holds. */
export type StackFacts = z.infer<typeof stackFactsSchema>;

/**
 * The AWS SDK client settings that reach the stack's emulator (add `forcePathStyle: true` for S3).
 * Kept free of SDK imports so reading the stack file stays cheap.
 *
 * @example
 * ```ts
 * const s3 = createS3Client({ ...emulatorClientConfig(facts.aws), forcePathStyle: true });
 * ```
 */
export function emulatorClientConfig(aws: StackFacts['aws']): {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
} {
  return {
    endpoint: aws.endpoint,
    region: aws.region,
    credentials: { accessKeyId: aws.accessKeyId, secretAccessKey: aws.secretAccessKey },
  };
}

/**
 * The stack file of the checkout `from` lies in: `.local/stack.json` in `from` or the nearest folder
 * above it that has one (so `pds` run from `docs/` finds the stack `npm start` started at the root);
 * undefined when no folder up to the file-system root has one.
 *
 * @example
 * ```ts
 * findStackFile('/home/me/pds-bridge/docs'); // '/home/me/pds-bridge/.local/stack.json' while npm start runs
 * ```
 */
export function findStackFile(from: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, DEFAULT_STACK_FILE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Writes the file (and its directory), readable by the owner only. */
export async function writeStackFile(path: string, facts: StackFacts): Promise<void> {
  await mkdir(dirname(resolve(path)), { recursive: true });
  await writeFile(path, `${JSON.stringify(facts, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the file if it still describes the stack of `pid` (another stack may have started since). */
export async function removeStackFile(path: string, pid = process.pid): Promise<void> {
  try {
    const facts = stackFactsSchema.parse(JSON.parse(await readFile(path, 'utf8')));
    if (facts.pid !== pid) return;
  } catch {
    return;
  }
  await rm(path, { force: true });
}

/**
 * Reads the facts of the running stack.
 *
 * @throws StackFileError when no stack is running, the file is damaged or its stack is gone
 * @example
 * ```ts
 * const facts = await readStackFile(DEFAULT_STACK_FILE);
 * facts.buckets.drop; // 'pds-bridge-local-drop'
 * ```
 */
export async function readStackFile(
  path: string,
  isRunning: (pid: number) => boolean = processIsRunning,
): Promise<StackFacts> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new StackFileError(
        `No local stack is running (${path} does not exist); start one with npm start, or pass --stack-file with the file it wrote`,
      );
    }
    throw new StackFileError(`Cannot read ${path} (${(error as Error).message}); check its permissions`, {
      cause: error,
    });
  }
  let facts: StackFacts;
  try {
    facts = stackFactsSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new StackFileError(
      `${path} is not a local stack file (${(error as Error).message.split('\n')[0]}); delete it and restart the stack with npm start`,
      { cause: error },
    );
  }
  if (!isRunning(facts.pid)) {
    throw new StackFileError(
      `The local stack that wrote ${path} (process ${facts.pid}) is no longer running; start it again with npm start`,
    );
  }
  return facts;
}

/**
 * The facts of the running stack for a command that needs them, or undefined after telling the user on
 * stderr why there are none (`<program>: <reason>`); the command then ends with exit code 1.
 *
 * @example
 * ```ts
 * const facts = await stackFactsOrReport('drop', io, command.stackFile);
 * if (facts === undefined) return 1;
 * ```
 */
export async function stackFactsOrReport(
  program: string,
  io: LineIo,
  path: string,
): Promise<StackFacts | undefined> {
  try {
    return await readStackFile(path);
  } catch (error) {
    io.err(`${program}: ${(error as Error).message}`);
    return undefined;
  }
}

/** True when a process with this id exists (signal 0 checks without signalling). */
export function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
