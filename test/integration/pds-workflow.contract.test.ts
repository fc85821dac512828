/**
 * Contract of the PDS client against the simulator over real HTTP: every `/api/v1` operation, the
 * typed errors, the retry rules under injected faults, path encoding, and a 1 GiB streamed upload.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import {
  PdsNetworkError,
  PdsNotFoundError,
  PdsRateLimitedError,
  PdsServerError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import { type ClosablePdsClient, createPdsClient } from '../../packages/bridge/src/pds/index.ts';
import type { PdsRetryEvent } from '../../packages/bridge/src/pds/transport.ts';
import {
  DEMO_CHANNEL_IDS,
  DEMO_PRIMARY_KEYS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';

let sim: RunningSimulator;
let pds: ClosablePdsClient;
let dir: string;
const waits: number[] = [];
const retries: PdsRetryEvent[] = [];

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 30 });
  dir = await mkdtemp(join(tmpdir(), 'pds-contract-'));
  pds = createPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: sim.password },
    // Waits are recorded, not slept: the simulator does not check that the client waited.
    sleep: async (ms) => {
      waits.push(ms);
    },
    onRetry: (event) => retries.push(event),
  });
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  waits.length = 0;
  retries.length = 0;
  sim.requestLog.length = 0;
});

async function zipFile(name: string, files: Record<string, string>): Promise<string> {
  const zip = new ZipFile();
  for (const [member, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), member);
  zip.end();
  const path = join(dir, name);
  await pipeline(zip.outputStream, createWriteStream(path));
  return path;
}

function csvSource(fileName: string, text: string) {
  const bytes = Buffer.from(text, 'utf8');
  return { stream: Readable.from([bytes]), size: bytes.length, fileName, contentType: 'text/csv' };
}

async function importAll(source: Parameters<ClosablePdsClient['uploadGathering']>[0]) {
  const entries = await pds.uploadGathering(source);
  for (const entry of entries) await pds.startImport({ gatheringKey: entry.gatheringKey, path: entry.path });
  return entries;
}

/** Polls until `read` returns a non-empty list; bounded in attempts and time. */
async function eventually<T>(read: () => Promise<T[]>): Promise<T[]> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = await read();
    if (found.length > 0) return found;
    await delay(20);
  }
  throw new Error('nothing appeared within 100 polls');
}

describe('gatherings and imports', () => {
  it('uploads a CSV from a stream, imports it and creates its items', async () => {
    // Prepare
    const source = csvSource('contract-items.csv', 'primaryKey__;name\nCT-0001;Pen\nCT-0002;Pencil\n');

    // Act
    const entries = await importAll(source);

    // Assess
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ path: 'contract-items.csv', contentType: 'text/csv' });
    expect(sim.state.items.get('CT-0001')).toMatchObject({ name: 'Pen' });
    expect(sim.state.items.get('CT-0002')).toMatchObject({ name: 'Pencil' });
  });

  it('uploads a ZIP from a file, lists every member and imports each one', async () => {
    // Prepare
    const path = await zipFile('bundle.zip', {
      'a.csv': 'primaryKey__,name\nZIP-A,Alpha\n',
      'nested/b.csv': 'primaryKey__,name\nZIP-B,Beta\n',
      'readme.txt': 'not items',
    });
    const importsBefore = sim.state.imports.length;

    // Act
    const entries = await importAll({ filePath: path });

    // Assess
    expect(entries.map((entry) => entry.path).sort()).toEqual([
      'bundle/a.csv',
      'bundle/nested/b.csv',
      'bundle/readme.txt',
    ]);
    expect(new Set(entries.map((entry) => entry.gatheringKey)).size).toBe(1);
    expect(entries.every((entry) => entry.contentType === '')).toBe(true);
    expect(sim.state.imports.length - importsBefore).toBe(3);
    expect(sim.state.items.get('ZIP-A')).toMatchObject({ name: 'Alpha' });
    expect(sim.state.items.get('ZIP-B')).toMatchObject({ name: 'Beta' });
  });

  it('does not retry an import answered 503: it may already have happened', async () => {
    // Prepare
    const [entry] = await pds.uploadGathering(csvSource('once.csv', 'primaryKey__;name\nONCE-1;x\n'));
    sim.failNext(1, { kind: 'status', status: 503, method: 'POST', pathPrefix: '/api/v1/imports' });
    const importsBefore = sim.state.imports.length;

    // Act
    const error = await pds
      .startImport({ gatheringKey: entry?.gatheringKey ?? '', path: entry?.path ?? '' })
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsServerError);
    expect(retries).toHaveLength(0);
    expect(sim.state.imports.length).toBe(importsBefore);
  });
});

