/**
 * Contract of `pds.assetFolders` against the simulator over real HTTP: every `/v1/assetFolders`
 * operation, its documented error statuses (400, 404, 409, 304 as "not modified"), path normalisation
 * and encoding, and `..` refused before any request. Each `describe` names the operations it covers
 * (test/integration/pds-endpoints.test.ts checks that every operation of the spec is named).
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PdsBadRequestError,
  PdsConflictError,
  PdsInvalidRequestError,
  PdsNotFoundError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { FullPdsClient } from '../../packages/bridge/src/pds/resources/index.ts';
import {
  DEMO_ASSET_PATHS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';
import { unzip, zipOf } from './simulator-v1-http.ts';

let sim: RunningSimulator;
let pds: FullPdsClient;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 60_000 });
  dir = await mkdtemp(join(tmpdir(), 'pds-v1-assets-'));
  pds = simulatorClient(sim);
});

afterAll(async () => {
  await pds?.close();
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  sim.requestLog.length = 0;
});

function textSource(fileName: string, text: string, contentType = 'text/plain') {
  const bytes = Buffer.from(text, 'utf8');
  return { stream: Readable.from([bytes]), size: bytes.length, fileName, contentType };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A fresh folder below the root for one test, so tests do not see each other's changes. */
let folderCount = 0;
async function freshFolder(): Promise<string> {
  folderCount += 1;
  const link = await pds.assetFolders.create('/', { name: `t${folderCount}` });
  return link.path ?? `/t${folderCount}`;
}

