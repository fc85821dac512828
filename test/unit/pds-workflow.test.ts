import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  PdsInvalidRequestError,
  PdsInvalidResponseError,
  PdsServerError,
  PdsUnauthorizedError,
  PdsUploadSourceError,
} from '../../packages/bridge/src/pds/errors.ts';
import {
  type ClosablePdsClient,
  createPdsClient,
  type PdsClientOptions,
} from '../../packages/bridge/src/pds/index.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

type Answer = { status?: number; json?: unknown; text?: string; headers?: http.OutgoingHttpHeaders };
type Route = (request: Received, n: number) => Answer;

const cleanups: Array<() => Promise<unknown> | unknown> = [];
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pds-workflow-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function handler(routes: Record<string, Route>, received: Received[]) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const route = Object.entries(routes).find(([key]) =>
        `${request.method} ${request.url}`.startsWith(key),
      );
      const n =
        received.filter((r) => `${r.method} ${r.url}` === `${request.method} ${request.url}`).length - 1;
      const answer = route ? route[1](request, n) : { status: 404, json: { status: 404 } };
      const headers = {
        ...(answer.json !== undefined ? { 'content-type': 'application/json' } : {}),
        ...answer.headers,
      };
      res.writeHead(answer.status ?? 200, headers);
      res.end(answer.json !== undefined ? JSON.stringify(answer.json) : (answer.text ?? ''));
    });
  };
}

/** A local PDS stand-in answering the given routes ("METHOD /path" prefixes). */
async function pds(routes: Record<string, Route>, options: Partial<PdsClientOptions> = {}) {
  const received: Received[] = [];
  const server = http.createServer(handler(routes, received));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const retries: string[] = [];
  const client = createPdsClient({
    baseUrl: url,
    credentials: { username: 'demo', password: 'demo' },
    sleep: async () => undefined,
    onRetry: (event) => retries.push(`${event.method} ${event.path}`),
    ...options,
  });
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  cleanups.push(() => client.close());
  return { client, received, retries };
}

function parseUpload(request: Received): Promise<{ fileName: string; bytes: Buffer; mimeType: string }> {
  return new Promise((resolve, reject) => {
    const parser = busboy({ headers: request.headers, preservePath: true, defParamCharset: 'utf8' });
    parser.on('file', (_field, file, info) => {
      const chunks: Buffer[] = [];
      file.on('data', (chunk: Buffer) => chunks.push(chunk));
      file.on('end', () =>
        resolve({ fileName: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) }),
      );
    });
    parser.on('error', reject);
    parser.end(request.body);
  });
}

const entry = {
  gatheringKey: 'g-1',
  assetKey: 'a-1',
  path: 'items.csv',
  contentType: 'text/csv',
  extra: 'kept',
};

