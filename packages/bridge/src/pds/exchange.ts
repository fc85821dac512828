/**
 * One HTTP/1.1 exchange with the PDS over Node's own `node:http` / `node:https`: the request sent with
 * its body, the answer's head awaited, and the answer's body handed back to be read whole or streamed
 * (answer-body.ts), each phase under its own timeout. The transport (transport.ts) decides what to send and how failures are named; this
 * module only moves bytes and says which phase stalled.
 *
 * Node's client has no connect, headers or body-idle timeout of its own (a socket timeout only emits an
 * event), so the three are timers here, with the meaning undici's `Pool` gave them:
 * - connect: from the new socket until it is connected (TLS handshake included); a reused keep-alive
 *   socket has none, and a request waiting for a free socket is not timed;
 * - headers: from the moment the whole request is handed to the socket until the answer's head arrives,
 *   and, during an upload, while the socket takes no more bytes (a slow source is not the PDS's delay);
 * - body: silence between two chunks of the answer while its reader is waiting for more (a reader that
 *   holds back, so that the answer is paused, is not the PDS's delay); answer-body.ts runs this one.
 *
 * The request function is called through the module object (`https.request`), never a named import:
 * X-Ray's `captureHTTPsGlobal` (Powertools Tracer, packages/bridge/src/lambda/tracing.ts) replaces that property to trace
 * every request.
 */

import type { Agent, AgentOptions, ClientRequest, IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { AnswerBody } from './answer-body.ts';
import { type PdsError, PdsInvalidRequestError, type PdsRequestLine, PdsTimeoutError } from './errors.ts';

/** The limits of one exchange, in ms; 0 means no limit. */
export interface ExchangeTimeouts {
  connect: number;
  headers: number;
  body: number;
}

/** Where the exchange goes: the PDS's origin, and the keep-alive agent holding its sockets. */
export interface ExchangeTarget {
  agent: Agent;
  /** `https:` or `http:`, as the agent. */
  protocol: string;
  hostname: string;
  port: string;
  timeouts: ExchangeTimeouts;
}

export interface ExchangeRequest {
  line: PdsRequestLine;
  headers: Record<string, string>;
  body: string | Uint8Array | Readable | undefined;
  signal: AbortSignal | undefined;
}

/** The answer's head, and its body (read whole, drained, or streamed; failures named as `PdsError`s). */
export interface ExchangeAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: AnswerBody;
}

/**
 * A socket is reused only while the server surely still holds it open: until this long before the end
 * of the keep-alive time it announced (`Keep-Alive: timeout=5` → 3 s), as undici's `Pool` did. Node's
 * agent keeps 1 s only, and a request sent on a socket the server is closing fails after it may have
 * been read, so a POST could not be repeated.
 */
const KEEP_ALIVE_MARGIN_MS = 2_000;

/** The keep-alive time, in ms, the server announced on a socket with its last answer. */
const announcedKeepAlive = new WeakMap<object, number>();

/**
 * A keep-alive agent of `connections` sockets for `protocol`; an idle socket is closed after
 * `keepAliveTimeoutMs`, or sooner when the server announces a shorter keep-alive time.
 */
export function keepAliveAgent(protocol: string, connections: number, keepAliveTimeoutMs: number): Agent {
  const options: AgentOptions = {
    keepAlive: true,
    maxSockets: connections,
    maxFreeSockets: connections,
    // The agent's socket timeout closes idle sockets only; a request's own time is the timers' here.
    timeout: keepAliveTimeoutMs,
    // Reuse the most recently used socket first, so that surplus ones go idle and are closed.
    scheduling: 'lifo',
  };
  const agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Socket) => boolean;
  agent.keepSocketAlive = ((socket: Socket): boolean => {
    if (!keep(socket)) return false;
    const announced = announcedKeepAlive.get(socket);
    if (announced === undefined) return true;
    const idleMs = announced - KEEP_ALIVE_MARGIN_MS;
    if (idleMs <= 0) return false;
    if (socket.timeout === undefined || socket.timeout === 0 || idleMs < socket.timeout) {
      socket.setTimeout(idleMs);
    }
    return true;
  }) as Agent['keepSocketAlive'];
  return agent;
}