describe('GET /v1/assetFolders{path}', () => {
  it('lists a folder, folders first, and answers "not modified" to its current ETag', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.uploadFile(folder, textSource('b.txt', 'b'));
    await pds.assetFolders.create(folder, { name: 'z-sub' });

    // Act
    const first = await pds.assetFolders.list(folder);
    const again = await pds.assetFolders.list(folder, { ifNoneMatch: first.etag });

    // Assess
    expect(first.notModified).toBe(false);
    if (first.notModified) return;
    expect(first.value.map((link) => [link.linkType, link.name])).toEqual([
      ['FOLDER', 'z-sub'],
      ['ASSET', 'b.txt'],
    ]);
    expect(first.etag).toMatch(/^".+"$/);
    expect(again).toEqual({ notModified: true, etag: first.etag, cacheControl: 'no-cache' });
    expect(sim.requestLog.at(-1)?.status).toBe(304);
  });

  it('answers with content and a new ETag once the folder changed', async () => {
    // Prepare
    const folder = await freshFolder();
    const before = await pds.assetFolders.list(folder);
    await pds.assetFolders.create(folder, { name: 'new' });

    // Act
    const after = await pds.assetFolders.list(folder, { ifNoneMatch: before.etag, allowCaching: true });

    // Assess
    expect(after.notModified).toBe(false);
    expect(after.etag).not.toBe(before.etag);
    expect(after.cacheControl).toBe('private, max-age=60');
  });

  it('normalises the path: no leading slash, doubled and trailing slashes address the same folder', async () => {
    // Act
    const listing = await pds.assetFolders.list('documents//specs/');

    // Assess
    expect(listing.notModified === false && listing.value.map((link) => link.path)).toEqual([
      DEMO_ASSET_PATHS.waterSpec,
    ]);
    expect(sim.requestLog.at(-1)?.path).toBe('/v1/assetFolders/documents/specs');
  });

  it('downloads an asset as its bytes and a folder as a ZIP stream', async () => {
    // Act
    const asset = await pds.assetFolders.download(DEMO_ASSET_PATHS.waterSpec);
    const assetBytes = await readAll(asset.stream);
    const folder = await pds.assetFolders.download('/documents');
    const members = await unzip(await readAll(folder.stream));

    // Assess
    expect(assetBytes.toString('utf8')).toContain('Sparkling Water');
    expect(asset).toMatchObject({ contentType: 'text/plain', fileName: 'water-spec.txt' });
    expect(asset.contentLength).toBe(assetBytes.length);
    expect(folder).toMatchObject({ contentType: 'application/zip', fileName: 'documents.zip' });
    expect(members['specs/water-spec.txt']).toContain('Net content: 500 MLT');
  });

  it('answers 400 for a path that is an asset and 404 for an unknown one', async () => {
    // Act
    const asset = await pds.assetFolders.list(DEMO_ASSET_PATHS.waterImage).catch((e) => e);
    const unknown = await pds.assetFolders.list('/no/such/folder').catch((e) => e);

    // Assess
    expect(asset).toBeInstanceOf(PdsBadRequestError);
    expect(asset.status).toBe(400);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });

  it.each([
    ['list', () => pds.assetFolders.list('/images/../documents')],
    ['download', () => pds.assetFolders.download('./images')],
    ['details', () => pds.assetFolders.details('/a/../../etc')],
    ['create', () => pds.assetFolders.create('/images/..', { name: 'x' })],
    ['create (name)', () => pds.assetFolders.create('/images', { name: '..' })],
    ['delete', () => pds.assetFolders.delete('/images/..')],
    ['deleteItems', () => pds.assetFolders.deleteItems(['/images', '/documents/..'])],
    ['moveAsset', () => pds.assetFolders.moveAsset(DEMO_ASSET_PATHS.waterImage, '/documents/..')],
    ['moveFolder', () => pds.assetFolders.moveFolder('/images/.', '/documents')],
    ['renameAsset', () => pds.assetFolders.renameAsset(DEMO_ASSET_PATHS.waterImage, '..')],
    ['renameFolder', () => pds.assetFolders.renameFolder('/../images', 'pictures')],
    ['convertToPublicAsset', () => pds.assetFolders.convertToPublicAsset('/images/../images/water.svg')],
    ['uploadFile', () => pds.assetFolders.uploadFile('/images/..', textSource('a.txt', 'a'))],
    ['uploadArchive', () => pds.assetFolders.uploadArchive('..', textSource('a.zip', 'a'))],
  ])('%s refuses a "." or ".." segment before any request', async (_name, act) => {
    // Act
    const error = await act().catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });

  it('refuses a first segment that names an operation, which would reach that operation instead', async () => {
    // Act
    const error = await pds.assetFolders.list('/_delete/x').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('POST /v1/assetFolders{path}', () => {
  it('creates a folder by path or by name inside a path, encoding every segment', async () => {
    // Prepare
    const folder = await freshFolder();
    const odd = 'Fotos 2026 #1 ✓ 100%';

    // Act
    const byName = await pds.assetFolders.create(folder, { name: odd });
    const byPath = await pds.assetFolders.create(`${folder}/${odd}/inner`);

    // Assess
    expect(byName).toMatchObject({ name: odd, linkType: 'FOLDER', path: `${folder}/${odd}` });
    expect(byPath).toMatchObject({ name: 'inner', path: `${folder}/${odd}/inner` });
    expect(sim.requestLog.at(-1)?.path).toBe(`/v1/assetFolders${folder}/${encodeURIComponent(odd)}/inner`);
  });

  it('answers 409 when the folder exists and 404 when its parent does not', async () => {
    // Prepare
    const folder = await freshFolder();

    // Act
    const taken = await pds.assetFolders.create(folder).catch((e) => e);
    const orphan = await pds.assetFolders.create(`${folder}/missing/child`).catch((e) => e);

    // Assess
    expect(taken).toBeInstanceOf(PdsConflictError);
    expect(taken.status).toBe(409);
    expect(orphan).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('GET /v1/assetFolders/_getDetails{path}', () => {
  it('reads the details of an asset and of the root', async () => {
    // Act
    const asset = await pds.assetFolders.details(DEMO_ASSET_PATHS.waterImage);
    const root = await pds.assetFolders.details('/');

    // Assess
    expect(asset).toMatchObject({ name: 'water.svg', linkType: 'ASSET', contentType: 'image/svg+xml' });
    expect(asset.parentFolderId).toBeTypeOf('number');
    expect(root).toMatchObject({ linkType: 'FOLDER', path: '/', id: 1 });
    expect(sim.requestLog.at(-1)?.path).toBe('/v1/assetFolders/_getDetails');
  });

  it('answers 404 for an unknown path', async () => {
    // Act
    const error = await pds.assetFolders.details('/nothing/here.pdf').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('DELETE /v1/assetFolders/_delete{path}', () => {
  it('deletes a folder with its content', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.uploadFile(folder, textSource('gone.txt', 'x'));

    // Act
    await pds.assetFolders.delete(folder);
    const after = await pds.assetFolders.details(folder).catch((e) => e);

    // Assess
    expect(after).toBeInstanceOf(PdsNotFoundError);
    expect(sim.state.assetFolders.find(folder.slice(1).split('/'))).toBeUndefined();
  });

  it('answers 404 for an unknown path and refuses the root before any request', async () => {
    // Act
    const unknown = await pds.assetFolders.delete('/never/was').catch((e) => e);
    sim.requestLog.length = 0;
    const root = await pds.assetFolders.delete('/').catch((e) => e);

    // Assess
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
    expect(root).toBeInstanceOf(PdsInvalidRequestError);
    expect(sim.requestLog).toEqual([]);
  });
});

describe('DELETE /v1/assetFolders/_deleteItems', () => {
  it('deletes several assets and folders at once', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.uploadFile(folder, textSource('one.txt', '1'));
    await pds.assetFolders.create(folder, { name: 'two' });
    await pds.assetFolders.create(folder, { name: 'three' });

    // Act
    await pds.assetFolders.deleteItems([`${folder}/one.txt`, `${folder.slice(1)}//two/`]);
    const listing = await pds.assetFolders.list(folder);

    // Assess
    expect(listing.notModified === false && listing.value.map((link) => link.name)).toEqual(['three']);
  });

  it('answers 404 naming the unknown path and deletes nothing', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'stays' });

    // Act
    const error = await pds.assetFolders.deleteItems([`${folder}/stays`, `${folder}/ghost`]).catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
    expect(error.message).toContain(`${folder}/ghost`);
    expect(await pds.assetFolders.details(`${folder}/stays`)).toMatchObject({ name: 'stays' });
  });
});

describe('PUT /v1/assetFolders/_moveAsset{path} · PUT /v1/assetFolders/_moveFolder{path}', () => {
  it('moves an asset and a folder into another folder', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'from' });
    await pds.assetFolders.create(folder, { name: 'to' });
    await pds.assetFolders.uploadFile(`${folder}/from`, textSource('doc.txt', 'd'));

    // Act
    const asset = await pds.assetFolders.moveAsset(`${folder}/from/doc.txt`, `${folder}/to`);
    const moved = await pds.assetFolders.moveFolder(`${folder}/from`, `${folder}/to`);

    // Assess
    expect(asset.path).toBe(`${folder}/to/doc.txt`);
    expect(moved.path).toBe(`${folder}/to/from`);
  });

  it('answers 400 for the wrong kind, 404 for an unknown destination and 409 for a taken name', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'a' });
    await pds.assetFolders.create(`${folder}/a`, { name: 'b' });
    await pds.assetFolders.create(folder, { name: 'b' });

    // Act
    const wrongKind = await pds.assetFolders.moveAsset(`${folder}/a`, folder).catch((e) => e);
    const unknown = await pds.assetFolders.moveFolder(`${folder}/a`, `${folder}/nowhere`).catch((e) => e);
    const taken = await pds.assetFolders.moveFolder(`${folder}/a/b`, folder).catch((e) => e);

    // Assess
    expect(wrongKind).toBeInstanceOf(PdsBadRequestError);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
    expect(taken).toBeInstanceOf(PdsConflictError);
  });
});

