import type dns from 'node:dns';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../packages/bridge/src/core/index.ts';
import {
  PdsBadRequestError,
  PdsConflictError,
  PdsHttpError,
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsNetworkError,
  PdsNotFoundError,
  PdsRateLimitedError,
  PdsServerError,
  PdsTimeoutError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import {
  PdsTransport,
  type PdsTransportOptions,
  USER_AGENT,
} from '../../packages/bridge/src/pds/transport.ts';

const credentials = { username: 'bridge', password: 'Tr4nsp0rt-secret' };
const cleanups: Array<() => Promise<unknown> | unknown> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A local server whose handler sees the n-th request (0-based) and the bytes it carried. */
async function serve(
  handler: (req: http.IncomingMessage, res: http.ServerResponse, n: number, body: Buffer) => void,
  keepAliveTimeoutMs?: number,
): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, seen.length - 1, body);
    });
  });
  server.on('connection', () => connections++);
  if (keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = keepAliveTimeoutMs;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return { url, seen, connections: () => connections };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function transport(baseUrl: string, options: Partial<PdsTransportOptions> = {}) {
  const waits: number[] = [];
  const retries: string[] = [];
  const t = new PdsTransport({
    baseUrl,
    credentials,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 0.5,
    onRetry: (event) => retries.push(`${event.attempt}:${event.error.name}`),
    ...options,
  });
  cleanups.push(() => t.close());
  return { t, waits, retries };
}

function json(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

describe('PdsTransport request', () => {
  it('sends Basic auth, the User-Agent and the base URL path prefix, and parses JSON', async () => {
    // Prepare
    const server = await serve((_req, res) => json(res, 200, { ok: true }));
    const { t } = transport(`${server.url}/tenant/`);

    // Act
    const response = await t.request({
      method: 'GET',
      path: '/api/v1/things',
      query: { limit: 5, q: 'a b&c', skipped: undefined },
      expect: 'json',
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true });
    expect(response.request).toEqual({ method: 'GET', path: '/tenant/api/v1/things?limit=5&q=a+b%26c' });
    const [seen] = server.seen;
    expect(seen?.url).toBe('/tenant/api/v1/things?limit=5&q=a+b%26c');
    expect(seen?.headers.authorization).toBe(
      `Basic ${Buffer.from('bridge:Tr4nsp0rt-secret').toString('base64')}`,
    );
    expect(seen?.headers['user-agent']).toBe(USER_AGENT);
    expect(USER_AGENT).toMatch(/^pds-bridge\/\d+\.\d+\.\d+ \(\+node v\d+/);
    expect(seen?.headers.accept).toBe('application/json');
  });

  it('sends a JSON body with its content type and returns text and empty answers', async () => {
    // Prepare
    const server = await serve((req, res) => {
      if (req.url?.endsWith('/text')) {
        res.end('<xml/>');
      } else {
        res.writeHead(202);
        res.end();
      }
    });
    const { t } = transport(server.url);

    // Act
    const none = await t.request({ method: 'POST', path: '/api/v1/imports', json: { a: 1 }, expect: 'none' });
    const text = await t.request({ method: 'GET', path: '/text', expect: 'text' });

    // Assess
    expect(none.status).toBe(202);
    expect(none.body).toBeUndefined();
    expect(text.body).toBe('<xml/>');
    expect(server.seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.seen[0]?.body.toString() ?? '')).toEqual({ a: 1 });
  });

  it('returns a stream the caller consumes', async () => {
    // Prepare
    const server = await serve((_req, res) => res.end('x'.repeat(100_000)));
    const { t } = transport(server.url);

    // Act
    const response = await t.request({ method: 'GET', path: '/big', expect: 'stream' });
    let length = 0;
    for await (const chunk of response.body) length += (chunk as Buffer).length;

    // Assess
    expect(length).toBe(100_000);
  });

  it('refuses a path without a leading slash, a reserved header and a header with a line break', async () => {
    // Prepare
    const { t } = transport('http://127.0.0.1:9');

    // Act
    const results = await Promise.allSettled([
      t.request({ method: 'GET', path: 'api/v1/x', expect: 'none' }),
      t.request({ method: 'GET', path: '/a?b=1', expect: 'none' }),
      t.request({ method: 'GET', path: '/a', headers: { Authorization: 'Basic x' }, expect: 'none' }),
      t.request({ method: 'GET', path: '/a', headers: { 'x-a': 'a\r\nb: c' }, expect: 'none' }),
    ]);

    // Assess
    for (const result of results) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(PdsInvalidRequestError);
    }
  });
});

describe('PdsTransport status mapping', () => {
  it.each([
    [400, PdsBadRequestError, 'BAD_REQUEST'],
    [401, PdsUnauthorizedError, 'UNAUTHORIZED'],
    [403, PdsUnauthorizedError, 'FORBIDDEN'],
    [404, PdsNotFoundError, 'NOT_FOUND'],
    [409, PdsConflictError, 'CONFLICT'],
    [418, PdsHttpError, 'HTTP_ERROR'],
    [422, PdsBadRequestError, 'BAD_REQUEST'],
    [500, PdsServerError, 'SERVER_ERROR'],
  ])('maps %i to %o without retrying and keeps a body excerpt', async (status, errorClass, code) => {
    // Prepare
    const server = await serve((_req, res) =>
      json(res, status, { status, error: 'Reason', message: `explanation ${'y'.repeat(10_000)}` }),
    );
    const { t, waits } = transport(server.url);

    // Act
    const error = await t.request({ method: 'GET', path: '/api/v1/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(errorClass);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`PDS answered ${status} to GET /api/v1/x`);
    expect(error.bodyExcerpt).toContain('explanation');
    expect(error.bodyExcerpt.length).toBeLessThanOrEqual(501);
    expect(server.seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('refuses invalid JSON in a 2xx answer without retrying', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"truncated": ');
    });
    const { t } = transport(server.url);

    // Act
    const error = await t.request({ method: 'GET', path: '/api/v1/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain('not JSON');
    expect(server.seen).toHaveLength(1);
  });
});

describe('PdsTransport retries', () => {
  it('retries a GET on 503 with full-jitter backoff until it succeeds', async () => {
    // Prepare
    const server = await serve((_req, res, n) => (n < 2 ? json(res, 503, {}) : json(res, 200, [1])));
    const { t, waits, retries } = transport(server.url);

    // Act
    const response = await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess: random() = 0.5 of 200·2^0 and 200·2^1
    expect(response.body).toEqual([1]);
    expect(waits).toEqual([100, 200]);
    expect(retries).toEqual(['1:PdsServerError', '2:PdsServerError']);
  });

  it('reports every attempt with its status and duration, answered or not', async () => {
    // Prepare: a slow 503, then a 200; then a port nothing listens on
    const server = await serve((_req, res, n) =>
      n === 0 ? setTimeout(() => json(res, 503, {}), 50) : json(res, 200, [1]),
    );
    const answers: Array<{ status: number | undefined; durationMs: number; path: string }> = [];
    const { t } = transport(server.url, {
      onAnswer: ({ status, durationMs, path }) => answers.push({ status, durationMs, path }),
    });
    const unreachable = transport(`http://127.0.0.1:${await closedPort()}`, {
      retry: { maxAttempts: 1 },
      onAnswer: ({ status, durationMs, path }) => answers.push({ status, durationMs, path }),
    });

    // Act
    await t.request({ method: 'GET', path: '/x', expect: 'json' });
    await unreachable.t.request({ method: 'GET', path: '/y', expect: 'json' }).catch(() => undefined);

    // Assess
    expect(answers.map(({ status, path }) => [status, path])).toEqual([
      [503, '/x'],
      [200, '/x'],
      [undefined, '/y'],
    ]);
    expect(answers[0]?.durationMs).toBeGreaterThanOrEqual(45);
  });

  it('caps the backoff and gives up after maxAttempts with the last typed error', async () => {
    // Prepare
    const server = await serve((_req, res) => json(res, 502, { message: 'bad gateway' }));
    const { t, waits } = transport(server.url, { retry: { maxAttempts: 5, maxDelayMs: 300 } });

    // Act
    const error = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsServerError);
    expect(error.status).toBe(502);
    expect(server.seen).toHaveLength(5);
    expect(waits).toEqual([100, 150, 150, 150]);
  });

  it('honours Retry-After in seconds on 429', async () => {
    // Prepare
    const server = await serve((_req, res, n) =>
      n === 0 ? json(res, 429, {}, { 'retry-after': '3' }) : json(res, 200, {}),
    );
    const { t, waits } = transport(server.url);

    // Act
    await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess
    expect(waits).toEqual([3000]);
  });

  it('honours Retry-After as an HTTP date and caps it at maxRetryAfterMs', async () => {
    // Prepare
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const server = await serve((_req, res, n) => {
      if (n === 0) json(res, 503, {}, { 'retry-after': inTenSeconds });
      else if (n === 1) json(res, 429, {}, { 'retry-after': '3600' });
      else json(res, 200, {});
    });
    const { t, waits } = transport(server.url, { retry: { maxRetryAfterMs: 20_000 } });

    // Act
    await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess: the date has whole seconds, so the wait is between 8 and 10 s
    expect(waits[0]).toBeGreaterThan(8_000);
    expect(waits[0]).toBeLessThanOrEqual(10_000);
    expect(waits[1]).toBe(20_000);
  });

  it('gives up on persistent 429 with PdsRateLimitedError carrying retryAfterMs', async () => {
    // Prepare
    const server = await serve((_req, res) => json(res, 429, {}, { 'retry-after': '2' }));
    const { t } = transport(server.url, { retry: { maxAttempts: 2 } });

    // Act
    const error = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsRateLimitedError);
    expect(error.retryAfterMs).toBe(2000);
    expect(server.seen).toHaveLength(2);
  });

  it('does not retry a POST on 503 or 429', async () => {
    // Prepare
    const server = await serve((req, res) =>
      json(res, req.url === '/a' ? 503 : 429, {}, { 'retry-after': '1' }),
    );
    const { t, waits } = transport(server.url);

    // Act
    const on503 = await t.request({ method: 'POST', path: '/a', json: {}, expect: 'none' }).catch((e) => e);
    const on429 = await t.request({ method: 'POST', path: '/b', json: {}, expect: 'none' }).catch((e) => e);

    // Assess
    expect(on503).toBeInstanceOf(PdsServerError);
    expect(on503.retryable).toBe(true);
    expect(on429).toBeInstanceOf(PdsRateLimitedError);
    expect(server.seen).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  it('retries a POST flagged idempotent on 503, replaying its body', async () => {
    // Prepare
    const server = await serve((_req, res, n) => (n === 0 ? json(res, 503, {}) : json(res, 200, { n })));
    const { t } = transport(server.url);

    // Act
    const response = await t.request({
      method: 'POST',
      path: '/api/v1/validate',
      json: { newItem: { a: 1 } },
      idempotent: true,
      expect: 'json',
    });

    // Assess
    expect(response.body).toEqual({ n: 1 });
    expect(server.seen.map((s) => s.body.toString())).toEqual(['{"newItem":{"a":1}}', '{"newItem":{"a":1}}']);
  });

  it('retries a POST refused with ECONNREFUSED, since it never reached the server', async () => {
    // Prepare: the server starts only during the first wait
    const port = await closedPort();
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        seen.push(body);
        res.writeHead(202).end();
      });
    });
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const { t, waits, retries } = transport(`http://127.0.0.1:${port}`, {
      sleep: async (ms) => {
        waits.push(ms);
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
      },
    });

    // Act
    await t.request({ method: 'POST', path: '/api/v1/imports', json: { path: 'p' }, expect: 'none' });

    // Assess
    expect(retries).toEqual(['1:PdsNetworkError']);
    expect(seen).toEqual(['{"path":"p"}']);
  });

  it('gives up on ECONNREFUSED with PdsNetworkError reachedServer=false', async () => {
    // Prepare
    const port = await closedPort();
    const { t, retries } = transport(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } });

    // Act
    const error = await t.request({ method: 'POST', path: '/x', json: {}, expect: 'none' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNetworkError);
    expect(error.reachedServer).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
    expect(retries).toHaveLength(2);
  });

  it('never retries a one-shot stream body, but replays a body factory', async () => {
    // Prepare
    const port = await closedPort();
    const { t, retries } = transport(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 3 } });
    let opened = 0;

    // Act
    const oneShot = await t
      .request({ method: 'PUT', path: '/x', body: Readable.from([Buffer.from('a')]), expect: 'none' })
      .catch((e) => e);
    const retriesAfterOneShot = retries.length;
    const factory = await t
      .request({
        method: 'PUT',
        path: '/x',
        body: () => {
          opened++;
          return Readable.from([Buffer.from('a')]);
        },
        expect: 'none',
      })
      .catch((e) => e);

    // Assess
    expect(oneShot).toBeInstanceOf(PdsNetworkError);
    expect(retriesAfterOneShot).toBe(0);
    expect(factory).toBeInstanceOf(PdsNetworkError);
    expect(opened).toBe(3);
  });

  it('retries a GET whose answer is reset mid-body, and not a POST', async () => {
    // Prepare
    const server = await serve((_req, res, n) => {
      if (n === 1) {
        json(res, 200, { whole: true });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"partial": ');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { t, retries } = transport(server.url);

    // Act
    const get = await t.request({ method: 'GET', path: '/x', expect: 'json' });
    const post = await t.request({ method: 'POST', path: '/x', json: {}, expect: 'json' }).catch((e) => e);

    // Assess
    expect(get.body).toEqual({ whole: true });
    expect(retries).toEqual(['1:PdsNetworkError']);
    expect(post).toBeInstanceOf(PdsNetworkError);
    expect(post.reachedServer).toBe(true);
    expect(server.seen).toHaveLength(3);
  });

  it('maps a socket error inside a returned stream to PdsNetworkError', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('abc');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const { t } = transport(server.url);

    // Act
    const { body } = await t.request({ method: 'GET', path: '/x', expect: 'stream' });
    const error = await (async () => {
      for await (const _chunk of body) {
        // consume until the reset
      }
    })().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNetworkError);
  });

  it('stops waiting when the signal aborts, with the abort reason', async () => {
    // Prepare
    const server = await serve((_req, res) => json(res, 503, {}));
    const controller = new AbortController();
    const { t } = transport(server.url, {
      sleep: async () => {
        controller.abort(new Error('shutting down'));
      },
    });

    // Act
    const error = await t
      .request({ method: 'GET', path: '/x', expect: 'json', signal: controller.signal })
      .catch((e) => e);

    // Assess
    expect(error.message).toBe('shutting down');
    expect(server.seen).toHaveLength(1);
  });
});