/**
 * Sends one request and resolves with the answer's head once it arrives; rejects with the failure,
 * named by `toPdsError` (one function for every request: nothing is built for a failure that does
 * not happen). `settled` resolves when the exchange is over (answer read or connection
 * dropped), so that closing the transport can wait for it.
 */
export function exchange(
  target: ExchangeTarget,
  request: ExchangeRequest,
  toPdsError: (error: unknown, line: PdsRequestLine) => PdsError,
): { answer: Promise<ExchangeAnswer>; settled: Promise<void> } {
  const { line } = request;
  const client = target.protocol === 'https:' ? https : http;
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const req = client.request({
    agent: target.agent,
    protocol: target.protocol,
    hostname: target.hostname,
    port: target.port,
    method: line.method,
    path: line.path,
    // A new object each attempt: X-Ray adds its X-Amzn-Trace-Id to it, and leaves untraced a request
    // whose headers already carry one (a retry sent with the first attempt's object would be).
    headers: { ...framing(body, request.headers), ...request.headers },
    signal: request.signal,
  });
  const settled = new Promise<void>((resolve) => req.once('close', resolve));
  const answer = new Promise<ExchangeAnswer>((resolve, reject) => {
    const clock = new ExchangeClock(req, target.timeouts, line);
    // Set once 'response' or 'error' came: from then on the promise is settled, and 'close' (which
    // follows every request) must not build an error nobody will see.
    let decided = false;
    req.once('socket', (socket) => clock.socketAssigned(socket, req.reusedSocket));
    req.once('close', () => {
      clock.stop();
      // Node emits 'error' or 'response' before 'close'; should neither come, the call must not hang.
      if (!decided) reject(toPdsError(closedBeforeAnswer(), line));
    });
    req.on('error', (error) => {
      decided = true;
      clock.stop();
      reject(toPdsError(error, line));
    });
    req.once('response', (res: IncomingMessage) => {
      decided = true;
      clock.stop();
      const headers = headersOf(res.rawHeaders);
      rememberKeepAlive(res, headers['keep-alive']);
      resolve({
        status: res.statusCode ?? 0,
        headers,
        body: new AnswerBody(res, target.timeouts.body, line, toPdsError),
      });
    });
    void sendBody(req, body, request.headers, line, clock);
  });
  return { answer, settled };
}

/** The failure of a request whose connection closed with neither an answer nor an error. */
function closedBeforeAnswer(): Error {
  return Object.assign(new Error('the connection closed before an answer'), { code: 'ECONNRESET' });
}

/**
 * How the body's end is told: Node frames a body itself only for the methods that usually carry one
 * (POST, PUT, PATCH), so a DELETE with a body would go out unframed and be read as having none.
 */
function framing(
  body: Uint8Array | Readable | undefined,
  headers: Record<string, string>,
): Record<string, string> {
  if (body === undefined || headers['content-length'] !== undefined) return {};
  return body instanceof Readable
    ? { 'transfer-encoding': 'chunked' }
    : { 'content-length': String(body.length) };
}

/** Notes the keep-alive time the server announced (`Keep-Alive: timeout=N`, seconds) on its socket. */
function rememberKeepAlive(res: IncomingMessage, keepAlive: string | string[] | undefined): void {
  if (keepAlive === undefined) return;
  const seconds = /\btimeout=(\d+)/i.exec(String(keepAlive))?.[1];
  if (seconds !== undefined && res.socket) announcedKeepAlive.set(res.socket, Number(seconds) * 1000);
}

/**
 * The answer's headers, names lower case; a header sent more than once as an array of its values.
 * Read from the raw pairs in one pass: Node's `headers` and `headersDistinct` are each an object of
 * their own, built on first use.
 */
function headersOf(raw: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] as string).toLowerCase();
    const value = raw[index + 1] as string;
    const earlier = Object.hasOwn(headers, name) ? headers[name] : undefined;
    if (earlier === undefined) headers[name] = value;
    else if (Array.isArray(earlier)) earlier.push(value);
    else headers[name] = [earlier, value];
  }
  return headers;
}