describe('PUT /v1/assetFolders/_renameAsset{path} · PUT /v1/assetFolders/_renameFolder{path}', () => {
  it('renames an asset and a folder', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'old' });
    await pds.assetFolders.uploadFile(`${folder}/old`, textSource('draft.txt', 'd'));

    // Act
    const asset = await pds.assetFolders.renameAsset(`${folder}/old/draft.txt`, 'final.txt');
    const renamed = await pds.assetFolders.renameFolder(`${folder}/old`, 'new');

    // Assess
    expect(asset).toMatchObject({ name: 'final.txt', path: `${folder}/old/final.txt` });
    expect(renamed).toMatchObject({ name: 'new', path: `${folder}/new` });
    expect(await pds.assetFolders.details(`${folder}/new/final.txt`)).toMatchObject({ linkType: 'ASSET' });
  });

  it('answers 409 when the name is taken and 404 for an unknown path', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'x' });
    await pds.assetFolders.create(folder, { name: 'y' });

    // Act
    const taken = await pds.assetFolders.renameFolder(`${folder}/x`, 'y').catch((e) => e);
    const unknown = await pds.assetFolders.renameAsset(`${folder}/none.txt`, 'z.txt').catch((e) => e);

    // Assess
    expect(taken).toBeInstanceOf(PdsConflictError);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('PUT /v1/assetFolders/_convertToPublicAsset{path}', () => {
  it('makes an asset public: its URL serves the bytes without credentials', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.uploadFile(folder, textSource('flyer.txt', 'public words'));

    // Act
    const link = await pds.assetFolders.convertToPublicAsset(`${folder}/flyer.txt`);
    const fetched = await fetch(link.publicUrl ?? 'http://127.0.0.1:9/missing');

    // Assess
    expect(link.public).toBe(true);
    expect(fetched.status).toBe(200);
    expect(await fetched.text()).toBe('public words');
  });

  it('answers 400 for a folder and 404 for an unknown asset', async () => {
    // Act
    const folder = await pds.assetFolders.convertToPublicAsset('/images').catch((e) => e);
    const unknown = await pds.assetFolders.convertToPublicAsset('/images/none.png').catch((e) => e);

    // Assess
    expect(folder).toBeInstanceOf(PdsBadRequestError);
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
  });
});

