/**
 * The handlers' log records on the stack's terminal. The functions log structured JSON (Powertools,
 * WARN and above unless --verbose), which suits CloudWatch but not a terminal: `npm start` shows each
 * record as one line of its own kind instead, `✗ <function>: <message>: <error>` for an error and
 * `! <function>: <message>` for a warning, as docs/local-stack.md promises. With --verbose the records
 * stay JSON, whole.
 */
import { shownText } from '@pds-bridge/cli/terminal.ts';

/** What a Powertools record carries that the line shows. */
interface LogRecord {
  level?: unknown;
  message?: unknown;
  function_name?: unknown;
  service?: unknown;
  error?: { message?: unknown; name?: unknown } | unknown;
}

/**
 * The terminal line for one output line, or undefined when it is not a handler's JSON log record
 * (the stack's own lines pass as they are).
 *
 * @example
 * ```ts
 * handlerLogLine('{"level":"ERROR","message":"ingest failed","function_name":"ingest","error":{"message":"boom"}}');
 * // '✗ ingest: ingest failed: boom'
 * ```
 */
export function handlerLogLine(line: string): string | undefined {
  if (!line.startsWith('{"')) return undefined;
  let record: LogRecord;
  try {
    record = JSON.parse(line) as LogRecord;
  } catch {
    return undefined;
  }
  if (typeof record.level !== 'string' || typeof record.message !== 'string') return undefined;
  const where = String(record.function_name ?? record.service ?? 'handler');
  const error = record.error as { message?: unknown } | undefined;
  const cause =
    typeof error?.message === 'string' && error.message !== record.message ? `: ${error.message}` : '';
  const mark =
    record.level === 'ERROR' || record.level === 'CRITICAL' ? '✗' : record.level === 'WARN' ? '!' : '·';
  // Partner and PDS text can be in a message: escaped as every other terminal line is.
  return shownText(`${mark} ${where}: ${record.message}${cause}`);
}

/**
 * Rewrites the handler log records written to `stream` (stdout or stderr of this process) with
 * {@link handlerLogLine} until the returned function is called.
 *
 * @example
 * ```ts
 * const restore = [process.stdout, process.stderr].map(showHandlerLogsAsLines);
 * try { await run(); } finally { for (const undo of restore) undo(); }
 * ```
 */
export function showHandlerLogsAsLines(stream: NodeJS.WriteStream): () => void {
  const write = stream.write.bind(stream);
  const rewrite = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text =
      typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined;
    if (text === undefined || !text.startsWith('{"'))
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    const lines = text
      .split('\n')
      .map((line) => handlerLogLine(line) ?? line)
      .join('\n');
    return (write as (...args: unknown[]) => boolean)(lines, ...rest);
  };
  stream.write = rewrite as typeof stream.write;
  return () => {
    stream.write = write;
  };
}