describe('PdsTransport timeouts', () => {
  it('names the headers phase when the server never answers, retrying a GET', async () => {
    // Prepare: a server that reads the request and never answers
    const server = await serve(() => undefined);
    const { t, retries } = transport(server.url, { headersTimeoutMs: 100, retry: { maxAttempts: 2 } });

    // Act
    const error = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect(error.phase).toBe('headers');
    expect(error.message).toContain('within 100 ms');
    expect(retries).toEqual(['1:PdsTimeoutError']);
  });

  it('does not retry a POST whose headers timed out: it may have been processed', async () => {
    // Prepare
    const server = await serve(() => undefined);
    const { t, retries } = transport(server.url, { headersTimeoutMs: 100 });

    // Act
    const error = await t.request({ method: 'POST', path: '/x', json: {}, expect: 'none' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect(retries).toEqual([]);
  });

  it('names the body phase when the answer stalls mid-body', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"a":');
    });
    const { t } = transport(server.url, { bodyTimeoutMs: 100, retry: { maxAttempts: 1 } });

    // Act
    const error = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect(error.phase).toBe('body');
  });

  it('names the body phase inside a streamed answer, and ignores a stalled body when only the status counts', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"a":');
    });
    const { t } = transport(server.url, { bodyTimeoutMs: 100, retry: { maxAttempts: 1 } });

    // Act
    const { body } = await t.request({ method: 'GET', path: '/x', expect: 'stream' });
    const error = await (async () => {
      for await (const _chunk of body) {
        // read until the stall
      }
    })().catch((e) => e);
    const none = await t.request({ method: 'POST', path: '/x', json: {}, expect: 'none' });

    // Assess
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect(error.phase).toBe('body');
    expect(none.status).toBe(200);
  });

  it('does not time out an answer whose reader holds back: the PDS is not the slow one', async () => {
    // Prepare: 4 MiB sent at once, read only after three body timeouts
    const size = 4 * 1024 * 1024;
    const server = await serve((_req, res) => res.end(Buffer.alloc(size, 'x')));
    const { t } = transport(server.url, { bodyTimeoutMs: 50, retry: { maxAttempts: 1 } });

    // Act
    const { body } = await t.request({ method: 'GET', path: '/x', expect: 'stream' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    let length = 0;
    for await (const chunk of body) length += (chunk as Buffer).length;

    // Assess
    expect(length).toBe(size);
  });

  it('names the connect phase when the TLS handshake never completes, and retries even a POST', async () => {
    // Prepare: a TCP server that accepts and stays silent, so the TLS handshake hangs
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => silent.close(resolve));
    });
    const port = (silent.address() as net.AddressInfo).port;
    const { t, retries } = transport(`https://127.0.0.1:${port}`, {
      connectTimeoutMs: 100,
      retry: { maxAttempts: 2 },
    });

    // Act
    const error = await t.request({ method: 'POST', path: '/x', json: {}, expect: 'none' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsTimeoutError);
    expect(error.phase).toBe('connect');
    expect(retries).toEqual(['1:PdsTimeoutError']);
    expect(sockets).toHaveLength(2);
  });
});