describe('validate', () => {
  it('reports the documented Friday warning', async () => {
    // Act
    const response = await pds.validate({
      newItem: { primaryKey__: DEMO_PRIMARY_KEYS.water, name: 'Water', simple_date: '2013-07-26' },
    });

    // Assess
    expect(response.validations.simple_date).toEqual([
      expect.objectContaining({
        name: 'simple_validation',
        level: 'Warning',
        path: ['simple_date'],
        params: expect.objectContaining({ msg_id: 'friday', err_val: '2013-07-26' }),
      }),
    ]);
  });

  it('reports a missing required attribute as an Error, unless attributeNames leaves it out', async () => {
    // Prepare
    const newItem = { primaryKey__: DEMO_PRIMARY_KEYS.water, simple_date: '2013-07-26' };

    // Act
    const all = await pds.validate({ newItem });
    const filtered = await pds.validate({ newItem, attributeNames: ['simple_date'] });

    // Assess
    expect(all.validations.name?.[0]).toMatchObject({ level: 'Error', params: { msg_id: 'required' } });
    expect(filtered.validations.name ?? []).toEqual([]);
    expect(filtered.validations.simple_date?.[0]?.level).toBe('Warning');
  });

  it('is retried on 503 because it has no side effect', async () => {
    // Prepare
    sim.failNext(1, { kind: 'status', status: 503, retryAfterSeconds: 0, pathPrefix: '/api/v1/validate' });

    // Act
    const response = await pds.validate({ newItem: { primaryKey__: 'X', name: 'n' } });

    // Assess
    expect(response.validations).toBeTypeOf('object');
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([503, 200]);
  });
});