/**
 * Writes the body with backpressure and ends the request. A failing source, or a size other than the
 * declared `content-length`, destroys the request with that error, so nothing short is ever sent.
 */
async function sendBody(
  req: ClientRequest,
  body: Uint8Array | Readable | undefined,
  headers: Record<string, string>,
  line: PdsRequestLine,
  clock: ExchangeClock,
): Promise<void> {
  const declared = declaredLength(headers);
  try {
    if (!(body instanceof Readable)) {
      if (declared !== undefined && (body?.length ?? 0) !== declared) throw lengthMismatch(line);
      req.end(body);
      clock.requestSent();
      return;
    }
    // Once the exchange is over (answered early, failed, timed out), the source is not read further.
    req.once('close', () => body.destroy());
    let sent = 0;
    for await (const chunk of body) {
      const bytes: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      sent += bytes.length;
      if (declared !== undefined && sent > declared) throw lengthMismatch(line);
      if (req.destroyed) return;
      if (!req.write(bytes)) await clock.whileSocketBusy(drained(req));
    }
    if (declared !== undefined && sent !== declared) throw lengthMismatch(line);
    if (req.destroyed) return;
    req.end();
    clock.requestSent();
  } catch (error) {
    req.destroy(error as Error);
  }
}

function declaredLength(headers: Record<string, string>): number | undefined {
  const value = headers['content-length'];
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function lengthMismatch(line: PdsRequestLine): PdsInvalidRequestError {
  return new PdsInvalidRequestError(
    'the body length differs from its content-length header; declare the exact size',
    line,
  );
}

/** Resolves when the request can take more bytes, or is over. */
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

/** The connect and headers timers of one request (see the module comment for what each measures). */
class ExchangeClock {
  readonly #req: ClientRequest;
  readonly #timeouts: ExchangeTimeouts;
  readonly #line: PdsRequestLine;
  #connectTimer: NodeJS.Timeout | undefined;
  #headersTimer: NodeJS.Timeout | undefined;
  #connected = false;
  #sent = false;
  #socketBusy = false;
  #stopped = false;

  constructor(req: ClientRequest, timeouts: ExchangeTimeouts, line: PdsRequestLine) {
    this.#req = req;
    this.#timeouts = timeouts;
    this.#line = line;
  }

  socketAssigned(socket: Socket, reused: boolean): void {
    if (this.#stopped) return;
    const tls = (socket as TLSSocket).encrypted === true;
    if (reused || (!tls && !socket.connecting)) {
      this.#setConnected();
      return;
    }
    socket.once(tls ? 'secureConnect' : 'connect', () => this.#setConnected());
    if (this.#timeouts.connect > 0) {
      this.#connectTimer = setTimeout(
        () => this.#fail(new PdsTimeoutError('connect', this.#timeouts.connect, this.#line)),
        this.#timeouts.connect,
      );
    }
  }

  /** The whole request is handed to the socket: the wait for the answer begins. */
  requestSent(): void {
    this.#sent = true;
    this.#update();
  }

  /** Times `wait` as part of the headers phase: the socket is not taking the upload's bytes. */
  async whileSocketBusy(wait: Promise<void>): Promise<void> {
    this.#socketBusy = true;
    this.#update();
    try {
      await wait;
    } finally {
      this.#socketBusy = false;
      this.#update();
    }
  }

  /** The answer's head arrived or the exchange failed: no more timers. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#connectTimer);
    clearTimeout(this.#headersTimer);
  }

  #setConnected(): void {
    clearTimeout(this.#connectTimer);
    this.#connected = true;
    this.#update();
  }

  #update(): void {
    const waiting = !this.#stopped && this.#connected && (this.#sent || this.#socketBusy);
    if (!waiting || this.#timeouts.headers === 0) {
      clearTimeout(this.#headersTimer);
      this.#headersTimer = undefined;
    } else if (this.#headersTimer === undefined) {
      this.#headersTimer = setTimeout(
        () => this.#fail(new PdsTimeoutError('headers', this.#timeouts.headers, this.#line)),
        this.#timeouts.headers,
      );
    }
  }

  #fail(error: PdsTimeoutError): void {
    this.stop();
    this.#req.destroy(error);
  }
}
