/**
 * The stack's terminal shows a handler's failure as the `✗` line docs/local-stack.md promises, not as
 * a raw JSON log record; the stack's own lines pass unchanged.
 */
import { describe, expect, it } from 'vitest';
import { handlerLogLine, showHandlerLogsAsLines } from '../../packages/local/src/handler-logs.ts';

const ERROR_RECORD = JSON.stringify({
  level: 'ERROR',
  message: 'ingest of s3://pds-bridge-local-drop/items.csv failed',
  timestamp: '2026-12-07T04:00:00.000Z',
  service: 'pds-bridge',
  function_name: 'ingest',
  error: { name: 'PdsError', message: 'PDS answered 503', stack: 'PdsError: …\n    at …' },
});

describe('handler log records on the stack terminal', () => {
  it('shows an error record as one ✗ line naming the function, the message and the error', () => {
    expect(handlerLogLine(ERROR_RECORD)).toBe(
      '✗ ingest: ingest of s3://pds-bridge-local-drop/items.csv failed: PDS answered 503',
    );
  });

  it('shows a warning as a ! line and escapes control characters from outside text', () => {
    const warning = JSON.stringify({ level: 'WARN', message: 'odd key \u001b[2J', service: 'pds-bridge' });
    expect(handlerLogLine(warning)).toBe('! pds-bridge: odd key \\u001b[2J');
  });

  it("leaves the stack's own lines and other JSON as they are", () => {
    expect(handlerLogLine('04:00:00Z ✗ ingest: boom')).toBeUndefined();
    expect(handlerLogLine('{"specversion":"1.0"}')).toBeUndefined();
  });

  it('rewrites what is written to a stream until restored', () => {
    // prepare
    const written: string[] = [];
    const stream = {
      write: (chunk: string) => {
        written.push(chunk);
        return true;
      },
    } as unknown as NodeJS.WriteStream;

    // act
    const restore = showHandlerLogsAsLines(stream);
    stream.write(`${ERROR_RECORD}\n`);
    stream.write('plain line\n');
    restore();
    stream.write(`${ERROR_RECORD}\n`);

    // assess
    expect(written[0]).toBe(
      '✗ ingest: ingest of s3://pds-bridge-local-drop/items.csv failed: PDS answered 503\n',
    );
    expect(written[1]).toBe('plain line\n');
    expect(written[2]).toBe(`${ERROR_RECORD}\n`);
  });
});