describe('selections, publications and supplier reviews', () => {
  it('creates a selection and refuses unknown keys with PdsNotFoundError', async () => {
    // Act
    const selection = await pds.createSelection([DEMO_PRIMARY_KEYS.water, DEMO_PRIMARY_KEYS.dishSoap]);
    const unknown = await pds.createSelection(['NO-SUCH-ITEM']).catch((e) => e);

    // Assess
    expect(selection.numberOfItems).toBe(2);
    expect(sim.state.selections.get(selection.selectionId)?.primaryKeys).toEqual([
      DEMO_PRIMARY_KEYS.water,
      DEMO_PRIMARY_KEYS.dishSoap,
    ]);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
    expect(unknown.message).toContain('NO-SUCH-ITEM');
  });

  it('lists the communication channels with their extra fields', async () => {
    // Act
    const channels = await pds.listCommunicationChannels();

    // Assess
    expect(channels.map((channel) => channel.id)).toEqual(
      expect.arrayContaining([DEMO_CHANNEL_IDS.germany, DEMO_CHANNEL_IDS.netherlands]),
    );
    expect(channels[0]).toHaveProperty('type', 'GDSN');
  });

  it('publishes to a communication channel, then reads the review and its messaging asset', async () => {
    // Prepare
    await importAll(csvSource('publish.csv', 'primaryKey__;name\nPUB-0001;Published pen\n'));
    const selection = await pds.createSelection(['PUB-0001']);

    // Act
    await pds.publish({
      selectionId: selection.selectionId,
      destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: DEMO_CHANNEL_IDS.germany }],
    });
    const reviews = await eventually(() => pds.listSupplierReviews('PUB-0001'));
    const [review] = reviews;
    const id = review?.messagingAssetId ?? -1;
    const xml = await pds.getMessagingAsset(id);
    const stream = await pds.streamMessagingAsset(id);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const summaries = await pds.listMessagingAssets();

    // Assess
    expect(review).toMatchObject({
      primaryKey: 'PUB-0001',
      channelId: DEMO_CHANNEL_IDS.germany,
      messagingCreatorType: 'REVIEW',
    });
    expect(xml).toContain('catalogueItemConfirmation');
    expect(Buffer.concat(chunks).toString('utf8')).toBe(xml);
    expect(summaries.find((summary) => summary.id === id)).toMatchObject({ primaryKey: 'PUB-0001' });
    const ids = summaries.map((summary) => summary.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  it('carries a primary key with "/", spaces and unicode intact to the simulator and back', async () => {
    // Prepare
    const key = 'Shelf/A 1 – Ünïcödé ✓ 100%?#';
    await importAll(csvSource('odd-keys.csv', `primaryKey__;name\n"${key}";Odd\n`));

    // Act
    const before = await pds.listSupplierReviews(key);
    const selection = await pds.createSelection([key]);
    sim.state.addSupplierReview(
      {
        primaryKey: key,
        supplierId: 's',
        channelId: DEMO_CHANNEL_IDS.germany,
        supplier: 'S',
        reviewer: 'R',
        reviewStatus: 'APPROVED',
        date: Date.now(),
        comment: '',
        messagingCreatorType: 'REVIEW',
      },
      '<x/>',
    );
    const after = await pds.listSupplierReviews(key);

    // Assess
    expect(sim.state.items.has(key)).toBe(true);
    expect(before).toEqual([]);
    expect(selection.numberOfItems).toBe(1);
    expect(after.map((review) => review.primaryKey)).toEqual([key]);
    expect(sim.requestLog.some((entry) => entry.path.includes(encodeURIComponent('Shelf/A')))).toBe(true);
  });
});

describe('typed failures', () => {
  it('answers a wrong password with PdsUnauthorizedError and no retry', async () => {
    // Prepare
    const wrong = createPdsClient({
      baseUrl: sim.url,
      credentials: { username: sim.username, password: 'nope' },
    });

    // Act
    const error = await wrong.listCommunicationChannels().catch((e) => e);
    await wrong.close();

    // Assess
    expect(error).toBeInstanceOf(PdsUnauthorizedError);
    expect(error.status).toBe(401);
    expect(sim.requestLog).toHaveLength(1);
  });

  it('answers unknown identifiers with PdsNotFoundError', async () => {
    // Act
    const review = await pds.listSupplierReviews('NO-SUCH-ITEM').catch((e) => e);
    const asset = await pds.getMessagingAsset(987_654_321).catch((e) => e);

    // Assess
    expect(review).toBeInstanceOf(PdsNotFoundError);
    expect(asset).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('retries against injected faults', () => {
  const channels = '/api/v1/communicationchannels';

  it('retries a GET after a 503 and succeeds', async () => {
    // Prepare
    sim.failNext(1, { kind: 'status', status: 503, method: 'GET', pathPrefix: channels });

    // Act
    const list = await pds.listCommunicationChannels();

    // Assess
    expect(list.length).toBeGreaterThan(0);
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([503, 200]);
    expect(waits).toEqual([1000]);
  });

  it('honours Retry-After of a 429 and succeeds', async () => {
    // Prepare
    sim.failNext(1, {
      kind: 'status',
      status: 429,
      retryAfterSeconds: 2,
      method: 'GET',
      pathPrefix: channels,
    });

    // Act
    await pds.listCommunicationChannels();

    // Assess
    expect(waits).toEqual([2000]);
    expect(retries[0]?.error).toBeInstanceOf(PdsRateLimitedError);
  });

  it('retries a GET whose answer is reset mid-body and succeeds', async () => {
    // Prepare
    const [first] = await pds.listMessagingAssets();
    const id = first?.id ?? 1;
    sim.requestLog.length = 0;
    sim.failNext(1, { kind: 'reset', method: 'GET', pathPrefix: `/api/v1/messaging/messagingassets/${id}` });

    // Act
    const xml = await pds.getMessagingAsset(id);

    // Assess
    expect(xml).toBe(sim.state.messagingAssets.get(id)?.xml);
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([0, 200]);
    expect(retries[0]?.error).toBeInstanceOf(PdsNetworkError);
  });

  it.each([
    ['a 503', { kind: 'status', status: 503 } as const, PdsServerError],
    ['a 429', { kind: 'status', status: 429, retryAfterSeconds: 0 } as const, PdsRateLimitedError],
    ['a reset', { kind: 'reset' } as const, PdsNetworkError],
  ])('gives up after four attempts of %s with the typed error', async (_name, fault, errorClass) => {
    // Prepare
    sim.failNext(4, { ...fault, method: 'GET', pathPrefix: channels });

    // Act
    const error = await pds.listCommunicationChannels().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(errorClass);
    expect(sim.requestLog).toHaveLength(4);
    expect(retries).toHaveLength(3);
  });
});

describe('large uploads', () => {
  it('streams 1 GiB without buffering and the simulator stores the same bytes', {
    timeout: 180_000,
  }, async () => {
    // Prepare: 16 384 chunks of 64 KiB, each a repeating pattern stamped with its counter
    const chunkSize = 64 * 1024;
    const chunkCount = 16 * 1024;
    const size = chunkSize * chunkCount;
    const pattern = Buffer.alloc(chunkSize);
    for (let i = 0; i < chunkSize; i++) pattern[i] = (i * 7 + 13) & 0xff;
    const hash = createHash('sha256');
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const generated = Readable.from(
      (function* () {
        for (let counter = 0; counter < chunkCount; counter++) {
          if (counter % 256 === 0) rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
          const chunk = Buffer.from(pattern);
          chunk.writeUInt32BE(counter, 0);
          chunk.writeUInt32BE((counter ^ 0xa5a5a5a5) >>> 0, chunkSize - 4);
          hash.update(chunk);
          yield chunk;
        }
      })(),
      { objectMode: false },
    );

    // Act
    const [entry] = await pds.uploadGathering({
      stream: generated,
      size,
      fileName: 'one-gibibyte.bin',
      contentType: 'application/octet-stream',
    });

    // Assess
    const stored = sim.state.gatherings.get(entry?.gatheringKey ?? '')?.entries[0];
    expect(stored?.size).toBe(size);
    expect(stored?.sha256).toBe(hash.digest('hex'));
    // Buffering the file anywhere (client or simulator) would need at least 1 GiB more.
    expect(rssPeak - rssBefore).toBeLessThan(512 * 1024 * 1024);
  });
});
