/**
 * How every `pds` command finds the local stack (`npm start`) when no deployed target is named: the
 * global `--stack-file FILE`, else `.local/stack.json` in the working directory or the nearest folder
 * above it (packages/cli/src/stack-file.ts `findStackFile`), so a command run from `docs/` or `test/` finds the
 * stack started at the root of the checkout. One helper for the PDS commands (address and demo
 * credentials), the watch list (state bucket) and `pds bridge …` (bucket and queues), so each says the
 * same thing when no stack runs.
 */
import { UsageError } from '@pds-bridge/bridge/core';
import { type FlagValues, stringFlag } from './args.ts';
import type { CliIo } from './io.ts';
import { findStackFile, readStackFile, type StackFacts } from './stack-file.ts';

/** The running local stack: its facts and the file they came from. */
export interface FoundStack {
  facts: StackFacts;
  path: string;
}

/** The sentence every command ends its "nothing to connect to" error with. */
export const LOCAL_STACK_HINT =
  'or start the local stack with npm start in this checkout (found from any folder inside it), or pass --stack-file FILE';

/**
 * The local stack the command should use, or undefined when none was named and none is found.
 *
 * @throws UsageError when `--stack-file` names a file that is missing or damaged, or the stack that
 *   wrote the found file is no longer running
 * @example
 * ```ts
 * const stack = await findLocalStack(flags, io, 'watch list');
 * if (stack) bucket = stack.facts.buckets.state;
 * ```
 */
export async function findLocalStack(
  flags: FlagValues,
  io: Pick<CliIo, 'cwd'>,
  command: string,
): Promise<FoundStack | undefined> {
  const path = stringFlag(flags, 'stack-file') ?? findStackFile(io.cwd ?? process.cwd());
  if (path === undefined) return undefined;
  try {
    return { facts: await readStackFile(path), path };
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
}
