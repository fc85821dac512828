/**
 * PdsPaginator against a tiny local HTTP server: following `x-cursor`, paging by offset when the server
 * sends no cursor, and stopping a server that would never end.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PdsInvalidRequestError, PdsInvalidResponseError } from '../../packages/bridge/src/pds/errors.ts';
import {
  type PageOptions,
  PdsPaginator,
  transportPages,
} from '../../packages/bridge/src/pds/resources/pagination.ts';
import { PdsTransport } from '../../packages/bridge/src/pds/transport.ts';

interface Seen {
  limit: string | null;
  offset: string | null;
  cursor: string | undefined;
}

/** What the server answers for a request; set per test. */
let answer: (request: Seen) => { items: unknown[]; headers?: Record<string, string> };
const seen: Seen[] = [];
let server: Server;
let transport: PdsTransport;

const RECORDS = Array.from({ length: 25 }, (_, index) => `r${index}`);

/** Pages RECORDS with a cursor holding the next offset, like the simulator. */
function cursorServer(request: Seen) {
  const limit = Number(request.limit);
  const offset = request.cursor === undefined ? Number(request.offset ?? 0) : Number(request.cursor.slice(1));
  const items = RECORDS.slice(offset, offset + limit);
  const next = offset + items.length;
  return {
    items,
    headers: next < RECORDS.length ? { 'x-cursor': `c${next}` } : ({} as Record<string, string>),
  };
}

/** Pages RECORDS by offset only, without cursors or counts. */
function offsetServer(request: Seen) {
  const offset = Number(request.offset ?? 0);
  return { items: RECORDS.slice(offset, offset + Number(request.limit)) };
}

function list(options: PageOptions = {}) {
  const fetchPage = transportPages(transport, {
    path: '/things',
    query: { kind: 'a' },
    schema: z.array(z.string()),
  });
  return new PdsPaginator<string>(fetchPage, options, { method: 'GET', path: '/things' });
}

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request: Seen = {
      limit: url.searchParams.get('limit'),
      offset: url.searchParams.get('offset'),
      cursor: req.headers['x-cursor'] as string | undefined,
    };
    seen.push(request);
    const { items, headers = {} } = answer(request);
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(items));
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  transport = new PdsTransport({
    baseUrl: `http://127.0.0.1:${port}`,
    credentials: { username: 'u', password: 'p' },
  });
});

afterAll(async () => {
  await transport?.close();
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
});

describe('PdsPaginator', () => {
  it('follows x-cursor until a page comes without one', async () => {
    // Prepare
    answer = cursorServer;

    // Act
    const all: string[] = [];
    for await (const record of list({ pageSize: 10 })) all.push(record);

    // Assess
    expect(all).toEqual(RECORDS);
    expect(seen.map((request) => request.cursor)).toEqual([undefined, 'c10', 'c20']);
    expect(seen[0]).toMatchObject({ limit: '10', offset: '0' });
    expect(seen[1]).toMatchObject({ limit: '10', offset: null });
  });

  it('pages by offset when the server sends no cursor, stopping at the first short page', async () => {
    // Prepare
    answer = offsetServer;

    // Act
    const all = await list({ pageSize: 10 }).toArray();

    // Assess
    expect(all).toEqual(RECORDS);
    expect(seen.map((request) => request.offset)).toEqual(['0', '10', '20']);
  });

  it('stops paging by offset on an empty page when the last page was full', async () => {
    // Prepare
    answer = offsetServer;

    // Act
    const all = await list({ pageSize: 5 }).toArray();

    // Assess: 25 records in full pages of 5, then one empty page says the end was reached
    expect(all).toEqual(RECORDS);
    expect(seen.map((request) => request.offset)).toEqual(['0', '5', '10', '15', '20', '25']);
  });

  it('stops paging by offset once x-total-count is reached', async () => {
    // Prepare
    answer = (request) => ({
      ...offsetServer(request),
      headers: { 'x-total-count': String(RECORDS.length) },
    });

    // Act
    const all = await list({ pageSize: 5 }).toArray();

    // Assess
    expect(all).toEqual(RECORDS);
    expect(seen).toHaveLength(5);
  });

  it('keeps paging by offset when the server sends fewer records than asked but its total is not reached', async () => {
    // Prepare: the server caps every page at 4 records whatever the limit
    answer = (request) => {
      const offset = Number(request.offset ?? 0);
      return {
        items: RECORDS.slice(offset, offset + 4),
        headers: { 'x-total-count': String(RECORDS.length) },
      };
    };

    // Act
    const all = await list({ pageSize: 10 }).toArray();

    // Assess
    expect(all).toEqual(RECORDS);
    expect(seen).toHaveLength(7);
  });

  it('fails with PdsInvalidResponseError when the server sends the same cursor again', async () => {
    // Prepare: a server that always points at the same next page
    answer = () => ({ items: ['x'], headers: { 'x-cursor': 'again' } });

    // Act
    const read: string[] = [];
    const error = await (async () => {
      for await (const record of list({ pageSize: 1 })) read.push(record);
    })().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain("x-cursor 'again' a second time");
    expect(read).toEqual(['x', 'x']);
    expect(seen).toHaveLength(2);
  });

  it('fails after maxPages requests against a server that ignores offset and never ends', async () => {
    // Prepare: always a full first page, whatever the offset
    answer = (request) => ({ items: RECORDS.slice(0, Number(request.limit)) });

    // Act
    const error = await list({ pageSize: 5, maxPages: 4 })
      .toArray()
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidResponseError);
    expect(error.message).toContain('did not end after 4 pages');
    expect(seen).toHaveLength(4);
  });

  it('resumes from a cursor and sends no offset with it', async () => {
    // Prepare
    answer = cursorServer;

    // Act
    const rest = await list({ pageSize: 10, cursor: 'c20' }).toArray();

    // Assess
    expect(rest).toEqual(RECORDS.slice(20));
    expect(seen).toEqual([{ limit: '10', offset: null, cursor: 'c20' }]);
  });

  it('stops requesting once toArray(max) has enough records', async () => {
    // Prepare
    answer = cursorServer;

    // Act
    const first = await list({ pageSize: 10 }).toArray(3);

    // Assess
    expect(first).toEqual(['r0', 'r1', 'r2']);
    expect(seen).toHaveLength(1);
  });

  it('exposes pages with their cursors', async () => {
    // Prepare
    answer = cursorServer;

    // Act
    const cursors: Array<string | undefined> = [];
    for await (const page of list({ pageSize: 10 }).pages()) cursors.push(page.cursor);

    // Assess
    expect(cursors).toEqual(['c10', 'c20', undefined]);
  });

  it.each([
    ['pageSize 0', { pageSize: 0 }],
    ['pageSize 2.5', { pageSize: 2.5 }],
    ['offset -1', { offset: -1 }],
    ['maxPages 0', { maxPages: 0 }],
    ['an empty cursor', { cursor: '' }],
  ])('refuses %s before any request', (_name, options) => {
    // Act
    const act = () => list(options);

    // Assess
    expect(act).toThrow(PdsInvalidRequestError);
    expect(seen).toHaveLength(0);
  });
});
