/**
 * The local stack's S3+SQS endpoint: an HTTP front on 127.0.0.1 that passes every request to the
 * emulator and adds what the emulator lacks, S3's conditional writes (see ./s3-preconditions.ts), and
 * queue URLs that point at this endpoint instead of the emulator's own address (./sqs-queue-urls.ts).
 *
 * Writes of one object (PutObject, CopyObject, CompleteMultipartUpload, DeleteObject) pass one at a
 * time, conditional or not; a conditional one is checked against the object's current ETag (a
 * HeadObject to the emulator) and then carried out or refused before the next write of that key
 * starts. Two clients creating one key at the same instant therefore never both succeed, whichever
 * client they are (the handlers, `pds watch`, the AWS CLI). Reads and every other request go
 * straight through, streamed both ways.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  isConditional,
  type ObjectWrite,
  objectWriteOf,
  refusalOf,
  type S3ErrorAnswer,
  s3ErrorXml,
} from './s3-preconditions.ts';
import { queueUrlFieldsOf, rewriteQueueUrls } from './sqs-queue-urls.ts';

export interface ConditionalEndpointOptions {
  /** The emulator's address, `http://127.0.0.1:PORT`. */
  upstream: string;
  /** Where the endpoint listens; 0 picks a free port. */
  port: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface RunningConditionalEndpoint {
  /** `http://127.0.0.1:PORT`. */
  endpoint: string;
  port: number;
  /** Stops listening and drops open connections; safe to call more than once. */
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request or answer passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  // The client already had its 100 Continue from this endpoint.
  'expect',
]);

/**
 * Starts the endpoint in front of a running emulator.
 *
 * @throws the listen error (`EADDRINUSE` when the port is taken)
 * @example
 * ```ts
 * const front = await startConditionalEndpoint({ upstream: 'http://127.0.0.1:41234', port: 4566 });
 * // S3 clients use front.endpoint; `If-None-Match: *` on an existing key now answers 412
 * await front.close();
 * ```
 */
export async function startConditionalEndpoint(
  options: ConditionalEndpointOptions,
): Promise<RunningConditionalEndpoint> {
  const front: Front = {
    upstream: new URL(options.upstream),
    agent: new http.Agent({ keepAlive: true }),
    writes: new OneAtATimePerKey(),
    // Set once listening; no request arrives before.
    endpoint: '',
  };
  const server = http.createServer((request, response) => route(front, request, response));
  await listen(server, options.port, options.host ?? '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  front.endpoint = `http://127.0.0.1:${port}`;
  let closed: Promise<void> | undefined;
  return {
    endpoint: front.endpoint,
    port,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => front.agent.destroy());
      return closed;
    },
  };
}

/** What every request through the endpoint shares. */
interface Front {
  /** The emulator's address. */
  upstream: URL;
  /** Kept-alive connections to the emulator. */
  agent: http.Agent;
  /** Writes of one object, one at a time. */
  writes: OneAtATimePerKey;
  /** This endpoint's own address, where queue URLs point. */
  endpoint: string;
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** A write of one object waits its turn behind the key's earlier writes; anything else goes straight through. */
function route(front: Front, request: IncomingMessage, response: ServerResponse): void {
  const refusal = browserRefusal(request.headers, front.endpoint);
  if (refusal !== undefined) {
    response.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' });
    response.end(refusal);
    return;
  }
  const write = objectWriteOf({
    method: request.method ?? 'GET',
    url: request.url ?? '/',
    headers: request.headers,
  });
  if (!write) {
    void forward(front, request, response);
    return;
  }
  void front.writes.run(`${write.bucket}/${write.key}`, () => carryOut(front, write, request, response));
}

/**
 * Why a request is refused as coming from a web page, or `undefined`. The emulator checks no
 * signature, so a page open in the developer's browser could otherwise write to it or delete from
 * it (a cross-origin `text/plain` POST needs no preflight). The AWS SDKs and CLIs send neither
 * header; browsers send `Origin` on cross-origin writes and `Sec-Fetch-Site` on every request.
 */
export function browserRefusal(headers: IncomingMessage['headers'], endpoint: string): string | undefined {
  const own = new URL(endpoint);
  const origin = headers.origin;
  if (origin !== undefined && origin !== own.origin && origin !== `http://localhost:${own.port}`) {
    return `Refused: a request from the web page ${origin}. The local S3+SQS emulator answers only this machine's tools (AWS SDKs and CLIs), never a browser.\n`;
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return `Refused: a browser request (Sec-Fetch-Site: ${site}). The local S3+SQS emulator answers only this machine's tools (AWS SDKs and CLIs).\n`;
  }
  return undefined;
}

/** Passes the request to the emulator and its answer back; resolves once the response is closed. */
function forward(front: Front, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { upstream, agent } = front;
  return new Promise((done) => {
    const outgoing = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: endToEnd(request.headers),
        agent,
      },
      (answer) => {
        const queueUrlFields = queueUrlFieldsOf(request.headers);
        if (queueUrlFields && answer.headers['content-encoding'] === undefined) {
          void sendWithQueueUrlsOnEndpoint(answer, response, queueUrlFields, front.endpoint);
          return;
        }
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
        answer.pipe(response);
        // An answer cut short must end the client's response too, or the key's next write would wait forever.
        answer.once('close', () => {
          if (!answer.complete) response.destroy();
        });
      },
    );
    outgoing.once('error', (error) => {
      if (response.headersSent) response.destroy(error);
      else sendError(response, emulatorUnreachable(error));
    });
    response.once('close', () => {
      if (!response.writableFinished) outgoing.destroy();
      done();
    });
    request.pipe(outgoing);
  });
}

