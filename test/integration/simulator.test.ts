import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import net from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import {
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 50 });
});
afterAll(async () => {
  await sim.close();
});

function authHeader(username = sim.username, password = sim.password): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${sim.url}${path}`, { headers: { authorization: authHeader(), ...headers } });
}

function postJson(path: string, body: unknown): Promise<Response> {
  return fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { authorization: authHeader(), 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function upload(form: FormData): Promise<Response> {
  return fetch(`${sim.url}/api/v1/gatherings`, {
    method: 'POST',
    headers: { authorization: authHeader() },
    body: form,
  });
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function zipOf(files: Record<string, string>, directories: string[] = []): Promise<Buffer> {
  const zip = new ZipFile();
  for (const directory of directories) zip.addEmptyDirectory(directory);
  for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function uploadAndImport(
  fileName: string,
  content: string,
): Promise<{ gatheringKey: string; path: string }> {
  const form = new FormData();
  form.append('file', new Blob([content]), fileName);
  const [entry] = (await (await upload(form)).json()) as Array<{ gatheringKey: string; path: string }>;
  if (!entry) throw new Error('upload answered no entry');
  const imported = await postJson('/api/v1/imports', { gatheringKey: entry.gatheringKey, path: entry.path });
  expect(imported.status).toBe(202);
  return entry;
}

describe('simulator authentication and routing', () => {
  it('answers 401 with WWW-Authenticate and the JSON error body without credentials', async () => {
    const response = await fetch(`${sim.url}/api/v1/communicationchannels`);

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="PDS"');
    expect(await response.json()).toEqual({
      status: 401,
      error: 'Unauthorized',
      message: expect.stringContaining('credentials'),
    });
  });

  it('answers 401 to a wrong password, also on unknown paths', async () => {
    const wrong = await get('/api/v1/communicationchannels', { authorization: authHeader('demo', 'nope') });
    const unknownPath = await fetch(`${sim.url}/nothing/here`);

    expect(wrong.status).toBe(401);
    expect(unknownPath.status).toBe(401);
  });

  it('answers 404 for an unknown path and 405 with Allow for a wrong method', async () => {
    const unknown = await get('/api/v1/nothing');
    const wrongMethod = await get('/api/v1/imports');

    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain('/api/v1/nothing');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });
});

describe('simulator keep-alive connections', () => {
  it('answers a request sent before the previous streamed answer ended, in order', async () => {
    // Prepare: two requests written at once on one connection, as a keep-alive client does when it
    // has read an answer's last byte before the simulator's stream behind it has ended
    const { hostname, port } = new URL(sim.url);
    const authorization = `Basic ${Buffer.from(`${sim.username}:${sim.password}`).toString('base64')}`;
    const request = (path: string) =>
      `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\n\r\n`;
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });

    // Act
    socket.write(
      request('/v1/assetFolders/documents?download=true') + request('/api/v1/communicationchannels'),
    );
    const deadline = Date.now() + 5_000;
    while (received.match(/HTTP\/1\.1 \d{3}/g)?.length !== 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    socket.destroy();

    // Assess
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
    expect(received.indexOf('application/zip')).toBeLessThan(received.indexOf('application/json'));
  });
});

describe('simulator communication channels, reviews and messaging assets', () => {
  it('lists the demo channels, one recipient behaviour each', async () => {
    const response = await get('/api/v1/communicationchannels');

    const channels = (await response.json()) as Array<{ id: string; name: string; type: string }>;
    expect(channels.map((channel) => channel.id)).toEqual(Object.values(DEMO_CHANNEL_IDS));
    expect(channels[0]).toMatchObject({
      type: 'GDSN',
      name: expect.any(String),
      dataPoolGln: expect.any(String),
    });
  });

  it('lists the demo messaging assets ordered by id, with and without the trailing slash', async () => {
    const withSlash = await (await get('/api/v1/messaging/messagingassets/')).json();
    const withoutSlash = await (await get('/api/v1/messaging/messagingassets')).json();

    const ids = (withSlash as Array<{ id: number }>).map((asset) => asset.id);
    expect(ids.slice(0, 3)).toEqual([1, 2, 3]);
    expect(withoutSlash).toEqual(withSlash);
    expect((withSlash as unknown[])[0]).toEqual({
      id: 1,
      createdAt: expect.any(Number),
      contentType: 'application/xml',
      primaryKey: DEMO_PRIMARY_KEYS.water,
      messagingCreatorType: 'REVIEW',
    });
  });

  it('serves a review backlog whose messaging assets are SYNCHRONISED and REVIEW confirmations', async () => {
    // Prepare
    const parser = new XMLParser({ parseTagValue: false, removeNSPrefix: true });
    const stateOf = async (primaryKey: string) => {
      const [review] = (await (await get(`/api/v1/supplierreviews/${primaryKey}`)).json()) as Array<{
        messagingAssetId: number;
        reviewStatus: string;
      }>;
      const xml = await (await get(`/api/v1/messaging/messagingassets/${review?.messagingAssetId}`)).text();
      const code =
        parser.parse(xml).catalogueItemConfirmationMessage.transaction.documentCommand
          .catalogueItemConfirmation.catalogueItemConfirmationState.catalogueItemConfirmationStateCode;
      return [review?.reviewStatus, code];
    };

    // Act
    const water = await stateOf(DEMO_PRIMARY_KEYS.water);
    const oats = await stateOf(DEMO_PRIMARY_KEYS.fridayOats);

    // Assess
    expect(water).toEqual(['APPROVED', 'SYNCHRONISED']);
    expect(oats).toEqual(['REVIEW', 'REVIEW']);
  });

  it('answers one messaging asset as XML with an exact Content-Length', async () => {
    const response = await get('/api/v1/messaging/messagingassets/1');

    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/xml; charset=UTF-8');
    expect(Number(response.headers.get('content-length'))).toBe(body.length);
    expect(body.toString('utf8')).toBe(sim.state.messagingAssets.get(1)?.xml);
  });

  it('streams a large seeded messaging asset completely', async () => {
    // Prepare
    const xml = `<?xml version="1.0" encoding="UTF-8"?><big>${'<v>ü &amp; ß</v>'.repeat(200_000)}</big>`;
    const id = sim.state.addMessagingAsset({ xml, primaryKey: DEMO_PRIMARY_KEYS.water });

    // Act
    const response = await get(`/api/v1/messaging/messagingassets/${id}`);

    // Assess
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(xml));
    expect(await response.text()).toBe(xml);
    const listed = (await (await get('/api/v1/messaging/messagingassets/')).json()) as Array<{ id: number }>;
    expect(listed.at(-1)).toEqual({
      id,
      createdAt: expect.any(Number),
      contentType: 'application/xml',
      primaryKey: DEMO_PRIMARY_KEYS.water,
    });
  });

  it('answers 400 for a non-integer messaging asset id and 404 for an unknown one', async () => {
    const notInteger = await get('/api/v1/messaging/messagingassets/abc');
    const unknown = await get('/api/v1/messaging/messagingassets/999999');

    expect(notInteger.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, error: 'Not Found' });
  });

  it('answers [] for a known item without reviews and 404 for an unknown key', async () => {
    const known = await get(`/api/v1/supplierreviews/${DEMO_PRIMARY_KEYS.unnamed}`);
    const unknown = await get('/api/v1/supplierreviews/0000000000000');

    expect(await known.json()).toEqual([]);
    expect(unknown.status).toBe(404);
  });

  it('decodes a percent-encoded primary key with slash, space and unicode exactly once', async () => {
    // Prepare
    const key = 'SKU/42 Grüße %2F';
    sim.state.addItem({ primaryKey__: key, name: 'Odd key' });
    const channel = sim.state.channels[0];
    if (!channel) throw new Error('no channel');
    sim.state.addSupplierReview(
      {
        primaryKey: key,
        supplierId: channel.supplierId,
        channelId: channel.id,
        supplier: 'S',
        reviewer: 'R',
        reviewStatus: 'APPROVED',
        date: 1,
        comment: '',
        messagingCreatorType: 'REVIEW',
      },
      '<x/>',
    );

    // Act
    const response = await get(`/api/v1/supplierreviews/${encodeURIComponent(key)}`);
    const malformed = await get('/api/v1/supplierreviews/%E0%A4%A');

    // Assess
    expect(response.status).toBe(200);
    expect(((await response.json()) as Array<{ primaryKey: string }>)[0]?.primaryKey).toBe(key);
    expect(malformed.status).toBe(400);
  });
});

describe('simulator uploads (POST /api/v1/gatherings)', () => {
  it('stores every file part and every ZIP member as an entry of one gathering', async () => {
    // Prepare
    const csv = 'primaryKey__,name\n1,a\n';
    const zip = await zipOf({ 'dir/a.json': '[]', 'b.txt': 'bee' }, ['empty/']);
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'items.csv');
    form.append('note', 'ignored field');
    form.append('file', new Blob([zip]), 'bundle.ZIP');
    form.append('file', new Blob(['again']), 'items.csv');

    // Act
    const response = await upload(form);

    // Assess
    expect(response.status).toBe(200);
    const entries = (await response.json()) as Array<Record<string, string>>;
    expect(entries.map(({ path, contentType }) => [path, contentType])).toEqual([
      ['items.csv', 'text/csv'],
      ['bundle/dir/a.json', ''],
      ['bundle/b.txt', ''],
      ['items (2).csv', 'application/octet-stream'],
    ]);
    const gatheringKey = entries[0]?.gatheringKey;
    expect(gatheringKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(entries.every((entry) => entry.gatheringKey === gatheringKey)).toBe(true);
    expect(new Set(entries.map((entry) => entry.assetKey)).size).toBe(4);
    const stored = sim.state.gatherings.get(gatheringKey ?? '')?.entries ?? [];
    expect(stored.map(({ size, sha256: hash }) => [size, hash])).toEqual([
      [csv.length, sha256(csv)],
      [2, sha256('[]')],
      [3, sha256('bee')],
      [5, sha256('again')],
    ]);
    expect(await readFile(stored[2]?.diskPath ?? '', 'utf8')).toBe('bee');
  });

  it('streams a large upload to disk with the right size and SHA-256', async () => {
    // Prepare: 24 MiB sent as a stream, so neither side holds the file at once.
    const boundary = 'simulator-test-boundary';
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const chunkCount = 24;
    const expected = createHash('sha256');
    for (let i = 0; i < chunkCount; i += 1) expected.update(chunk);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
          ),
        );
      },
      pull(controller) {
        if (sent < chunkCount) {
          controller.enqueue(chunk);
          sent += 1;
        } else {
          controller.enqueue(Buffer.from(`\r\n--${boundary}--\r\n`));
          controller.close();
        }
      },
    });

    // Act
    const response = await fetch(`${sim.url}/api/v1/gatherings`, {
      method: 'POST',
      headers: { authorization: authHeader(), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);

    // Assess
    const [entry] = (await response.json()) as Array<{ gatheringKey: string }>;
    const stored = sim.state.gatherings.get(entry?.gatheringKey ?? '')?.entries[0];
    expect(stored).toMatchObject({
      path: 'big.bin',
      size: chunkCount * chunk.length,
      sha256: expected.digest('hex'),
    });
    expect((await stat(stored?.diskPath ?? '')).size).toBe(chunkCount * chunk.length);
  });

  it('refuses a body without a file part, a broken ZIP and a non-multipart body', async () => {
    const noFile = new FormData();
    noFile.append('other', 'x');
    const brokenZip = new FormData();
    brokenZip.append('file', new Blob(['not a zip']), 'broken.zip');
    const gatheringsBefore = sim.state.gatherings.size;

    const noFileResponse = await upload(noFile);
    const brokenResponse = await upload(brokenZip);
    const jsonResponse = await postJson('/api/v1/gatherings', {});

    expect(noFileResponse.status).toBe(400);
    expect(((await noFileResponse.json()) as { message: string }).message).toContain("'file'");
    expect(brokenResponse.status).toBe(400);
    expect(((await brokenResponse.json()) as { message: string }).message).toContain('broken.zip');
    expect(jsonResponse.status).toBe(415);
    expect(sim.state.gatherings.size).toBe(gatheringsBefore);
  });
});

describe('simulator imports (POST /api/v1/imports)', () => {
  it('creates items from a semicolon CSV and records every import, duplicates included', async () => {
    // Prepare
    const csv =
      'primaryKey__;name;netContent;category\r\n40000001;"Tea ""Green""";20;BEVERAGE\r\n;no key;1;FOOD\r\n';

    // Act
    const entry = await uploadAndImport('tea.csv', csv);
    const again = await postJson('/api/v1/imports', entry);

    // Assess
    expect(again.status).toBe(202);
    expect(await again.text()).toBe('');
    expect(sim.state.items.get('40000001')).toEqual({
      primaryKey__: '40000001',
      name: 'Tea "Green"',
      netContent: 20,
      category: 'BEVERAGE',
    });
    const records = sim.state.imports.filter((record) => record.gatheringKey === entry.gatheringKey);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({ path: 'tea.csv', itemCount: 1 });
  });

  it('creates and updates items from a JSON array', async () => {
    await uploadAndImport('items.json', JSON.stringify([{ primaryKey__: '40000002', name: 'Rice' }]));

    await uploadAndImport('update.json', JSON.stringify([{ primaryKey__: '40000002', category: 'FOOD' }]));

    expect(sim.state.items.get('40000002')).toEqual({
      primaryKey__: '40000002',
      name: 'Rice',
      category: 'FOOD',
    });
  });

  it('answers 404 for an unknown gathering or path and 400 naming a missing field or bad JSON', async () => {
    const entry = await uploadAndImport('x.txt', 'plain text');

    const unknownGathering = await postJson('/api/v1/imports', { gatheringKey: 'nope', path: 'x.txt' });
    const unknownPath = await postJson('/api/v1/imports', {
      gatheringKey: entry.gatheringKey,
      path: 'y.txt',
    });
    const missingPath = await postJson('/api/v1/imports', { gatheringKey: entry.gatheringKey });
    const badJson = await postJson('/api/v1/imports', '{"gatheringKey":');

    expect(unknownGathering.status).toBe(404);
    expect(unknownPath.status).toBe(404);
    expect(missingPath.status).toBe(400);
    expect(((await missingPath.json()) as { message: string }).message).toContain("'path'");
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { message: string }).message).toContain('not valid JSON');
  });

  it('answers 413 to a JSON body above the limit and 415 to a body that is not JSON', async () => {
    const huge = JSON.stringify({ gatheringKey: 'x', path: 'y'.repeat(17 * 1024 * 1024) });

    const tooLarge = await postJson('/api/v1/imports', huge);
    const notJson = await fetch(`${sim.url}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: authHeader(), 'content-type': 'text/plain' },
      body: '{}',
    });

    expect(tooLarge.status).toBe(413);
    expect(notJson.status).toBe(415);
  });
});

