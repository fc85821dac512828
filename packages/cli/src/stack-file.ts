/**
 * The connection facts of a running local stack, written to a small JSON file (default
 * `.local/stack.json`, readable by its owner only) so that `npm run drop` and `npm run events` find it.
 * The file names the process that wrote it; a file left behind by a stack that is gone is reported
 * as such instead of leading to connection errors.
 */
import { existsSync, readFileSync, type Stats } from 'node:fs';
import { type FileHandle, mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
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
  /** The folder of the webhook secrets (absent in files of older stacks). */
  webhookSecretsDir: z.string().optional(),
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
 * above it that has one (so `pds` run from `docs/` finds the stack `npm start` started at the root),
 * never above the checkout's root: the nearest folder with a `.git` entry or a `package.json` naming
 * `workspaces`. Undefined when the checkout has none, or `from` is in no checkout: a file in a shared
 * folder above (`/tmp`, a home directory another user can write to) is never picked up.
 *
 * @example
 * ```ts
 * findStackFile('/home/me/pds-bridge/docs'); // '/home/me/pds-bridge/.local/stack.json' while npm start runs
 * findStackFile('/tmp/somewhere'); // undefined, even if /tmp/.local/stack.json exists
 * ```
 */
export function findStackFile(from: string): string | undefined {
  const root = checkoutRoot(resolve(from));
  if (root === undefined) return undefined;
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, DEFAULT_STACK_FILE);
    if (existsSync(candidate)) return candidate;
    if (dir === root) return undefined;
    dir = dirname(dir);
  }
}

/** The nearest folder at or above `dir` that is a checkout's root, or undefined. */
function checkoutRoot(dir: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, '.git')) || isWorkspaceRoot(current)) return current;
    if (dirname(current) === current) return undefined;
  }
}

function isWorkspaceRoot(dir: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { workspaces?: unknown };
    return manifest.workspaces !== undefined;
  } catch {
    return false;
  }
}

/** What `readStackFile` and `writeStackFile` check, replaced in tests. */
export interface StackFileChecks {
  /** Whether a process id is alive; default: signal 0. */
  isRunning?: (pid: number) => boolean;
  /** The user a stack file must belong to; default: this process's user (none where the OS has no uids). */
  uid?: number;
}

/**
 * Writes the facts of the stack of `facts.pid` (and the file's directory), readable by the owner only.
 * The file is created, never overwritten while it describes another stack that still runs: a second
 * stack in the same checkout is refused with the running one's process id, so the first keeps its file.
 * A file left by a stack that has ended is replaced.
 *
 * @throws StackFileError when another running stack owns the file
 * @example
 * ```ts
 * await writeStackFile(DEFAULT_STACK_FILE, stackFactsOf(stack));
 * ```
 */
export async function writeStackFile(
  path: string,
  facts: StackFacts,
  checks: StackFileChecks = {},
): Promise<void> {
  await mkdir(dirname(resolve(path)), { recursive: true, mode: 0o700 });
  const text = `${JSON.stringify(facts, null, 2)}\n`;
  for (let attempt = 0; ; attempt++) {
    try {
      // 'wx': created by this call with mode 0600, or refused: a file someone else made is never reused.
      await writeFile(path, text, { mode: 0o600, flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    await refuseIfRunning(path, checks.isRunning ?? processIsRunning);
    await rm(path, { force: true });
  }
}

/**
 * Refuses when the stack file at `path` describes a stack that still runs (`npm start` checks this
 * before starting anything, so a second stack says so at once instead of after binding its ports).
 *
 * @throws StackFileError naming the running stack's process id and what to do
 */
export async function refuseIfRunning(
  path: string,
  isRunning: (pid: number) => boolean = processIsRunning,
): Promise<void> {
  const running = await factsIfPresent(path);
  if (running === undefined || running.pid === process.pid || !isRunning(running.pid)) return;
  throw new StackFileError(
    `a local stack is already running in this checkout (process ${running.pid}, started ${running.startedAt}, its file ${path}); stop it with Ctrl-C in its terminal (or kill ${running.pid}), or run this one beside it with --stack-file FILE and other ports`,
  );
}

/** The facts in a readable stack file, or undefined (no file, or not a stack file). */
async function factsIfPresent(path: string): Promise<StackFacts | undefined> {
  try {
    return stackFactsSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return undefined;
  }
}

/** Removes the file if it still describes the stack of `pid` (another stack may have started since). */
export async function removeStackFile(path: string, pid = process.pid): Promise<void> {
  const facts = await factsIfPresent(path);
  if (facts?.pid !== pid) return;
  await rm(path, { force: true });
}

/**
 * Reads the facts of the running stack. The file is trusted only if this user owns it and no one else
 * may write it: its addresses receive the commands' requests (and the demo credentials it carries).
 *
 * @throws StackFileError when no stack is running, the file is not this user's own, is writable by
 *   others, is damaged, or its stack is gone
 * @example
 * ```ts
 * const facts = await readStackFile(DEFAULT_STACK_FILE);
 * facts.buckets.drop; // 'pds-bridge-local-drop'
 * ```
 */
export async function readStackFile(path: string, checks: StackFileChecks = {}): Promise<StackFacts> {
  const text = await trustedText(path, checks.uid ?? process.getuid?.());
  let facts: StackFacts;
  try {
    facts = stackFactsSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new StackFileError(
      `${path} is not a local stack file (${(error as Error).message.split('\n')[0]}); delete it and restart the stack with npm start`,
      { cause: error },
    );
  }
  if (!(checks.isRunning ?? processIsRunning)(facts.pid)) {
    throw new StackFileError(
      `The local stack that wrote ${path} (process ${facts.pid}) is no longer running; start it again with npm start`,
    );
  }
  return facts;
}

/** The file's text, once the open file (not a path that may change meanwhile) passed the trust checks. */
async function trustedText(path: string, uid: number | undefined): Promise<string> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
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
  try {
    const info = await handle.stat();
    const distrust = distrustOf(info, uid);
    if (distrust !== undefined) {
      throw new StackFileError(
        `${path} is not used: ${distrust}. A stack file is trusted only when it is your own and only you can write it, because the commands send requests to the addresses it names; delete it and start the stack again with npm start (it writes the file with mode 600)`,
      );
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Why a stack file with these properties is not trusted, or undefined. */
function distrustOf(info: Stats, uid: number | undefined): string | undefined {
  if (!info.isFile()) return 'it is not a regular file';
  if (uid !== undefined && info.uid !== uid) return `it belongs to user id ${info.uid}, not to you (${uid})`;
  const mode = info.mode & 0o777;
  if (uid !== undefined && (mode & 0o022) !== 0) {
    const who = (mode & 0o020 ? ['group'] : []).concat(mode & 0o002 ? ['others'] : []).join(' and ');
    return `${who} may write it (mode ${mode.toString(8).padStart(3, '0')})`;
  }
  return undefined;
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
