/**
 * The body of a PDS answer read straight from Node's answer (packages/bridge/src/pds/answer-body.ts):
 * whole up to a limit, an excerpt, drained, or streamed, each failure named by the transport's
 * function. Against a real server on 127.0.0.1, so the chunks, resets and stalls are Node's own.
 */
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AnswerBody } from '../../packages/bridge/src/pds/answer-body.ts';
import { PdsNetworkError, PdsTimeoutError } from '../../packages/bridge/src/pds/errors.ts';

const line = { method: 'GET', path: '/x' };
/** Stands in for the transport's `toPdsError`: every lower-level failure becomes a network error. */
const named = (error: unknown) =>
  error instanceof PdsTimeoutError ? error : new PdsNetworkError(String(error), line, true);
const cleanups: Array<() => unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A server whose handler writes the answer; resolves with the answer's body to read, timed at `timeoutMs`. */
async function answerFrom(
  handler: (res: http.ServerResponse) => void,
  timeoutMs = 1_000,
): Promise<{ body: AnswerBody; res: http.IncomingMessage }> {
  const server = http.createServer((_req, res) => handler(res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as net.AddressInfo;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get({ host: '127.0.0.1', port, path: '/x', agent: false }, resolve).on('error', reject),
  );
  return { body: new AnswerBody(res, timeoutMs, line, named), res };
}

/** Writes `text` in chunks of `size` bytes, a few ms apart, then ends. */
function inChunks(text: string, size: number) {
  return (res: http.ServerResponse) => {
    res.writeHead(200);
    const bytes = Buffer.from(text);
    let at = 0;
    const next = () => {
      if (at >= bytes.length) {
        res.end();
        return;
      }
      res.write(bytes.subarray(at, at + size));
      at += size;
      setTimeout(next, 2);
    };
    next();
  };
}

describe('AnswerBody', () => {
  it('reads an answer that came in several chunks whole, up to and including the limit', async () => {
    const { body } = await answerFrom(inChunks('<x>héllo wörld</x>', 4));

    expect(await body.text(Buffer.byteLength('<x>héllo wörld</x>'))).toBe('<x>héllo wörld</x>');
  });

  it('refuses an answer one byte over the limit and drops its connection', async () => {
    const { body, res } = await answerFrom(inChunks('0123456789A', 3));

    expect(await body.text(10)).toBeUndefined();
    expect(res.destroyed).toBe(true);
  });

  it('keeps only the first bytes of an excerpt, and drains an answer to its end', async () => {
    const excerpt = await (await answerFrom(inChunks('not found: no such item', 5))).body.excerpt(9);
    const drained = await answerFrom(inChunks('ignored', 2));
    await drained.body.drain();

    expect(excerpt).toBe('not found');
    expect(drained.res.complete).toBe(true);
  });

  it('names a reset in the middle of the answer, and a stall longer than the body timeout', async () => {
    const reset = await answerFrom((res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const stalled = await answerFrom((res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
    }, 50);

    const resetError = await reset.body.text(1_000).catch((error: unknown) => error);
    const stallError = await stalled.body.text(1_000).catch((error: unknown) => error);

    expect(resetError).toBeInstanceOf(PdsNetworkError);
    expect(stallError).toBeInstanceOf(PdsTimeoutError);
    expect((stallError as PdsTimeoutError).phase).toBe('body');
  });

  it('hands the answer on as a stream when the caller reads it at its own pace', async () => {
    const { body } = await answerFrom(inChunks('a streamed answer', 3));

    let text = '';
    for await (const chunk of body.stream()) text += String(chunk);

    expect(text).toBe('a streamed answer');
  });
});
