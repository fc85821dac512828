import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { Readable } from 'node:stream';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdsError, PdsRequestBodyError } from '../../packages/bridge/src/pds/errors.ts';
import { SecretRedactor } from '../../packages/bridge/src/pds/redact.ts';
import {
  type PdsRequest,
  PdsTransport,
  type PdsTransportOptions,
} from '../../packages/bridge/src/pds/transport.ts';

const password = 'S3cr3t-Passw0rd!';
const credentials = { username: 'bridge-user', password };
const token = Buffer.from(`bridge-user:${password}`).toString('base64');
const sockets = new Set<net.Socket>();
const servers: net.Server[] = [];
let echoUrl = '';
let silentTlsUrl = '';
let refusedUrl = '';

/** Every text a log line or an error report could show. */
function renderings(error: unknown): string[] {
  const texts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 10; depth++) {
    texts.push(String(current), current.stack ?? '', JSON.stringify(current));
    current = current.cause;
  }
  texts.push(inspect(error, { depth: 20, showHidden: true }));
  return texts;
}

function expectNoCredentials(error: unknown): void {
  expect(error).toBeInstanceOf(PdsError);
  for (const text of renderings(error)) {
    expect(text).not.toContain(password);
    expect(text).not.toContain(token);
    expect(text).not.toContain(encodeURIComponent(password));
  }
}

async function listen(server: net.Server): Promise<string> {
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

beforeAll(async () => {
  // A misbehaving server that echoes the credentials it received into every kind of answer.
  const echo = http.createServer((req, res) => {
    req.resume();
    const auth = req.headers.authorization ?? '';
    const decoded = Buffer.from(auth.replace(/^Basic /, ''), 'base64').toString();
    const leak = `you sent ${auth} which is ${decoded}`;
    const status = Number(req.url?.slice(1).split('?')[0]);
    if (req.url === '/invalid-json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"echo": "${auth}", "decoded": "${decoded}", `);
    } else if (req.url === '/slow-headers') {
      // never answers
    } else if (req.url === '/slow-body' || req.url === '/reset-body') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000' });
      res.write(`{"echo": "${leak}"`);
      if (req.url === '/reset-body') setTimeout(() => res.socket?.destroy(), 20);
    } else {
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ status, error: 'Echo', message: leak }));
    }
  });
  echoUrl = `http://${await listen(echo)}`;
  silentTlsUrl = `https://${await listen(net.createServer((socket) => socket.on('error', () => undefined)))}`;
  const closed = net.createServer();
  const address = await listen(closed);
  servers.pop();
  await new Promise((resolve) => closed.close(resolve));
  refusedUrl = `http://${address}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function failure(baseUrl: string, request: PdsRequest, options: Partial<PdsTransportOptions> = {}) {
  const transport = new PdsTransport({
    baseUrl,
    credentials,
    headersTimeoutMs: 100,
    bodyTimeoutMs: 100,
    connectTimeoutMs: 100,
    retry: { maxAttempts: 2 },
    sleep: async () => undefined,
    ...options,
  });
  try {
    await transport.request(request);
    throw new Error('the request was expected to fail');
  } catch (error) {
    return error;
  } finally {
    await transport.close();
  }
}

describe('PdsTransport keeps credentials out of errors', () => {
  it.each([400, 401, 403, 404, 409, 418, 429, 500, 503])(
    'when the server echoes them in a %i answer',
    async (status) => {
      // Act
      const error = await failure(echoUrl, { method: 'GET', path: `/${status}`, expect: 'json' });

      // Assess: the excerpt is kept, the secrets are not
      expect(String(error)).toContain('you sent');
      expectNoCredentials(error);
    },
  );

  it.each([
    ['invalid JSON in a 2xx answer', '/invalid-json', 'json'],
    ['a headers timeout', '/slow-headers', 'json'],
    ['a body timeout', '/slow-body', 'json'],
    ['a reset mid-body', '/reset-body', 'text'],
  ] as const)('on %s', async (_kind, path, expectKind) => {
    // Act
    const error = await failure(echoUrl, { method: 'GET', path, expect: expectKind });

    // Assess
    expectNoCredentials(error);
  });

  it('on a reset inside a returned stream', async () => {
    // Prepare
    const transport = new PdsTransport({ baseUrl: echoUrl, credentials });
    const { body } = await transport.request({ method: 'GET', path: '/reset-body', expect: 'stream' });

    // Act
    const error = await (async () => {
      for await (const _chunk of body) {
        // read until the reset
      }
    })().catch((e) => e);
    await transport.close();

    // Assess
    expectNoCredentials(error);
  });

  it('on a connect timeout', async () => {
    // Act
    const error = await failure(silentTlsUrl, { method: 'GET', path: '/', expect: 'none' });

    // Assess
    expect(error).toHaveProperty('phase', 'connect');
    expectNoCredentials(error);
  });

  it('on a refused connection', async () => {
    // Act
    const error = await failure(refusedUrl, { method: 'POST', path: '/', json: {}, expect: 'none' });

    // Assess
    expect(error).toHaveProperty('reachedServer', false);
    expectNoCredentials(error);
  });

  it('when a lower-level error quotes the Authorization header', async () => {
    // Prepare: a connection failure whose message and cause quote the header; no server can make
    // Node say that, so the agent's name lookup fails with it
    const inner = new Error(`header authorization: Basic ${token}`);
    const failure1 = Object.assign(
      new Error(`socket hang up while sending Basic ${token}`, { cause: inner }),
      { code: 'ECONNRESET' },
    );
    const lookup = ((_hostname: string, _options: unknown, callback: (error: Error) => void) =>
      callback(failure1)) as unknown as net.LookupFunction;
    const agent = new http.Agent({ lookup });

    // Act
    const error = await failure(
      'http://pds.example.test',
      { method: 'GET', path: '/x', expect: 'none' },
      { agent, retry: { maxAttempts: 1 } },
    );
    agent.destroy();

    // Assess
    expect(String(error)).toContain('[REDACTED]');
    expectNoCredentials(error);
  });

  it('when the request body fails with a message quoting the credentials', async () => {
    // Act: the source of a body never holds the password alone, only in the forms a request carries
    const error = await failure(echoUrl, {
      method: 'PUT',
      path: '/200',
      headers: { 'content-length': '100' },
      body: () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('a');
            throw new PdsRequestBodyError(
              `upstream refused Basic ${token} from http://bridge-user:${password}@pds.example.test/`,
            );
          })(),
        ),
      expect: 'none',
    });

    // Assess
    expect(error).toHaveProperty('code', 'INVALID_REQUEST');
    expectNoCredentials(error);
  });
});