describe('PdsWorkflow uploadGathering', () => {
  it('streams a file with content-length (no chunked encoding) and returns the entries with unknown fields', async () => {
    // Prepare
    const { client, received } = await pds({ 'POST /api/v1/gatherings': () => ({ json: [entry] }) });
    const filePath = join(dir, 'items.csv');
    await writeFile(filePath, 'primaryKey__;name\n04006381333931;Pen\n');

    // Act
    const entries = await client.uploadGathering({ filePath, contentType: 'text/csv' });

    // Assess
    expect(entries).toEqual([entry]);
    const [request] = received;
    expect(request?.headers['transfer-encoding']).toBeUndefined();
    expect(Number(request?.headers['content-length'])).toBe(request?.body.length);
    const upload = await parseUpload(request as Received);
    expect(upload).toEqual({
      fileName: 'items.csv',
      mimeType: 'text/csv',
      bytes: Buffer.from('primaryKey__;name\n04006381333931;Pen\n'),
    });
  });

  it('retries an upload from a file whose first attempt was refused, sending the whole file again', async () => {
    // Prepare: a port with no server until the first wait
    const received: Received[] = [];
    const server = http.createServer(
      handler({ 'POST /api/v1/gatherings': () => ({ json: [entry] }) }, received),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const client = createPdsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      credentials: { username: 'demo', password: 'demo' },
      sleep: async () => {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
      },
    });
    cleanups.push(() => client.close());
    const filePath = join(dir, 'retry.csv');
    await writeFile(filePath, 'x'.repeat(50_000));

    // Act
    const entries = await client.uploadGathering({ filePath });

    // Assess
    expect(entries).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect((await parseUpload(received[0] as Received)).bytes.length).toBe(50_000);
  });

  it('fails with PdsInvalidRequestError when a stream yields fewer bytes than declared', async () => {
    // Prepare
    const { client, retries } = await pds({ 'POST /api/v1/gatherings': () => ({ json: [entry] }) });

    // Act
    const error = await client
      .uploadGathering({ stream: Readable.from([Buffer.alloc(100)]), size: 1000, fileName: 'short.csv' })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(error.message).toContain('ended after 100 of its declared 1000 bytes');
    expect(retries).toEqual([]);
  });

  it('fails with a retryable PdsUploadSourceError when the source stream breaks midway', async () => {
    // Prepare
    const { client, retries } = await pds({ 'POST /api/v1/gatherings': () => ({ json: [entry] }) });
    async function* cutOff() {
      yield Buffer.alloc(100);
      throw new Error('socket hang up while reading the S3 object');
    }

    // Act
    const error = await client
      .uploadGathering({ stream: Readable.from(cutOff()), size: 1000, fileName: 'cut.csv' })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsUploadSourceError);
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('socket hang up while reading the S3 object');
    expect(retries).toEqual([]);
  });

  it('refuses a missing file before any request', async () => {
    // Prepare
    const { client, received } = await pds({});

    // Act
    const error = await client.uploadGathering({ filePath: join(dir, 'absent.csv') }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(received).toHaveLength(0);
  });
});

describe('PdsWorkflow startImport and publish', () => {
  it('sends the import request and does not retry it on 503', async () => {
    // Prepare
    const { client, received } = await pds({
      'POST /api/v1/imports': (_request, n) => (n === 0 ? { status: 202 } : { status: 503, json: {} }),
    });

    // Act
    await client.startImport({ gatheringKey: 'g-1', path: 'items.csv' });
    const error = await client.startImport({ gatheringKey: 'g-1', path: 'items.csv' }).catch((e) => e);

    // Assess
    expect(JSON.parse(received[0]?.body.toString() ?? '')).toEqual({
      gatheringKey: 'g-1',
      path: 'items.csv',
    });
    expect(error).toBeInstanceOf(PdsServerError);
    expect(received).toHaveLength(2);
  });

  it('publishes a selection to its destinations', async () => {
    // Prepare
    const { client, received } = await pds({ 'POST /api/v1/publications': () => ({ status: 202 }) });
    const request = {
      selectionId: 's-1',
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL' as const, destinationId: 'ch-1' }],
    };

    // Act
    await client.publish(request);

    // Assess
    expect(JSON.parse(received[0]?.body.toString() ?? '')).toEqual(request);
  });

  it.each([
    [() => ({ gatheringKey: '', path: 'p' }), 'import', 'gatheringKey must be a non-empty string'],
    [() => ({ selectionId: 's', destinations: [] }), 'publish', 'destinations must be a non-empty array'],
    [
      () => ({ selectionId: 's', destinations: [{ destinationType: 'EMAIL', destinationId: 'x' }] }),
      'publish',
      'destinations[0].destinationType must be one of IN_PLATFORM, COMMUNICATION_CHANNEL',
    ],
  ])('refuses a bad argument before any request %#', async (argument, operation, message) => {
    // Prepare
    const { client, received } = await pds({});

    // Act
    const error = await (operation === 'import'
      ? client.startImport(argument() as never)
      : client.publish(argument() as never)
    ).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(error.message).toContain(message);
    expect(received).toHaveLength(0);
  });
});