describe('simulator validation (POST /api/v1/validate)', () => {
  it('answers the documented Friday warning', async () => {
    const response = await postJson('/api/v1/validate', {
      newItem: { primaryKey__: DEMO_PRIMARY_KEYS.water, name: 'Water', simple_date: '2013-07-26' },
    });

    expect(await response.json()).toEqual({
      validations: {
        simple_date: [
          {
            name: 'simple_validation',
            level: 'Warning',
            path: ['simple_date'],
            message: "'Simple Date' should not be a Friday",
            params: { msg_id: 'friday', err_val: '2013-07-26', err_val_msg: "'2013-07-26' " },
          },
        ],
      },
      attributeStates: { primaryKey__: 'NEW', name: 'NEW', simple_date: 'NEW' },
      calculations: { gtin14: `0${DEMO_PRIMARY_KEYS.water}` },
    });
  });

  it('validates only the named attributes and answers 400 naming a missing newItem', async () => {
    const filtered = await postJson('/api/v1/validate', {
      newItem: { category: 'TOYS' },
      oldItem: { category: 'FOOD' },
      attributeNames: ['category'],
    });
    const missing = await postJson('/api/v1/validate', { oldItem: {} });

    const body = (await filtered.json()) as { validations: object; attributeStates: object };
    expect(Object.keys(body.validations)).toEqual(['category']);
    expect(body.attributeStates).toEqual({ category: 'CHANGED' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toContain("'newItem'");
  });
});

describe('simulator selections and publications', () => {
  it('creates a selection counting distinct keys', async () => {
    const keys = [DEMO_PRIMARY_KEYS.water, DEMO_PRIMARY_KEYS.fridayOats, DEMO_PRIMARY_KEYS.water];

    const response = await postJson('/api/v1/selections', { primaryKeys: keys });

    const selection = (await response.json()) as { selectionId: string; numberOfItems: number };
    expect(selection.numberOfItems).toBe(2);
    expect(sim.state.selections.get(selection.selectionId)?.primaryKeys).toEqual(keys.slice(0, 2));
  });

  it('answers 400 for empty keys and 404 naming the unknown keys', async () => {
    const empty = await postJson('/api/v1/selections', { primaryKeys: [] });
    const unknown = await postJson('/api/v1/selections', {
      primaryKeys: [DEMO_PRIMARY_KEYS.water, 'ghost-1'],
    });

    expect(empty.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { message: string }).message).toContain("'ghost-1'");
  });

  it('refuses bad destinations with 400 and an unknown selection with 404', async () => {
    const { selectionId } = (await (
      await postJson('/api/v1/selections', { primaryKeys: [DEMO_PRIMARY_KEYS.water] })
    ).json()) as { selectionId: string };

    const badType = await postJson('/api/v1/publications', {
      selectionId,
      destinations: [{ destinationType: 'EMAIL', destinationId: 'x' }],
    });
    const badChannel = await postJson('/api/v1/publications', {
      selectionId,
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'no-such-channel' }],
    });
    const unknownSelection = await postJson('/api/v1/publications', {
      selectionId: 'no-such-selection',
      destinations: [{ destinationType: 'IN_PLATFORM', destinationId: 'org-1' }],
    });

    expect(badType.status).toBe(400);
    expect(((await badType.json()) as { message: string }).message).toContain(
      'destinations[0].destinationType',
    );
    expect(badChannel.status).toBe(400);
    expect(unknownSelection.status).toBe(404);
  });

  it('produces one review and CIC per item after a channel publication, none for IN_PLATFORM', async () => {
    // Prepare
    const keys = [DEMO_PRIMARY_KEYS.dishSoap, DEMO_PRIMARY_KEYS.unnamed];
    const { selectionId } = (await (await postJson('/api/v1/selections', { primaryKeys: keys })).json()) as {
      selectionId: string;
    };
    const reviewCount = (key: string) => sim.state.supplierReviews.get(key)?.length ?? 0;
    const before = keys.map(reviewCount);

    // Act
    const response = await postJson('/api/v1/publications', {
      selectionId,
      destinations: [
        { destinationType: 'IN_PLATFORM', destinationId: 'org-1' },
        { destinationType: 'COMMUNICATION_CHANNEL', destinationId: DEMO_CHANNEL_IDS.germany },
      ],
    });

    // Assess
    expect(response.status).toBe(202);
    expect(await response.text()).toBe('');
    expect(sim.state.publications.at(-1)).toMatchObject({ selectionId });
    await waitFor(
      () => (keys.every((key, i) => reviewCount(key) === (before[i] ?? 0) + 1) ? true : undefined),
      'the reviews of the publication',
    );
    const reviews = await Promise.all(
      keys.map(async (key) =>
        ((await (await get(`/api/v1/supplierreviews/${key}`)).json()) as Array<Record<string, unknown>>).at(
          -1,
        ),
      ),
    );
    expect(reviews[0]).toMatchObject({
      channelId: DEMO_CHANNEL_IDS.germany,
      reviewStatus: 'APPROVED',
      supplier: 'Demo Supplier GmbH',
      reviewer: 'Demo Retail DE',
      messagingCreatorType: 'REVIEW',
      date: expect.any(Number),
    });
    expect(reviews[1]).toMatchObject({ reviewStatus: 'REVIEW', comment: "'Name' is required" });
    const xml = await (await get(`/api/v1/messaging/messagingassets/${reviews[1]?.messagingAssetId}`)).text();
    expect(xml).toContain('<catalogueItemConfirmationStateCode>REVIEW</catalogueItemConfirmationStateCode>');
    expect(xml).toContain('<confirmationStatusCodeDescription languageCode="en">\'Name\' is required');
    expect(xml).toContain('<correctiveActionCode>ACTION_NEEDED</correctiveActionCode>');
    expect(xml).toContain(`<gtin>0${DEMO_PRIMARY_KEYS.unnamed}</gtin>`);
  });
});

