/**
 * The simulator's HTTP server: latency and faults, Basic authentication (401, or what the route asks
 * for), dispatch through the route table, the JSON error answer, and writing replies with an exact
 * Content-Length (streamed replies go out chunked). No business logic.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { SimulatorHttpError } from './errors.ts';
import type { FaultDecision, FaultInjector } from './faults.ts';
import { errorReply, type Reply } from './reply.ts';
import type { Router } from './router.ts';

/** One handled request, as `RunningSimulator.requestLog` shows it; status 0 when the connection was reset. */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
}

export interface ServerDeps {
  router: Router;
  faults: FaultInjector;
  username: string;
  password: string;
  requestLog: RequestLogEntry[];
  /** Aborted on close: cuts injected latency short. */
  signal: AbortSignal;
}

/** Bodies are written in slices of this size, so a large XML message is streamed, not written at once. */
const WRITE_SLICE_BYTES = 64 * 1024;

/**
 * Creates (does not start) the HTTP server.
 *
 * @example
 * const server = createSimulatorServer({ router, faults, username: 'demo', password: 'demo', requestLog: [], signal });
 * server.listen(0, '127.0.0.1');
 */
export function createSimulatorServer(deps: ServerDeps): Server {
  const server = createServer((req, res) => {
    handle(deps, req, res).catch(() => {
      // The connection failed while answering (client went away); nothing is left to tell it.
      res.destroy();
    });
  });
  // Large uploads over slow links must not be cut off by Node's default 5-minute request timeout.
  server.requestTimeout = 0;
  return server;
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const rawUrl = req.url ?? '/';
  const path = rawUrl.split('?')[0] ?? '/';
  const log = (status: number) => deps.requestLog.push({ method, path: rawUrl, status });
  const latency = deps.faults.latencyFor(path);
  if (latency > 0) await sleep(latency, undefined, { signal: deps.signal });
  const fault = deps.faults.decide(method, path);
  if (fault?.kind === 'reset' && hasBody(req)) {
    await readSomeOf(req);
    log(0);
    req.socket.destroy();
    return;
  }
  const reply = fault?.kind === 'status' ? faultReply(fault) : await serve(deps, req, rawUrl);
  await drain(req);
  if (fault?.kind === 'reset') {
    log(0);
    await writePartial(res, reply);
    return;
  }
  log(reply.status);
  await writeReply(res, reply);
}

async function serve(deps: ServerDeps, req: IncomingMessage, rawUrl: string): Promise<Reply> {
  const [path = '/', query = ''] = rawUrl.split(/\?(.*)/s);
  const method = req.method ?? 'GET';
  const signedIn = isAuthorized(req, deps.username, deps.password);
  if (!signedIn) {
    const policy = deps.router.signedOutPolicy(method, path);
    if (policy === 401) {
      return errorReply(401, 'Missing or wrong credentials; send HTTP Basic authentication', {
        'www-authenticate': 'Basic realm="PDS"',
      });
    }
    if (policy === 403) {
      return errorReply(
        403,
        'Sign-in required: missing or wrong credentials; send HTTP Basic authentication',
      );
    }
  }
  try {
    const match = deps.router.match(method, path);
    if (match.kind === 'not-found') return errorReply(404, `No operation exists at ${path}; check the path`);
    if (match.kind === 'method-not-allowed') {
      const allow = match.allow.join(', ');
      return errorReply(405, `${method} is not supported on ${path}; use ${allow}`, { allow });
    }
    return await match.route.handler({
      req,
      params: match.params,
      query: new URLSearchParams(query),
      rest: match.rest,
      user: signedIn ? deps.username : '',
    });
  } catch (error) {
    if (error instanceof SimulatorHttpError) return errorReply(error.status, error.message, error.headers);
    return errorReply(500, `The simulator failed: ${(error as Error).message}`);
  }
}

function faultReply(fault: Extract<FaultDecision, { kind: 'status' }>): Reply {
  const retryable = fault.status === 429 || fault.status === 503;
  const headers: Record<string, string> = retryable ? { 'retry-after': String(fault.retryAfterSeconds) } : {};
  return errorReply(fault.status, `Simulated fault ${fault.status}; retry later`, headers);
}

