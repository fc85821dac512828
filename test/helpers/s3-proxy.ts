/**
 * An HTTP proxy on 127.0.0.1 in front of an S3 emulator (moto), for the two things the emulator cannot
 * do by itself:
 *
 * - `atomicConditionalWrites`: conditional writes (If-None-Match / If-Match) of one key pass one at a
 *   time, as on S3. moto checks and writes without a lock, so two simultaneous creates of one key can
 *   both succeed there; behind this proxy they cannot, and concurrency tests do not depend on luck.
 * - `deny`: a request the predicate picks is answered 403 AccessDenied, as IAM would refuse it.
 * - `loseAnswer`: a request the predicate picks is forwarded and carried out, then its answer is
 *   thrown away and the client's connection reset, as when a response is lost on the network. The
 *   SDK then retries a request that already took effect.
 *
 * @example
 * ```ts
 * const proxy = await startS3Proxy(moto.endpoint, { loseAnswer: (r) => r.method === 'PUT' && r.headers['if-match'] !== undefined });
 * const s3 = new S3Client({ endpoint: proxy.endpoint, forcePathStyle: true, ... });
 * ```
 */

import { randomUUID } from 'node:crypto';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { S3StateStore } from '../../packages/bridge/src/state/s3/store.ts';
import { type MotoServer, motoS3Client } from './moto.ts';

/** What the proxy knows of a request when it decides. */
export interface ProxiedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

export interface S3ProxyOptions {
  /** Serialise conditional PUT and DELETE requests per path. Default true. */
  atomicConditionalWrites?: boolean;
  /** Answers of the requests it returns true for are lost after the emulator carried them out. */
  loseAnswer?: (request: ProxiedRequest) => boolean;
  /**
   * Requests it returns true for are answered 403 AccessDenied without reaching the emulator, as S3
   * answers a caller whose IAM policy does not allow them.
   */
  deny?: (request: ProxiedRequest) => boolean;
}

export interface S3Proxy {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Requests whose answer was lost so far. */
  readonly lostAnswers: ProxiedRequest[];
  /** Requests answered 403 so far. */
  readonly denied: ProxiedRequest[];
  close(): Promise<void>;
}

/** Starts the proxy in front of `target` (an `http://127.0.0.1:PORT` endpoint). */
export async function startS3Proxy(target: string, options: S3ProxyOptions = {}): Promise<S3Proxy> {
  const upstream = new URL(target);
  const atomic = options.atomicConditionalWrites ?? true;
  const lostAnswers: ProxiedRequest[] = [];
  const denied: ProxiedRequest[] = [];
  // One promise chain per object path: conditional writes to it queue behind each other.
  const chains = new Map<string, Promise<void>>();
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((request, response) => {
    const seen: ProxiedRequest = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      headers: request.headers,
    };
    if (options.deny?.(seen)) {
      denied.push(seen);
      request.resume();
      response.writeHead(403, { 'content-type': 'application/xml' });
      response.end(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>proxy</RequestId></Error>',
      );
      return;
    }
    const conditional =
      (seen.method === 'PUT' || seen.method === 'DELETE') &&
      (request.headers['if-match'] !== undefined || request.headers['if-none-match'] !== undefined);
    const forward = () =>
      new Promise<void>((done) => {
        const outgoing = http.request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: seen.method,
            path: seen.url,
            headers: request.headers,
            agent,
          },
          (answer) => {
            if (options.loseAnswer?.(seen)) {
              lostAnswers.push(seen);
              answer.resume();
              answer.once('end', () => {
                request.socket.destroy();
                done();
              });
              return;
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
            answer.once('end', () => done());
            answer.once('error', () => done());
          },
        );
        outgoing.once('error', (error) => {
          if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
          response.end(`proxy: ${error.message}`);
          done();
        });
        request.pipe(outgoing);
      });

    if (!(atomic && conditional)) {
      void forward();
      return;
    }
    const path = seen.url.split('?')[0] ?? seen.url;
    const previous = chains.get(path) ?? Promise.resolve();
    const current = previous.then(forward);
    chains.set(path, current);
    void current.then(() => {
      if (chains.get(path) === current) chains.delete(path);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    lostAnswers,
    denied,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** A fresh state bucket on moto, reached through a proxy, and the same bucket reached directly. */
export interface ProxiedStateBucket {
  /** Reads and writes through the proxy. */
  store: S3StateStore;
  /** Reads and writes straight to moto, as another writer or an operator would. */
  direct: S3StateStore;
  proxy: S3Proxy;
  bucket: string;
}

/**
 * Creates a bucket on `aws` and a proxy in front of it with `options` (answers lost, requests
 * denied); what it opens is pushed to `open` for the test file's afterEach to close.
 */
export async function proxiedStateBucket(
  aws: MotoServer,
  options: S3ProxyOptions,
  open: Array<{ close(): Promise<void> } | { destroy(): void }>,
): Promise<ProxiedStateBucket> {
  const bucket = `state-${randomUUID().slice(0, 8)}`;
  await aws.createBucket(bucket);
  const proxy = await startS3Proxy(aws.endpoint, options);
  const client = motoS3Client(proxy.endpoint, aws.region);
  open.push(proxy, client);
  return {
    store: new S3StateStore({ client, bucket }),
    direct: new S3StateStore({ client: aws.s3, bucket }),
    proxy,
    bucket,
  };
}
