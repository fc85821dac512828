/**
 * A {@link CliIo} for running `pds` in-process (runCli) with what it writes captured: one per run.
 */
import { PassThrough, Readable } from 'node:stream';
import type { CliIo } from '../../packages/cli/src/io.ts';

/** The io and what was written to stdout and stderr so far. */
export interface CapturedIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
}

/**
 * @example
 * ```ts
 * const run = capturingIo({ tty: true });
 * const code = await runCli(['channels'], run.io);
 * expect(run.stdout()).toContain('gdsn-de');
 * ```
 */
export function capturingIo(
  options: { tty?: boolean; env?: Record<string, string | undefined>; cwd?: string } = {},
): CapturedIo {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  const io: CliIo = {
    stdout,
    stderr,
    stdin: Readable.from([]),
    env: options.env ?? {},
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    stderrColumns: 80,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
  };
  return { io, stdout: () => out, stderr: () => err };
}