/** Forwards the write, unless it is conditional and its condition fails: then the refusal is answered. */
async function carryOut(
  front: Front,
  write: ObjectWrite,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const refusal = isConditional(write) ? await conditionRefusal(front, write) : undefined;
  if (!refusal) {
    await forward(front, request, response);
    return;
  }
  request.resume();
  await new Promise<void>((closed) => {
    response.once('close', () => closed());
    sendError(response, refusal);
  });
}

/** The answer that refuses a conditional write as S3 would; undefined when the write may go ahead. */
async function conditionRefusal(front: Front, write: ObjectWrite): Promise<S3ErrorAnswer | undefined> {
  try {
    const refusal = refusalOf(write, await currentEtag(front, write));
    // A missing bucket is the emulator's to report (NoSuchBucket), not a missing key.
    if (refusal?.code === 'NoSuchKey' && !(await bucketExists(front, write))) return undefined;
    return refusal;
  } catch (error) {
    return emulatorUnreachable(error);
  }
}

/** The ETag the key holds now; undefined when the key, or its bucket, holds nothing. */
async function currentEtag(front: Front, write: ObjectWrite): Promise<string | undefined> {
  const answer = await head(front.agent, front.upstream, objectPath(write));
  if (answer.status === 200) return answer.etag;
  if (answer.status === 404) return undefined;
  throw new Error(`HeadObject answered ${answer.status}`);
}

async function bucketExists(front: Front, write: ObjectWrite): Promise<boolean> {
  return (await head(front.agent, front.upstream, `/${encodeURIComponent(write.bucket)}`)).status !== 404;
}

/**
 * Runs tasks of one key one after another, in the order they arrived; tasks of different keys run
 * side by side. A failed task does not stop the ones behind it.
 */
class OneAtATimePerKey {
  readonly #last = new Map<string, Promise<void>>();

  run(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.#last.get(key) ?? Promise.resolve();
    const current = previous.then(task).catch(() => undefined);
    this.#last.set(key, current);
    void current.then(() => {
      if (this.#last.get(key) === current) this.#last.delete(key);
    });
    return current;
  }
}

/** Path-style address of the object, on the emulator's own host so that no rewriting applies. */
function objectPath(write: ObjectWrite): string {
  return `/${encodeURIComponent(write.bucket)}/${write.key.split('/').map(encodeURIComponent).join('/')}`;
}

function head(
  agent: http.Agent,
  upstream: URL,
  path: string,
): Promise<{ status: number; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: upstream.hostname, port: upstream.port, method: 'HEAD', path, agent },
      (answer) => {
        answer.resume();
        const etag = answer.headers.etag;
        resolve({ status: answer.statusCode ?? 0, etag });
      },
    );
    request.once('error', reject);
    request.end();
  });
}

/** Sends an SQS answer (small JSON) whole, its queue URLs pointed at `endpoint`. */
async function sendWithQueueUrlsOnEndpoint(
  answer: IncomingMessage,
  response: ServerResponse,
  fields: readonly string[],
  endpoint: string,
): Promise<void> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of answer) chunks.push(chunk as Buffer);
  } catch (error) {
    response.destroy(error instanceof Error ? error : undefined);
    return;
  }
  const body = rewriteQueueUrls(Buffer.concat(chunks).toString('utf8'), fields, endpoint);
  const headers = endToEnd(answer.headers);
  headers['content-length'] = String(Buffer.byteLength(body));
  response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
  response.end(body);
}

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

function emulatorUnreachable(error: unknown): S3ErrorAnswer {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    status: 500,
    code: 'InternalError',
    message: `The S3+SQS emulator behind the local stack's endpoint did not answer (${reason}); restart the stack if this persists`,
    details: {},
  };
}

function sendError(response: ServerResponse, answer: S3ErrorAnswer): void {
  const requestId = randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase();
  const body = s3ErrorXml(answer, requestId);
  response.writeHead(answer.status, {
    'content-type': 'application/xml',
    'content-length': Buffer.byteLength(body),
    'x-amz-request-id': requestId,
    'x-amz-id-2': 'pds-bridge-local',
  });
  response.end(body);
}