describe('startSimulator options', () => {
  it('starts empty except for the channels when demoData is false', async () => {
    const empty = await startSimulator({ demoData: false });
    try {
      const headers = { authorization: authHeader('demo', 'demo') };
      const assets = await (
        await fetch(`${empty.url}/api/v1/messaging/messagingassets/`, { headers })
      ).json();
      const channels = (await (
        await fetch(`${empty.url}/api/v1/communicationchannels`, { headers })
      ).json()) as unknown[];

      expect(assets).toEqual([]);
      expect(channels).toHaveLength(Object.keys(DEMO_CHANNEL_IDS).length);
      expect(empty.state.items.size).toBe(0);
    } finally {
      await empty.close();
    }
  });

  it('generates the same ids for the same seed', async () => {
    const keyOf = async (seed: number) => {
      const other = await startSimulator({ seed, username: 'u', password: 'p' });
      try {
        const form = new FormData();
        form.append('file', new Blob(['x']), 'x.txt');
        const response = await fetch(`${other.url}/api/v1/gatherings`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
          body: form,
        });
        return ((await response.json()) as Array<{ gatheringKey: string; assetKey: string }>)[0];
      } finally {
        await other.close();
      }
    };

    const first = await keyOf(7);
    const second = await keyOf(7);
    const third = await keyOf(8);

    expect(second).toEqual(first);
    expect(third?.gatheringKey).not.toBe(first?.gatheringKey);
  });

  it('removes its own upload directory on close', async () => {
    const other = await startSimulator({ demoData: false });
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const headers = { authorization: authHeader('demo', 'demo') };
    await fetch(`${other.url}/api/v1/gatherings`, { method: 'POST', headers, body: form });
    const [gathering] = other.state.gatherings.values();
    const diskPath = gathering?.entries[0]?.diskPath ?? '';
    expect((await stat(diskPath)).isFile()).toBe(true);

    await other.close();

    await expect(stat(diskPath)).rejects.toThrow(/ENOENT/);
  });
});
