/**
 * Connection settings of `pds`: the same environment variables as the bridge's functions
 * (`PDS_BASE_URL`, `PDS_USERNAME`, `PDS_PASSWORD`, `PDS_CREDENTIALS_SECRET_ID`), overridden by flags
 * (`--base-url`, `--username`, `--password` or `--password-stdin`). Without an address, the PDS of the
 * running local stack (packages/cli/src/local-stack.ts), with the simulator's demo credentials from its
 * stack file or ones typed on the command line, never the environment's.
 */
import type { Readable } from 'node:stream';
import { UsageError } from '@pds-bridge/bridge/core';
import type { PdsCredentials } from '@pds-bridge/bridge/pds';
import { resolveCredentials } from '@pds-bridge/bridge/pds';
import { createFullPdsClient, type FullPdsClient } from '@pds-bridge/bridge/pds/resources';
import { booleanFlag, type FlagValues, stringFlag } from './args.ts';
import type { CliIo } from './io.ts';
import { type FoundStack, findLocalStack, LOCAL_STACK_HINT } from './local-stack.ts';

/** Longest password read from standard input. */
const MAX_STDIN_PASSWORD_BYTES = 64 * 1024;

/**
 * Builds the client from flags and environment.
 *
 * @throws UsageError when the address or a credential is missing, or two password sources are given
 * @throws ConfigError when the environment's credentials or the secret cannot be used
 * @example
 * ```ts
 * const pds = await connect({ 'base-url': 'http://127.0.0.1:4010' }, io, 'channels');
 * ```
 */
export async function connect(flags: FlagValues, io: CliIo, command: string): Promise<FullPdsClient> {
  const baseUrl = stringFlag(flags, 'base-url') ?? io.env.PDS_BASE_URL;
  if (baseUrl) return createFullPdsClient({ baseUrl, credentials: await credentialsOf(flags, io, command) });
  // No address named: the local stack's PDS (the simulator, or the PDS it was started with).
  const stack = await findLocalStack(flags, io, command);
  if (!stack) {
    throw new UsageError(
      `no PDS address: set PDS_BASE_URL or pass --base-url URL, ${LOCAL_STACK_HINT}`,
      command,
    );
  }
  return createFullPdsClient({
    baseUrl: stack.facts.pds.url,
    credentials: await stackCredentials(stack, flags, io, command),
  });
}

/**
 * The credentials sent to the address a stack file names: the ones in the file (the simulator's demo
 * credentials) or ones typed for this command (`--username`, `--password`, `--password-stdin`). Those
 * of the environment or Secrets Manager go only to an address the user named (`--base-url`,
 * `PDS_BASE_URL`): a stack file is not where a user's real credentials should be sent on its word.
 */
async function stackCredentials(
  stack: FoundStack,
  flags: FlagValues,
  io: CliIo,
  command: string,
): Promise<PdsCredentials> {
  const { pds } = stack.facts;
  const typed =
    stringFlag(flags, 'username') !== undefined ||
    stringFlag(flags, 'password') !== undefined ||
    booleanFlag(flags, 'password-stdin');
  if (!typed && pds.password !== undefined) return { username: pds.username, password: pds.password };
  if (!typed) {
    throw new UsageError(
      `the local stack (${stack.path}) uses the PDS at ${pds.url}, and credentials from the environment or Secrets Manager are sent only to an address you name: pass --base-url ${pds.url} (or set PDS_BASE_URL), or type them with --username and --password-stdin`,
      command,
    );
  }
  if (stringFlag(flags, 'password') === undefined && !booleanFlag(flags, 'password-stdin')) {
    throw new UsageError(
      `--username needs --password-stdin (or --password) for the local stack's PDS at ${pds.url}; PDS_PASSWORD is sent only to an address you name with --base-url or PDS_BASE_URL`,
      command,
    );
  }
  // Typed for this command: the environment fills nothing in (only the user name the file names).
  return credentialsOf(flags, { ...io, env: { PDS_USERNAME: pds.username } }, command);
}

async function credentialsOf(flags: FlagValues, io: CliIo, command: string): Promise<PdsCredentials> {
  const fromStdin = booleanFlag(flags, 'password-stdin');
  const passwordFlag = stringFlag(flags, 'password');
  const usernameFlag = stringFlag(flags, 'username');
  if (fromStdin && passwordFlag !== undefined) {
    throw new UsageError('pass either --password or --password-stdin, not both', command);
  }
  if (!fromStdin && passwordFlag === undefined && usernameFlag === undefined) {
    // Only the environment: the same rules (and Secrets Manager) as the bridge's functions.
    return resolveCredentials({ env: io.env });
  }
  const username = usernameFlag ?? io.env.PDS_USERNAME;
  const password = fromStdin ? await readPassword(io.stdin) : (passwordFlag ?? io.env.PDS_PASSWORD);
  if (!username) throw new UsageError('no user name: set PDS_USERNAME or pass --username NAME', command);
  if (!password) {
    throw new UsageError('no password: set PDS_PASSWORD, pass --password-stdin or --password', command);
  }
  return { username, password };
}

/** The first line of standard input (without its line break). */
async function readPassword(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    chunks.push(buffer);
    size += buffer.length;
    if (size > MAX_STDIN_PASSWORD_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}
