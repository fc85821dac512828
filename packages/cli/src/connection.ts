/**
 * Connection settings of `pds`: the same environment variables as the bridge's functions
 * (`PDS_BASE_URL`, `PDS_USERNAME`, `PDS_PASSWORD`, `PDS_CREDENTIALS_SECRET_ID`), overridden by flags
 * (`--base-url`, `--username`, `--password` or `--password-stdin`). Without an address, the PDS of the
 * running local stack (packages/cli/src/local-stack.ts), with the simulator's demo credentials.
 */
import type { Readable } from 'node:stream';
import { UsageError } from '@pds-bridge/bridge/core';
import type { PdsCredentials } from '@pds-bridge/bridge/pds';
import { resolveCredentials } from '@pds-bridge/bridge/pds';
import { createFullPdsClient, type FullPdsClient } from '@pds-bridge/bridge/pds/resources';
import { booleanFlag, type FlagValues, stringFlag } from './args.ts';
import type { CliIo } from './io.ts';
import { findLocalStack, LOCAL_STACK_HINT } from './local-stack.ts';

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
  const { pds } = stack.facts;
  const named = stringFlag(flags, 'username') !== undefined || stringFlag(flags, 'password') !== undefined;
  const credentials =
    pds.password !== undefined && !named && !booleanFlag(flags, 'password-stdin')
      ? { username: pds.username, password: pds.password }
      : await credentialsOf(flags, { ...io, env: { PDS_USERNAME: pds.username, ...io.env } }, command);
  return createFullPdsClient({ baseUrl: pds.url, credentials });
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