function isAuthorized(req: IncomingMessage, username: string, password: string): boolean {
  const header = req.headers.authorization ?? '';
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match?.[1]) return false;
  // Comparing digests keeps the comparison constant-time whatever the lengths.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const given = Buffer.from(match[1], 'base64').toString('utf8');
  return timingSafeEqual(digest(given), digest(`${username}:${password}`));
}

function hasBody(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return length > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** Resolves once the first chunk of the request body (or its end) has arrived. */
async function readSomeOf(req: IncomingMessage): Promise<void> {
  if (req.readableEnded) return;
  await firstOf(req, ['data', 'end', 'close']);
  req.pause();
}

/** Reads and discards what a handler left unread, so the answer never races the upload. */
async function drain(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return;
  req.resume();
  await firstOf(req, ['end', 'close']);
}

/** Resolves on the first of `events`, leaving no listener behind (large bodies wait many times). */
function firstOf(emitter: EventEmitter, events: string[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      for (const event of events) emitter.off(event, done);
      resolve();
    };
    for (const event of events) emitter.on(event, done);
  });
}

/** 204 and 304 answers must not carry Content-Length (RFC 9110); they never have a body. */
const BODILESS_STATUSES = new Set([204, 304]);

function headersOf(reply: Reply, body: Buffer): Record<string, string> {
  if (BODILESS_STATUSES.has(reply.status)) return { ...reply.headers };
  return { ...reply.headers, 'content-length': String(body.length) };
}

/**
 * The connection an answer goes out on. An answer queued behind the previous one on a keep-alive
 * connection (the client sent its next request as soon as it had read the previous answer, before
 * that answer's stream had ended here) has no `res.socket` until its turn comes; its request has.
 */
function connectionOf(res: ServerResponse): Socket | null {
  return res.socket ?? res.req?.socket ?? null;
}

async function writeReply(res: ServerResponse, reply: Reply): Promise<void> {
  // The client may have gone while the request was handled (an aborted upload): nobody is left to answer.
  const connection = connectionOf(res);
  if (!connection || connection.destroyed) {
    if (reply.body instanceof Readable) reply.body.destroy();
    return;
  }
  if (reply.body instanceof Readable) {
    // Length unknown up front (a ZIP built on the fly) unless the handler set it: sent chunked.
    res.writeHead(reply.status, { ...reply.headers });
    await pipeline(reply.body, res);
    return;
  }
  const body = Buffer.from(reply.body ?? '');
  res.writeHead(reply.status, headersOf(reply, body));
  for (let offset = 0; offset < body.length; offset += WRITE_SLICE_BYTES) {
    if (!res.write(body.subarray(offset, offset + WRITE_SLICE_BYTES))) {
      if (res.destroyed) return;
      await firstOf(res, ['drain', 'close']);
      if (res.destroyed) return;
    }
  }
  res.end();
}

/**
 * A connection reset mid-answer: the headers and the first half of the body (the first chunk of a
 * streamed body), then the socket is destroyed.
 */
async function writePartial(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.body instanceof Readable) {
    await writePartialStream(res, reply, reply.body);
    return;
  }
  const body = Buffer.from(reply.body ?? '');
  const connection = connectionOf(res);
  if (!connection || connection.destroyed) return;
  if (body.length < 2) {
    // Too short to cut: a complete empty answer would look like success, so reset before the headers.
    connection.destroy();
    return;
  }
  res.writeHead(reply.status, headersOf(reply, body));
  await new Promise<void>((resolve) =>
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => resolve()),
  );
  connection.destroy();
}

async function writePartialStream(res: ServerResponse, reply: Reply, stream: Readable): Promise<void> {
  const connection = connectionOf(res);
  if (!connection || connection.destroyed) {
    stream.destroy();
    return;
  }
  res.writeHead(reply.status, { ...reply.headers });
  // Leaving the loop destroys the stream (and the files it reads).
  for await (const chunk of stream) {
    await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
    break;
  }
  connection.destroy();
}