describe('SecretRedactor', () => {
  it('leaves user data that contains the password intact', () => {
    // Prepare
    const redactor = new SecretRedactor({ username: 'demo', password: 'demo' });

    // Act
    const text = redactor.redact('file demo-key-1.csv of demo refused; send HTTP Basic auth');

    // Assess
    expect(text).toBe('file demo-key-1.csv of demo refused; send HTTP Basic auth');
  });

  it.each([
    ['an Authorization header', 'authorization: Basic ZGVtbzpzM2NyM3Q=', 'authorization: Basic [REDACTED]'],
    ['the base64 token alone', 'token ZGVtbzpzM2NyM3Q= sent', 'token [REDACTED] sent'],
    ['URL user-info', 'GET http://demo:s3cr3t@pds.example/x', 'GET http://[REDACTED]@pds.example/x'],
    ['the decoded pair', 'you are demo:s3cr3t', 'you are [REDACTED]'],
    [
      'the secret JSON',
      '{"username":"demo","password":"s3cr3t"}',
      '{"username":"demo","password":"[REDACTED]"}',
    ],
    [
      'the secret JSON quoted in a JSON string',
      '{"m":"{\\"password\\": \\"s3cr3t\\"}"}',
      '{"m":"{\\"password\\": \\"[REDACTED]\\"}"}',
    ],
  ])('redacts %s', (_where, input, expected) => {
    // Prepare
    const redactor = new SecretRedactor({ username: 'demo', password: 's3cr3t' });

    // Act
    const text = redactor.redact(input);

    // Assess
    expect(text).toBe(expected);
  });
});
