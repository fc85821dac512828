/**
 * Where the `pds` command reads and writes: standard streams, the environment and the terminal flags.
 * Commands only use this interface, so tests run them in-process with fake streams.
 */
import type { Readable, Writable } from 'node:stream';

/** The streams and environment of one `pds` run. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  env: Record<string, string | undefined>;
  /** True when stdout is a terminal: tables instead of JSON. */
  stdoutIsTTY: boolean;
  /** True when stderr is a terminal: a redrawn progress bar instead of plain lines. */
  stderrIsTTY: boolean;
  /** Terminal width of stderr, for the progress bar; 80 when unknown. */
  stderrColumns: number;
  /** Where the local stack is looked for (and above); the process's working directory when absent. */
  cwd?: string;
}

/**
 * The real process streams.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(process.argv.slice(2), processIo());
 * ```
 */
export function processIo(): CliIo {
  // A reader that went away (`pds … | head`) is not an error worth a message.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stderrColumns: process.stderr.columns || 80,
    cwd: process.cwd(),
  };
}

/** Writes `text` plus a newline. */
export function writeLine(stream: Writable, text: string): void {
  stream.write(`${text}\n`);
}
