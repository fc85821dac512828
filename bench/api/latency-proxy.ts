/**
 * An HTTP proxy on 127.0.0.1 that holds every request for a fixed time before passing it on, so a
 * local S3+SQS emulator answers like a remote one: each round trip costs at least `latencyMs`.
 * It counts the requests it passed, so the benchmark can say how many round trips one API request
 * made.
 *
 * @example
 * ```ts
 * const proxy = await startLatencyProxy({ upstream: emulator.endpoint, latencyMs: 20 });
 * // point the AWS SDK at proxy.endpoint
 * ```
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface LatencyProxy {
  /** `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  /** Requests passed on so far. */
  requests(): number;
  close(): Promise<void>;
}

export async function startLatencyProxy(options: {
  upstream: string;
  latencyMs: number;
}): Promise<LatencyProxy> {
  const upstream = new URL(options.upstream);
  const agent = new http.Agent({ keepAlive: true });
  let count = 0;

  const server = http.createServer((request, response) => {
    count += 1;
    // The whole body is read before the wait, as a remote service only answers once it has it.
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      await delay(options.latencyMs);
      const outgoing = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: request.headers,
          agent,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      outgoing.on('error', (error) => {
        response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`latency proxy: ${error.message}`);
      });
      outgoing.end(Buffer.concat(chunks));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requests: () => count,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