/**
 * An agent whose name lookup fails `failures` times with `code`, then resolves every name to
 * 127.0.0.1: a DNS outage, which no local server can produce.
 */
function failingLookupAgent(code: string, failures: number): http.Agent {
  let calls = 0;
  const lookup = ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    calls++;
    if (calls <= failures) {
      const error = Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), {
        code,
        syscall: 'getaddrinfo',
        hostname,
      });
      callback(error, '', 4);
    } else if (options.all) {
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    } else {
      callback(null, '127.0.0.1', 4);
    }
  }) as unknown as net.LookupFunction;
  const agent = new http.Agent({ keepAlive: true, lookup });
  cleanups.push(() => agent.destroy());
  return agent;
}

type LookupCallback = (error: Error | null, address: string | dns.LookupAddress[], family?: number) => void;

describe('PdsTransport when the PDS name does not resolve', () => {
  it.each(['ENOTFOUND', 'EAI_AGAIN'])(
    'treats %s as never reaching the server and retries a POST',
    async (code) => {
      // Prepare
      const server = await serve((_req, res) => res.writeHead(202).end());
      const { port } = new URL(server.url);
      const agent = failingLookupAgent(code, 1);
      const { t, retries } = transport(`http://pds.example.test:${port}`, { agent });

      // Act
      const response = await t.request({ method: 'POST', path: '/api/v1/imports', json: {}, expect: 'none' });

      // Assess
      expect(response.status).toBe(202);
      expect(retries).toEqual(['1:PdsNetworkError']);
      expect(server.seen.map((seen) => seen.headers.host)).toEqual([`pds.example.test:${port}`]);
    },
  );

  it('gives up with PdsNetworkError reachedServer=false naming the code, and leaves an injected agent open', async () => {
    // Prepare
    const server = await serve((_req, res) => res.writeHead(202).end());
    const { port } = new URL(server.url);
    const agent = failingLookupAgent('ENOTFOUND', 2);
    const first = new PdsTransport({
      baseUrl: `http://pds.example.test:${port}`,
      credentials,
      agent,
      retry: { maxAttempts: 2 },
      sleep: async () => undefined,
    });

    // Act
    const error = await first
      .request({ method: 'POST', path: '/x', json: {}, expect: 'none' })
      .catch((e) => e);
    await first.close();
    const second = new PdsTransport({ baseUrl: `http://pds.example.test:${port}`, credentials, agent });
    const response = await second.request({ method: 'GET', path: '/y', expect: 'none' });
    await second.close();

    // Assess
    expect(error).toBeInstanceOf(PdsNetworkError);
    expect(error.reachedServer).toBe(false);
    expect(error.message).toContain('ENOTFOUND');
    expect(response.status).toBe(202);
  });
});