describe('POST /v1/assetFolders/_uploadFile{path}', () => {
  it('stores a file from disk and replaces it from a stream, keeping its id', async () => {
    // Prepare
    const folder = await freshFolder();
    const path = join(dir, 'label.txt');
    await writeFile(path, 'first version');

    // Act
    const [first] = await pds.assetFolders.uploadFile(folder, { filePath: path, contentType: 'text/plain' });
    const [second] = await pds.assetFolders.uploadFile(
      folder,
      textSource('label.txt', 'second, longer version'),
    );
    const download = await pds.assetFolders.download(`${folder}/label.txt`);

    // Assess
    expect(first).toMatchObject({ name: 'label.txt', linkType: 'ASSET', size: 13 });
    expect(second?.id).toBe(first?.id);
    expect((await readAll(download.stream)).toString('utf8')).toBe('second, longer version');
  });

  it('answers 404 for an unknown folder and 409 when a folder has the file name', async () => {
    // Prepare
    const folder = await freshFolder();
    await pds.assetFolders.create(folder, { name: 'same.txt' });

    // Act
    const unknown = await pds.assetFolders
      .uploadFile(`${folder}/nope`, textSource('a.txt', 'a'))
      .catch((e) => e);
    const clash = await pds.assetFolders.uploadFile(folder, textSource('same.txt', 's')).catch((e) => e);

    // Assess
    expect(unknown).toBeInstanceOf(PdsNotFoundError);
    expect(clash).toBeInstanceOf(PdsConflictError);
  });
});

describe('POST /v1/assetFolders/_uploadArchive{path}', () => {
  it('expands a ZIP into the folder, creating its folders', async () => {
    // Prepare
    const folder = await freshFolder();
    const zip = await zipOf({ 'top.txt': 'top', 'deep/er/leaf.txt': 'leaf' }, ['empty/']);
    const archive = join(dir, 'bundle.zip');
    await writeFile(archive, zip);

    // Act
    const links = await pds.assetFolders.uploadArchive(folder, { filePath: archive });
    const leaf = await pds.assetFolders.download(`${folder}/deep/er/leaf.txt`);

    // Assess
    expect(links.map((link) => link.path)).toEqual(
      expect.arrayContaining([`${folder}/top.txt`, `${folder}/deep/er/leaf.txt`, `${folder}/empty`]),
    );
    expect((await readAll(leaf.stream)).toString('utf8')).toBe('leaf');
  });

  it('answers 400 for a file that is not a ZIP', async () => {
    // Prepare
    const folder = await freshFolder();

    // Act
    const error = await pds.assetFolders
      .uploadArchive(folder, textSource('fake.zip', 'not a zip', 'application/zip'))
      .catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsBadRequestError);
  });
});