describe('PdsWorkflow validate and createSelection', () => {
  const friday = {
    name: 'simple_validation',
    level: 'Warning',
    path: ['simple_date'],
    message: "'Simple Date' should not be a Friday",
    params: { msg_id: 'friday', err_val: '2013-07-26', err_val_msg: "'2013-07-26' " },
  };

  it('retries validation on 503 since it has no side effect, and reads a lenient answer', async () => {
    // Prepare
    const { client, received } = await pds({
      'POST /api/v1/validate': (_request, n) =>
        n === 0 ? { status: 503, json: {} } : { json: { validations: { simple_date: [friday] }, novel: 1 } },
    });

    // Act
    const response = await client.validate({
      newItem: { simple_date: '2013-07-26' },
      attributeNames: ['simple_date'],
    });

    // Assess
    expect(received).toHaveLength(2);
    expect(response).toEqual({
      validations: { simple_date: [friday] },
      attributeStates: {},
      calculations: {},
      novel: 1,
    });
  });

  it('names the offending field of a wrong validation answer', async () => {
    // Prepare
    const { client } = await pds({
      'POST /api/v1/validate': () => ({ json: { validations: { simple_date: [{ ...friday, level: 3 }] } } }),
    });

    // Act
    const error = await client.validate({ newItem: {} }).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain("field 'validations.simple_date[0].level'");
  });

  it('creates a selection and refuses a non-integer numberOfItems', async () => {
    // Prepare
    const { client, received } = await pds({
      'POST /api/v1/selections': (_request, n) => ({
        json: { selectionId: 's-1', numberOfItems: n === 0 ? 2 : '2' },
      }),
    });

    // Act
    const selection = await client.createSelection(['a', 'b']);
    const error = await client.createSelection(['a', 'b']).catch((e) => e);

    // Assess
    expect(selection).toEqual({ selectionId: 's-1', numberOfItems: 2 });
    expect(JSON.parse(received[0]?.body.toString() ?? '')).toEqual({ primaryKeys: ['a', 'b'] });
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain("field 'numberOfItems'");
  });
});