describe('PdsTransport connections', () => {
  it('opens at most `connections` sockets and reuses them for later requests', async () => {
    // Prepare: each answer takes 30 ms, so the requests overlap
    const server = await serve((_req, res) => setTimeout(() => json(res, 200, {}), 30));
    const { t } = transport(server.url, { connections: 2 });

    // Act
    await Promise.all(
      Array.from({ length: 6 }, () => t.request({ method: 'GET', path: '/x', expect: 'json' })),
    );
    await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess
    expect(server.seen).toHaveLength(7);
    expect(server.connections()).toBe(2);
  });

  it('closes a socket idle for keepAliveTimeoutMs, and keeps it for the next request before that', async () => {
    // Prepare
    const server = await serve((_req, res) => json(res, 200, {}));
    const { t } = transport(server.url, { keepAliveTimeoutMs: 100 });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    // Act
    await t.request({ method: 'GET', path: '/x', expect: 'json' });
    await pause(20);
    await t.request({ method: 'GET', path: '/x', expect: 'json' });
    const whileKept = server.connections();
    await pause(300);
    await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess
    expect(whileKept).toBe(1);
    expect(server.connections()).toBe(2);
  });

  it('reuses a socket only until 2 s before the keep-alive time the server announced', async () => {
    // Prepare: servers announcing `Keep-Alive: timeout=2` and `timeout=5`
    const short = await serve((_req, res) => json(res, 200, {}), 2_000);
    const usual = await serve((_req, res) => json(res, 200, {}), 5_000);
    const { t: toShort } = transport(short.url);
    const { t: toUsual } = transport(usual.url);

    // Act
    for (const t of [toShort, toShort, toUsual, toUsual]) {
      await t.request({ method: 'GET', path: '/x', expect: 'json' });
    }

    // Assess
    expect(short.connections()).toBe(2);
    expect(usual.connections()).toBe(1);
  });

  it('releases the socket when a streamed answer is destroyed before its end', async () => {
    // Prepare: an answer that never ends, on a transport of one socket
    const server = await serve((req, res) => {
      if (req.url === '/endless') {
        res.writeHead(200);
        res.write('x'.repeat(1000));
      } else {
        json(res, 200, { next: true });
      }
    });
    const { t } = transport(server.url, { connections: 1 });

    // Act
    const endless = await t.request({ method: 'GET', path: '/endless', expect: 'stream' });
    endless.body.destroy();
    const next = await t.request({ method: 'GET', path: '/next', expect: 'json' });

    // Assess
    expect(next.body).toEqual({ next: true });
  });

  it('lets running requests finish on close() and refuses later ones', async () => {
    // Prepare
    const server = await serve((_req, res) => setTimeout(() => json(res, 200, { done: true }), 50));
    const t = new PdsTransport({ baseUrl: server.url, credentials });

    // Act
    const running = t.request({ method: 'GET', path: '/x', expect: 'json' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const closed = t.close();
    const later = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);
    const answer = await running;
    await closed;
    await t.close();

    // Assess
    expect(answer.body).toEqual({ done: true });
    expect(later).toBeInstanceOf(PdsInvalidRequestError);
    expect(later.message).toContain('the client is closed; create a new one');
    expect(server.seen).toHaveLength(1);
  });
});

describe('PdsTransport request bodies and answers', () => {
  it('frames a DELETE body, given as JSON or as a stream, so that the server reads it', async () => {
    // Prepare
    const server = await serve((_req, res, _n, body) => json(res, 200, { received: body.toString() }));
    const { t } = transport(server.url);

    // Act
    const fromJson = await t.request({ method: 'DELETE', path: '/x', json: ['a'], expect: 'json' });
    const fromStream = await t.request({
      method: 'DELETE',
      path: '/x',
      body: Readable.from([Buffer.from('["b"]')]),
      expect: 'json',
    });

    // Assess
    expect(fromJson.body).toEqual({ received: '["a"]' });
    expect(fromStream.body).toEqual({ received: '["b"]' });
  });

  it('refuses a stream longer than its content-length without sending the excess', async () => {
    // Prepare
    const server = await serve((_req, res) => res.writeHead(204).end());
    const { t } = transport(server.url);

    // Act
    const error = await t
      .request({
        method: 'PUT',
        path: '/x',
        headers: { 'content-length': '2' },
        body: Readable.from([Buffer.from('ab'), Buffer.from('c')]),
        expect: 'none',
      })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(error.message).toContain(
      'the body length differs from its content-length header; declare the exact size',
    );
    expect(server.seen.filter((seen) => seen.body.length > 2)).toEqual([]);
  });

  it('streams a slow upload without a headers timeout: waiting for the source is not waiting for the PDS', async () => {
    // Prepare: the source yields a chunk every 200 ms, above the 150 ms headers timeout
    const server = await serve((_req, res, _n, body) => json(res, 200, { received: body.toString() }));
    const { t } = transport(server.url, { headersTimeoutMs: 150, retry: { maxAttempts: 1 } });
    const slow = async function* () {
      for (const part of ['a', 'b', 'c']) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        yield Buffer.from(part);
      }
    };

    // Act
    const response = await t.request({
      method: 'PUT',
      path: '/x',
      body: Readable.from(slow()),
      expect: 'json',
    });

    // Assess
    expect(response.body).toEqual({ received: 'abc' });
  });

  it('refuses an answer that is not HTTP with PdsInvalidResponseError', async () => {
    // Prepare: a TCP server that answers garbage
    const garbage = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.once('data', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
    });
    garbage.listen(0, '127.0.0.1');
    await once(garbage, 'listening');
    cleanups.push(() => new Promise((resolve) => garbage.close(resolve)));
    const { port } = garbage.address() as net.AddressInfo;
    const { t } = transport(`http://127.0.0.1:${port}`, { retry: { maxAttempts: 1 } });

    // Act
    const error = await t.request({ method: 'GET', path: '/x', expect: 'json' }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain('the answer is not valid HTTP');
  });

  it('hands back a 304 when asked to, and drops a leading byte order mark of a text answer', async () => {
    // Prepare
    const server = await serve((req, res) => {
      if (req.url === '/cached') res.writeHead(304, { etag: '"v1"' }).end();
      else res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<x/>')]));
    });
    const { t } = transport(server.url);

    // Act
    const cached = await t.request({
      method: 'GET',
      path: '/cached',
      expect: 'json',
      acceptNotModified: true,
    });
    const refused = await t.request({ method: 'GET', path: '/cached', expect: 'json' }).catch((e) => e);
    const text = await t.request({ method: 'GET', path: '/bom', expect: 'text' });

    // Assess
    expect(cached.status).toBe(304);
    expect(cached.body).toBeUndefined();
    expect(cached.headers.etag).toBe('"v1"');
    expect(refused).toBeInstanceOf(PdsHttpError);
    expect(text.body).toBe('<x/>');
  });

  it('gives a header sent twice as an array of its values', async () => {
    // Prepare
    const server = await serve((_req, res) => {
      res.setHeader('link', ['<a>; rel="next"', '<b>; rel="last"']);
      res.end('{}');
    });
    const { t } = transport(server.url);

    // Act
    const response = await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess
    expect(response.headers.link).toEqual(['<a>; rel="next"', '<b>; rel="last"']);
  });

  it('names every header in lower case, however the PDS spelled it, and keeps each spelling of a repeated one', async () => {
    // Prepare: raw header pairs, as a server that spells names its own way sends them
    const server = await serve((_req, res) => {
      res.writeHead(200, ['Content-Type', 'application/json', 'Link', '<a>', 'LINK', '<b>', 'X-Trace', 't1']);
      res.end('{}');
    });
    const { t } = transport(server.url);

    // Act
    const response = await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess
    expect(response.headers).toMatchObject({
      'content-type': 'application/json',
      link: ['<a>', '<b>'],
      'x-trace': 't1',
    });
    expect(Object.keys(response.headers).filter((name) => name !== name.toLowerCase())).toEqual([]);
  });
});

