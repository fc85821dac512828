/**
 * The body of a PDS answer, taken in one of four ways: read whole (bounded), an excerpt of an error
 * answer, drained so its connection can be reused, or handed on as a stream. Every way runs the body
 * timeout (silence between two chunks while the reader waits for more) and names its failures with
 * the transport's `toPdsError`.
 *
 * The three reads listen on the answer itself: most answers are read whole, and a stream in between
 * (a `PassThrough`, its pipe and its async iterator) cost the bench's bare GET loop a fifth to a third
 * of its CPU per request (docs/benchmarks.md, "The reviews' first poll and the client's CPU per
 * request"). Only {@link AnswerBody.stream} builds one, for a caller that reads at its own pace.
 */
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { type PdsError, type PdsRequestLine, PdsTimeoutError } from './errors.ts';

/** UTF-8, a leading byte order mark dropped (TextDecoder's default); stateless between whole decodes. */
const utf8 = new TextDecoder();

/** What a whole read does with the bytes: keep them up to a limit, keep the first ones, or drop them. */
type Keep = { kind: 'all'; limit: number } | { kind: 'first'; limit: number } | { kind: 'none' };

/**
 * One answer's body. Take it exactly once, in the same tick as the answer's head arrives (the
 * transport does), so no chunk or error is emitted before a listener is there.
 *
 * @example
 * ```ts
 * const text = await answer.body.text(MAX_ANSWER_BYTES); // undefined when the answer is larger
 * ```
 */
export class AnswerBody {
  readonly #res: IncomingMessage;
  readonly #timeoutMs: number;
  readonly #line: PdsRequestLine;
  readonly #toPdsError: (error: unknown, line: PdsRequestLine) => PdsError;

  constructor(
    res: IncomingMessage,
    timeoutMs: number,
    line: PdsRequestLine,
    toPdsError: (error: unknown, line: PdsRequestLine) => PdsError,
  ) {
    this.#res = res;
    this.#timeoutMs = timeoutMs;
    this.#line = line;
    this.#toPdsError = toPdsError;
  }

  /** The whole answer as text; `undefined` (the connection dropped) past `limit` bytes. */
  async text(limit: number): Promise<string | undefined> {
    const bytes = await this.#read({ kind: 'all', limit });
    return bytes === undefined ? undefined : utf8.decode(bytes);
  }

  /** At most `limit` bytes of an error answer as text; a body that breaks only loses the excerpt. */
  async excerpt(limit: number): Promise<string> {
    try {
      return ((await this.#read({ kind: 'first', limit })) ?? Buffer.alloc(0)).toString('utf8');
    } catch {
      return ''; // The status already tells what happened.
    }
  }

  /** Reads the answer to its end and drops it, so its connection can be reused; a failure is dropped too. */
  async drain(): Promise<void> {
    try {
      await this.#read({ kind: 'none' });
    } catch {
      // The status is the answer; a body that breaks only costs the connection.
    }
  }

  /**
   * The body as a stream for a caller that reads at its own pace; its errors are `PdsError`s, and
   * destroying it before the end destroys the connection, which frees its place in the agent. A
   * reader that holds back (the stream paused) is not timed: the PDS is not the slow one then.
   */
  stream(): Readable {
    const res = this.#res;
    const out = new PassThrough();
    let timer: NodeJS.Timeout | undefined;
    const stop = () => clearTimeout(timer);
    res.on('error', (error) => {
      stop();
      out.destroy(this.#toPdsError(error, this.#line));
    });
    out.on('close', () => {
      stop();
      if (!res.destroyed) res.destroy();
    });
    res.pipe(out);
    if (this.#timeoutMs > 0) {
      const fire = () => {
        if (res.isPaused()) timer?.refresh();
        else res.destroy(new PdsTimeoutError('body', this.#timeoutMs, this.#line));
      };
      timer = setTimeout(fire, this.#timeoutMs);
      res.on('data', () => timer?.refresh());
      res.on('resume', () => timer?.refresh());
      res.once('end', stop);
      res.once('close', stop);
    }
    return out;
  }

  /**
   * Reads the answer's chunks as they come, keeping what `keep` says: the bytes, or `undefined` when
   * a whole read passed its limit (the answer is destroyed then, with its connection). Rejects with
   * the failure named as a `PdsError`: a stall longer than the body timeout, a reset, an early close.
   */
  #read(keep: Keep): Promise<Buffer | undefined> {
    const res = this.#res;
    return new Promise<Buffer | undefined>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let timer: NodeJS.Timeout | undefined;
      const finish = (outcome: () => void) => {
        clearTimeout(timer);
        res.off('data', onData);
        res.off('end', onEnd);
        res.off('error', onError);
        res.off('close', onClose);
        outcome();
      };
      const onData = (chunk: Buffer) => {
        timer?.refresh();
        if (keep.kind === 'none') return;
        size += chunk.length;
        if (keep.kind === 'all' && size > keep.limit) {
          res.destroy(); // past a whole read's limit: nothing more is read
          finish(() => resolve(undefined));
          return;
        }
        chunks.push(chunk);
        if (keep.kind === 'first' && size >= keep.limit) {
          res.destroy(); // the excerpt is complete
          finish(() => resolve(Buffer.concat(chunks, size).subarray(0, keep.limit)));
        }
      };
      const onEnd = () =>
        finish(() => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
      const onError = (error: unknown) => finish(() => reject(this.#toPdsError(error, this.#line)));
      // A connection that closes before the end without an error (Node emits one as a rule) is a reset.
      const onClose = () => onError(closedBeforeEnd());
      if (this.#timeoutMs > 0) {
        timer = setTimeout(
          () => res.destroy(new PdsTimeoutError('body', this.#timeoutMs, this.#line)),
          this.#timeoutMs,
        );
      }
      res.on('data', onData);
      res.once('end', onEnd);
      res.on('error', onError);
      res.once('close', onClose);
    });
  }
}

/** The failure of an answer whose connection closed before its end, with no error of its own. */
function closedBeforeEnd(): Error {
  return Object.assign(new Error("the connection closed before the answer's end"), { code: 'ECONNRESET' });
}