describe('PdsWorkflow reading', () => {
  const review = {
    primaryKey: 'a/b c€',
    supplierId: 'sup-1',
    channelId: 'ch-1',
    messagingAssetId: 7,
    supplier: 'ACME',
    reviewer: 'Retailer',
    reviewStatus: 'APPROVED',
    date: 1_700_000_000_000,
    comment: '',
    messagingCreatorType: 'REVIEW',
  };

  it('encodes a primary key as one path segment and reads the reviews', async () => {
    // Prepare
    const { client, received } = await pds({ 'GET /api/v1/supplierreviews/': () => ({ json: [review] }) });

    // Act
    const reviews = await client.listSupplierReviews('a/b c€');

    // Assess
    expect(received[0]?.url).toBe('/api/v1/supplierreviews/a%2Fb%20c%E2%82%AC');
    expect(reviews).toEqual([review]);
  });

  it('names the review field with the wrong type', async () => {
    // Prepare
    const { client } = await pds({
      'GET /api/v1/supplierreviews/': () => ({ json: [review, { ...review, messagingAssetId: '7' }] }),
    });

    // Act
    const error = await client.listSupplierReviews('k').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain("field '[1].messagingAssetId'");
    expect(error.path).toBe('/api/v1/supplierreviews/k');
  });

  it('reads channels leniently: a numeric id becomes its text, unknown fields stay', async () => {
    // Prepare
    const { client } = await pds({
      'GET /api/v1/communicationchannels': () => ({ json: [{ id: 12, name: 'GDSN', type: 'GDSN' }] }),
    });

    // Act
    const channels = await client.listCommunicationChannels();

    // Assess
    expect(channels).toEqual([{ id: '12', name: 'GDSN', type: 'GDSN' }]);
  });

  it('fetches a messaging asset as text and as a stream, and lists them', async () => {
    // Prepare
    const xml = '<?xml version="1.0"?><m>é</m>';
    const summary = { id: 7, createdAt: 1, contentType: 'application/xml', primaryKey: 'k' };
    const { client, received } = await pds({
      'GET /api/v1/messaging/messagingassets/7': () => ({
        text: xml,
        headers: { 'content-type': 'application/xml' },
      }),
      'GET /api/v1/messaging/messagingassets/': () => ({ json: [summary] }),
    });

    // Act
    const text = await client.getMessagingAsset(7);
    const stream = await client.streamMessagingAsset(7);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const list = await client.listMessagingAssets();

    // Assess
    expect(text).toBe(xml);
    expect(Buffer.concat(chunks).toString()).toBe(xml);
    expect(list).toEqual([summary]);
    expect(received[0]?.headers.accept).toContain('application/xml');
    expect(received[2]?.url).toBe('/api/v1/messaging/messagingassets/');
  });

  it('streams the messaging-asset listing element by element, with the paging parameters when asked', async () => {
    // Prepare: 5000 entries, larger than one network chunk
    const entries = Array.from({ length: 5000 }, (_, index) => ({
      id: index + 1,
      createdAt: 1,
      contentType: 'application/xml',
      primaryKey: `k${index}`,
    }));
    const { client, received } = await pds({
      'GET /api/v1/messaging/messagingassets/': () => ({ json: entries }),
    });

    // Act
    const ids: number[] = [];
    for await (const asset of client.streamMessagingAssets({ page: { limit: 50, offset: 10 } }))
      ids.push(asset.id);

    // Assess
    expect(ids).toEqual(entries.map((entry) => entry.id));
    expect(received[0]?.url).toBe('/api/v1/messaging/messagingassets/?limit=50&offset=10');
    expect(received[0]?.headers.accept).toBe('application/json');
  });

  it.each([
    ['{"id": 1}', /not a JSON array/],
    ['[{"id": 1, "createdAt": 1, "contentType": "x"}, {"id": 2', /ends before its JSON array does/],
    ['[{"id": 1, "createdAt": 1, "contentType": "x"}] trailing', /not valid JSON/],
    [
      '[{"id": "7", "createdAt": 1, "contentType": "x"}]',
      /\[0\]\.id: expected a non-negative integer, got "7"/,
    ],
    ['[{"id": 1, "createdAt": 1, "contentType": "x"}, {"id": 2, "contentType": "x"}]', /\[1\]\.createdAt/],
    ['', /empty body/],
  ])('refuses a listing answer %j naming what is wrong', async (body, message) => {
    // Prepare
    const { client } = await pds({
      'GET /api/v1/messaging/messagingassets/': () => ({
        text: body,
        headers: { 'content-type': 'application/json' },
      }),
    });

    // Act
    const error = await (async () => {
      for await (const _asset of client.streamMessagingAssets()) {
        // read on
      }
    })().catch((caught) => caught);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toMatch(message);
  });

  it.each([-1, 1.5, Number.NaN, 2 ** 53, '7' as unknown as number])(
    'refuses messagingAssetId %o before any request',
    async (id) => {
      // Prepare
      const { client, received } = await pds({});

      // Act
      const error = await client.getMessagingAsset(id).catch((e) => e);

      // Assess
      expect(error).toBeInstanceOf(PdsInvalidRequestError);
      expect(error.message).toContain('non-negative safe integer');
      expect(received).toHaveLength(0);
    },
  );

  it('surfaces a 401 as PdsUnauthorizedError', async () => {
    // Prepare
    const { client } = await pds({
      'GET /api/v1/communicationchannels': () => ({
        status: 401,
        json: { status: 401, error: 'Unauthorized' },
      }),
    });

    // Act
    const error = await client.listCommunicationChannels().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsUnauthorizedError);
  });
});

describe('createPdsClient', () => {
  it('closes its sockets on close()', async () => {
    // Prepare
    const { client } = await pds({ 'GET /api/v1/communicationchannels': () => ({ json: [] }) });
    await client.listCommunicationChannels();

    // Act
    await (client as ClosablePdsClient).close();
    const error = await client.listCommunicationChannels().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(error.message).toContain('client is closed');
  });
});