describe('PdsTransport under X-Ray tracing', () => {
  it('sends every attempt through http.request on the module object, with headers of its own', async () => {
    // Prepare: wrap http.request as X-Ray's captureHTTPsGlobal does (Powertools Tracer, packages/bridge/src/lambda/tracing.ts):
    // it adds X-Amzn-Trace-Id to the options' headers and leaves a request already carrying one untraced
    const server = await serve((_req, res, n) => (n === 0 ? json(res, 503, {}) : json(res, 200, {})));
    const original = http.request;
    const traced: boolean[] = [];
    http.request = ((options: http.RequestOptions, ...rest: unknown[]) => {
      const headers = (options.headers ?? {}) as Record<string, string>;
      traced.push(headers['X-Amzn-Trace-Id'] === undefined);
      headers['X-Amzn-Trace-Id'] = 'Root=1-00000000-000000000000000000000000';
      return (original as (...args: unknown[]) => http.ClientRequest)({ ...options, headers }, ...rest);
    }) as typeof http.request;
    cleanups.push(() => {
      http.request = original;
    });
    const { t } = transport(server.url);

    // Act
    await t.request({ method: 'GET', path: '/x', expect: 'json' });

    // Assess: both attempts traced, and the header reached the PDS each time
    expect(traced).toEqual([true, true]);
    expect(server.seen.map((seen) => seen.headers['x-amzn-trace-id'])).toEqual([
      'Root=1-00000000-000000000000000000000000',
      'Root=1-00000000-000000000000000000000000',
    ]);
  });
});

describe('PdsTransport configuration', () => {
  it.each([
    [{ baseUrl: 'not a url' }, 'not a valid URL'],
    [{ baseUrl: 'ftp://pds.example.test' }, 'http or https'],
    [{ baseUrl: 'https://user:pw@pds.example.test' }, 'must not carry credentials'],
    [{ baseUrl: 'https://pds.example.test?x=1' }, 'query'],
    [{ credentials: { username: 'a:b', password: 'p' } }, "must not contain ':'"],
    [{ credentials: { username: 'a', password: '' } }, 'non-empty username and password'],
    [{ connections: 0 }, 'connections must be a positive integer'],
    [{ headersTimeoutMs: -1 }, 'headersTimeoutMs'],
    [{ retry: { maxAttempts: 1.5 } }, 'retry.maxAttempts'],
    [{ agent: new http.Agent() }, 'the agent must be an https.Agent'],
    [{ baseUrl: 'http://pds.example.test', agent: new https.Agent() }, 'an http.Agent, not an https.Agent'],
  ])('refuses %o up front', (override, message) => {
    // Act
    const build = () => new PdsTransport({ baseUrl: 'https://pds.example.test', credentials, ...override });

    // Assess
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(message);
  });
});
