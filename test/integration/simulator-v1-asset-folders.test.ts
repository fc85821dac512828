import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetFolderLink } from '../../packages/bridge/src/pds/resources/types.ts';
import {
  DEMO_ASSET_PATHS,
  type RunningSimulator,
  startSimulator,
} from '../../packages/simulator/src/index.ts';
import { call, formOf, messageOf, rawRequest, unzip, zipOf } from './simulator-v1-http.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});

async function links(path: string): Promise<AssetFolderLink[]> {
  const response = await call(sim, 'GET', `/v1/assetFolders${path}`);
  expect(response.status).toBe(200);
  return (await response.json()) as AssetFolderLink[];
}

async function details(path: string): Promise<Response> {
  return call(sim, 'GET', `/v1/assetFolders/_getDetails${path}`);
}

function uploadFile(folder: string, files: Parameters<typeof formOf>[0]): Promise<Response> {
  return call(sim, 'POST', `/v1/assetFolders/_uploadFile${folder}`, { body: formOf(files) });
}

async function mkdir(path: string): Promise<void> {
  const response = await call(sim, 'POST', `/v1/assetFolders${path}`);
  expect(response.status).toBe(201);
}

describe('simulator asset folders: list and details', () => {
  it('lists the root with and without the trailing slash, folders first, with every link field', async () => {
    const withoutSlash = await links('');
    const withSlash = await links('/');

    expect(withSlash).toEqual(withoutSlash);
    expect(withoutSlash.map((link) => [link.name, link.linkType])).toEqual([
      ['documents', 'FOLDER'],
      ['images', 'FOLDER'],
    ]);
    expect(withoutSlash[1]).toEqual({
      name: 'images',
      linkType: 'FOLDER',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      createdBy: 'system',
      changedAt: expect.any(String),
      changedBy: 'system',
      parentFolderId: 1,
      id: expect.any(Number),
      path: '/images',
    });
  });

  it('answers the details of an asset and of the root, 404 for an unknown path', async () => {
    const asset = await details(DEMO_ASSET_PATHS.waterImage);
    const root = await details('/');
    const unknown = await details('/images/nothing.png');

    expect(await asset.json()).toMatchObject({
      name: 'water.svg',
      linkType: 'ASSET',
      path: DEMO_ASSET_PATHS.waterImage,
      contentType: 'image/svg+xml',
      size: expect.any(Number),
      public: false,
    });
    expect(await root.json()).toMatchObject({ id: 1, path: '/', linkType: 'FOLDER' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, error: 'Not Found' });
  });

  it('decodes each segment once and refuses dot, empty and encoded-slash segments with 400', async () => {
    await mkdir('/Grüße%20und%20mehr');

    const unicode = await details(`/${encodeURIComponent('Grüße und mehr')}`);
    const dotDot = await rawRequest(sim, 'GET', '/v1/assetFolders/_getDetails/images/..');
    const dot = await rawRequest(sim, 'GET', '/v1/assetFolders/images/./x');
    const empty = await rawRequest(sim, 'GET', '/v1/assetFolders/images//x');
    const encodedSlash = await rawRequest(sim, 'GET', '/v1/assetFolders/_getDetails/images%2Fwater.svg');

    expect(((await unicode.json()) as AssetFolderLink).name).toBe('Grüße und mehr');
    expect([dotDot.status, dot.status, empty.status, encodedSlash.status]).toEqual([400, 400, 400, 400]);
  });

  it('answers 400 when the listed path is an asset and 401 without credentials', async () => {
    const asset = await call(sim, 'GET', `/v1/assetFolders${DEMO_ASSET_PATHS.waterImage}`);
    const signedOut = await call(sim, 'GET', '/v1/assetFolders/', { auth: false });

    expect(asset.status).toBe(400);
    expect(await messageOf(asset)).toContain('download=true');
    expect(signedOut.status).toBe(401);
  });
});

describe('simulator asset folders: ETag, If-None-Match and allowCaching', () => {
  it('answers 304 without body while the folder is unchanged and 200 with a new ETag after a change', async () => {
    // Prepare
    await mkdir('/etag-test');
    const first = await call(sim, 'GET', '/v1/assetFolders/etag-test');
    const etag = first.headers.get('etag') ?? '';

    // Act
    const unchanged = await call(sim, 'GET', '/v1/assetFolders/etag-test', {
      headers: { 'if-none-match': etag },
    });
    const weakInList = await call(sim, 'GET', '/v1/assetFolders/etag-test', {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    await uploadFile('/etag-test', [{ name: 'a.txt', content: 'a' }]);
    const changed = await call(sim, 'GET', '/v1/assetFolders/etag-test', {
      headers: { 'if-none-match': etag },
    });

    // Assess
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(weakInList.status).toBe(304);
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as AssetFolderLink[]).map((link) => link.name)).toEqual(['a.txt']);
  });

  it('sends Cache-Control private, max-age=60 with allowCaching=true and no-cache otherwise; 400 for a non-boolean', async () => {
    const allowed = await call(sim, 'GET', '/v1/assetFolders/images?allowCaching=true');
    const plain = await call(sim, 'GET', '/v1/assetFolders/images');
    const wrong = await call(sim, 'GET', '/v1/assetFolders/images?allowCaching=yes');

    expect(allowed.headers.get('cache-control')).toBe('private, max-age=60');
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    expect(wrong.status).toBe(400);
  });
});

describe('simulator asset folders: create, delete', () => {
  it('creates <path>/<name> with a body, <path> itself without one; 409 when it exists, 404 without parent', async () => {
    // Act
    const named = await call(sim, 'POST', '/v1/assetFolders/images', {
      body: JSON.stringify({ name: 'logos' }),
      headers: { 'content-type': 'text/plain' },
    });
    const bare = await call(sim, 'POST', '/v1/assetFolders/images/icons');
    const again = await call(sim, 'POST', '/v1/assetFolders/images/icons');
    const root = await call(sim, 'POST', '/v1/assetFolders/');
    const orphan = await call(sim, 'POST', '/v1/assetFolders/missing/child');
    const underAsset = await call(sim, 'POST', `/v1/assetFolders${DEMO_ASSET_PATHS.waterImage}/x`);
    const badJson = await call(sim, 'POST', '/v1/assetFolders/images', { body: '{name', headers: {} });

    // Assess
    expect(named.status).toBe(201);
    expect(await named.json()).toMatchObject({
      name: 'logos',
      path: '/images/logos',
      linkType: 'FOLDER',
      createdBy: 'demo',
    });
    expect(bare.status).toBe(201);
    expect(again.status).toBe(409);
    expect(root.status).toBe(409);
    expect(orphan.status).toBe(404);
    expect(underAsset.status).toBe(400);
    expect(badJson.status).toBe(400);
    expect((await links('/images')).map((link) => link.name)).toEqual(['icons', 'logos', 'water.svg']);
  });

  it('refuses root names that are operation segments and names with control characters', async () => {
    const reserved = await call(sim, 'POST', '/v1/assetFolders/', { json: { name: '_getDetails' } });
    const control = await call(sim, 'POST', '/v1/assetFolders/images', { json: { name: 'a\u0001b' } });
    const nested = await call(sim, 'POST', '/v1/assetFolders/images', { json: { name: '_getDetails' } });

    expect(reserved.status).toBe(400);
    expect(control.status).toBe(400);
    expect(nested.status).toBe(201);
  });

  it('deletes an asset, a non-empty folder recursively; 404 unknown, 400 for the root', async () => {
    // Prepare
    await mkdir('/trash');
    await mkdir('/trash/inner');
    await uploadFile('/trash/inner', [{ name: 'x.txt', content: 'x' }]);
    const diskPath = [...sim.state.assetFolders.assetsUnder(sim.state.assetFolders.root)].find(
      (asset) => asset.name === 'x.txt',
    )?.diskPath;

    // Act
    const folder = await call(sim, 'DELETE', '/v1/assetFolders/_delete/trash');
    const unknown = await call(sim, 'DELETE', '/v1/assetFolders/_delete/trash');
    const root = await call(sim, 'DELETE', '/v1/assetFolders/_delete/');

    // Assess
    expect(folder.status).toBe(204);
    expect(await folder.text()).toBe('');
    expect((await details('/trash/inner/x.txt')).status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(root.status).toBe(400);
    const { access } = await import('node:fs/promises');
    await expect(access(diskPath ?? '/nonexistent-path')).rejects.toThrow();
  });

  it('deletes several items from a {paths} body all or nothing', async () => {
    // Prepare
    await mkdir('/bulk');
    await uploadFile('/bulk', [
      { name: 'a.txt', content: 'a' },
      { name: 'b.txt', content: 'b' },
      { name: 'c.txt', content: 'c' },
    ]);

    // Act
    const withUnknown = await call(sim, 'DELETE', '/v1/assetFolders/_deleteItems', {
      json: { paths: ['/bulk/a.txt', '/bulk/nope.txt'] },
    });
    const afterRefusal = (await links('/bulk')).length;
    const deleted = await call(sim, 'DELETE', '/v1/assetFolders/_deleteItems', {
      json: { paths: ['/bulk/a.txt', 'bulk/b.txt'] },
    });
    const noBody = await call(sim, 'DELETE', '/v1/assetFolders/_deleteItems');
    const wrongShape = await call(sim, 'DELETE', '/v1/assetFolders/_deleteItems', { json: ['/bulk/c.txt'] });

    // Assess
    expect(withUnknown.status).toBe(404);
    expect(await messageOf(withUnknown)).toContain('/bulk/nope.txt');
    expect(afterRefusal).toBe(3);
    expect(deleted.status).toBe(204);
    expect((await links('/bulk')).map((link) => link.name)).toEqual(['c.txt']);
    expect(noBody.status).toBe(400);
    expect(wrongShape.status).toBe(400);
  });
});

describe('simulator asset folders: move, rename, convert to public asset', () => {
  it('moves an asset and a folder into a destination {path}', async () => {
    // Prepare
    await mkdir('/move-src');
    await mkdir('/move-src/sub');
    await mkdir('/move-dst');
    await uploadFile('/move-src', [{ name: 'doc.txt', content: 'doc' }]);

    // Act
    const asset = await call(sim, 'PUT', '/v1/assetFolders/_moveAsset/move-src/doc.txt', {
      json: { path: '/move-dst' },
    });
    const folder = await call(sim, 'PUT', '/v1/assetFolders/_moveFolder/move-src/sub', {
      json: { path: '/move-dst' },
    });

    // Assess
    expect(asset.status).toBe(200);
    const movedAsset = (await asset.json()) as AssetFolderLink;
    expect(movedAsset).toMatchObject({ path: '/move-dst/doc.txt', changedBy: 'demo' });
    expect(folder.status).toBe(200);
    expect((await links('/move-dst')).map((link) => link.path)).toEqual([
      '/move-dst/sub',
      '/move-dst/doc.txt',
    ]);
    expect(await links('/move-src')).toEqual([]);
    expect(movedAsset.parentFolderId).toBe(
      ((await (await details('/move-dst')).json()) as AssetFolderLink).id,
    );
  });

  it('refuses moves with 400 (wrong kind, no path, into itself), 404 (unknown) and 409 (name taken)', async () => {
    // Prepare
    await mkdir('/mv');
    await mkdir('/mv/inner');
    await mkdir('/mv-other');
    await uploadFile('/mv', [{ name: 'same.txt', content: '1' }]);
    await uploadFile('/mv-other', [{ name: 'same.txt', content: '2' }]);

    // Act
    const statuses = await Promise.all([
      call(sim, 'PUT', '/v1/assetFolders/_moveAsset/mv/inner', { json: { path: '/mv-other' } }),
      call(sim, 'PUT', '/v1/assetFolders/_moveFolder/mv/same.txt', { json: { path: '/mv-other' } }),
      call(sim, 'PUT', '/v1/assetFolders/_moveAsset/mv/same.txt'),
      call(sim, 'PUT', '/v1/assetFolders/_moveFolder/mv', { json: { path: '/mv/inner' } }),
      call(sim, 'PUT', '/v1/assetFolders/_moveAsset/mv/none.txt', { json: { path: '/mv-other' } }),
      call(sim, 'PUT', '/v1/assetFolders/_moveAsset/mv/same.txt', { json: { path: '/nowhere' } }),
      call(sim, 'PUT', '/v1/assetFolders/_moveAsset/mv/same.txt', { json: { path: '/mv-other' } }),
    ]).then((responses) => responses.map((response) => response.status));

    // Assess
    expect(statuses).toEqual([400, 400, 400, 400, 404, 404, 409]);
  });

  it('renames an asset and a folder; 409 when the name is taken, 400 without a name', async () => {
    // Prepare
    await mkdir('/ren');
    await mkdir('/ren/old');
    await uploadFile('/ren', [
      { name: 'a.txt', content: 'a' },
      { name: 'b.txt', content: 'b' },
    ]);

    // Act
    const asset = await call(sim, 'PUT', '/v1/assetFolders/_renameAsset/ren/a.txt', {
      json: { name: 'c.txt' },
    });
    const folder = await call(sim, 'PUT', '/v1/assetFolders/_renameFolder/ren/old', {
      json: { name: 'new' },
    });
    const taken = await call(sim, 'PUT', '/v1/assetFolders/_renameAsset/ren/b.txt', {
      json: { name: 'c.txt' },
    });
    const noName = await call(sim, 'PUT', '/v1/assetFolders/_renameFolder/ren/new');
    const wrongKind = await call(sim, 'PUT', '/v1/assetFolders/_renameFolder/ren/b.txt', {
      json: { name: 'd' },
    });

    // Assess
    expect(asset.status).toBe(200);
    expect(folder.status).toBe(200);
    expect((await links('/ren')).map((link) => link.name)).toEqual(['new', 'b.txt', 'c.txt']);
    expect([taken.status, noName.status, wrongKind.status]).toEqual([409, 400, 400]);
  });

  it('converts an asset to a public asset whose URL serves the bytes without credentials', async () => {
    // Prepare
    await mkdir('/pub');
    await uploadFile('/pub', [{ name: 'logo name.svg', content: '<svg/>', type: 'image/svg+xml' }]);

    // Act
    const converted = await call(
      sim,
      'PUT',
      `/v1/assetFolders/_convertToPublicAsset/pub/${encodeURIComponent('logo name.svg')}`,
    );
    const link = (await converted.json()) as AssetFolderLink;
    const served = await fetch(link.publicUrl ?? '');
    const folder = await call(sim, 'PUT', '/v1/assetFolders/_convertToPublicAsset/pub');
    const unknown = await call(sim, 'PUT', '/v1/assetFolders/_convertToPublicAsset/pub/none.svg');
    await call(sim, 'DELETE', '/v1/assetFolders/_delete/pub');
    const afterDelete = await fetch(link.publicUrl ?? '');

    // Assess
    expect(converted.status).toBe(200);
    expect(link).toMatchObject({
      public: true,
      publicUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/public\/assets\//),
    });
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/svg+xml');
    expect(await served.text()).toBe('<svg/>');
    expect(folder.status).toBe(400);
    expect(unknown.status).toBe(404);
    expect(afterDelete.status).toBe(404);
  });
});

describe('simulator asset folders: uploads and downloads', () => {
  it('stores each file part as an asset, replaces one of the same name and keeps its id', async () => {
    // Prepare
    await mkdir('/up');

    // Act
    const first = await uploadFile('/up', [{ name: 'report.csv', content: 'a,b\n', type: 'text/csv' }]);
    const [firstLink] = (await first.json()) as AssetFolderLink[];
    const second = await uploadFile('/up', [{ name: 'report.csv', content: 'a,b\n1,2\n', type: 'text/csv' }]);
    const [secondLink] = (await second.json()) as AssetFolderLink[];
    const bytes = await call(sim, 'GET', '/v1/assetFolders/up/report.csv?download=true');

    // Assess
    expect(first.status).toBe(201);
    expect(firstLink).toMatchObject({
      name: 'report.csv',
      path: '/up/report.csv',
      size: 4,
      contentType: 'text/csv',
    });
    expect(secondLink).toMatchObject({ id: firstLink?.id, size: 8 });
    expect(bytes.headers.get('content-disposition')).toContain('filename="report.csv"');
    expect(await bytes.text()).toBe('a,b\n1,2\n');
  });

  it('refuses an upload without a file part (400), not multipart (415), into nowhere (404), onto a folder (409)', async () => {
    // Prepare
    await mkdir('/up2');
    await mkdir('/up2/taken');
    const noFile = new FormData();
    noFile.append('other', 'x');

    // Act
    const statuses = await Promise.all([
      call(sim, 'POST', '/v1/assetFolders/_uploadFile/up2', { body: noFile }),
      call(sim, 'POST', '/v1/assetFolders/_uploadFile/up2', { json: {} }),
      call(sim, 'POST', '/v1/assetFolders/_uploadFile/nowhere', {
        body: formOf([{ name: 'a', content: 'a' }]),
      }),
      call(sim, 'POST', '/v1/assetFolders/_uploadFile/up2', {
        body: formOf([{ name: 'taken', content: 'a' }]),
      }),
    ]).then((responses) => responses.map((response) => response.status));

    // Assess
    expect(statuses).toEqual([400, 415, 404, 409]);
    expect((await links('/up2')).map((link) => link.name)).toEqual(['taken']);
  });

  it('expands an archive into the folder, creating subfolders; 409 for a conflict, 400 for a broken archive', async () => {
    // Prepare
    await mkdir('/arc');
    await uploadFile('/arc', [{ name: 'clash', content: 'an asset' }]);
    const archive = await zipOf({ 'manuals/a.txt': 'A', 'manuals/deep/b.txt': 'B', 'top.txt': 'T' }, [
      'empty/',
    ]);
    const clashing = await zipOf({ 'ok.txt': 'fine', 'clash/inside.txt': 'needs a folder' });

    // Act
    const expanded = await call(sim, 'POST', '/v1/assetFolders/_uploadArchive/arc', {
      body: formOf([{ name: 'bundle.zip', content: archive }]),
    });
    const conflict = await call(sim, 'POST', '/v1/assetFolders/_uploadArchive/arc', {
      body: formOf([{ name: 'clash.zip', content: clashing }]),
    });
    const broken = await call(sim, 'POST', '/v1/assetFolders/_uploadArchive/arc', {
      body: formOf([{ name: 'broken.zip', content: 'not a zip' }]),
    });

    // Assess
    expect(expanded.status).toBe(201);
    expect(((await expanded.json()) as AssetFolderLink[]).map((link) => link.path)).toEqual([
      '/arc/empty',
      '/arc/manuals',
      '/arc/manuals/a.txt',
      '/arc/manuals/deep',
      '/arc/manuals/deep/b.txt',
      '/arc/top.txt',
    ]);
    expect(conflict.status).toBe(409);
    expect((await details('/arc/ok.txt')).status).toBe(404);
    expect(broken.status).toBe(400);
    expect(await messageOf(broken)).toContain('broken.zip');
  });

  it('downloads a folder as a ZIP of its subtree and an asset as its bytes', async () => {
    // Prepare
    await mkdir('/dl');
    await mkdir('/dl/empty');
    await call(sim, 'POST', '/v1/assetFolders/_uploadArchive/dl', {
      body: formOf([{ name: 'x.zip', content: await zipOf({ 'one.txt': '1', 'sub/two.txt': '2' }) }]),
    });

    // Act
    const folder = await call(sim, 'GET', '/v1/assetFolders/dl?download=true');
    const asset = await call(sim, 'GET', `/v1/assetFolders${DEMO_ASSET_PATHS.waterSpec}?download=true`);

    // Assess
    expect(folder.status).toBe(200);
    expect(folder.headers.get('content-type')).toBe('application/zip');
    expect(folder.headers.get('content-disposition')).toContain('filename="dl.zip"');
    expect(await unzip(Buffer.from(await folder.arrayBuffer()))).toEqual({
      'empty/': '',
      'sub/': '',
      'sub/two.txt': '2',
      'one.txt': '1',
    });
    expect(asset.headers.get('content-type')).toBe('text/plain');
    expect(await asset.text()).toContain('Sparkling Water');
  });

  it('cuts a streamed download short when a reset fault hits it, and serves the next one whole', async () => {
    // Prepare
    await mkdir('/reset');
    await uploadFile('/reset', [{ name: 'big.bin', content: Buffer.alloc(512 * 1024, 7) }]);
    sim.failNext(1, { kind: 'reset', pathPrefix: '/v1/assetFolders/reset' });

    // Act
    const cut = call(sim, 'GET', '/v1/assetFolders/reset?download=true').then((response) =>
      response.arrayBuffer(),
    );
    await expect(cut).rejects.toThrow();
    const whole = await call(sim, 'GET', '/v1/assetFolders/reset?download=true');

    // Assess
    const members = await unzip(Buffer.from(await whole.arrayBuffer()));
    expect(members['big.bin']?.length).toBe(512 * 1024);
    expect(
      sim.requestLog.filter((entry) => entry.path.startsWith('/v1/assetFolders/reset?')).map((e) => e.status),
    ).toEqual([0, 200]);
  });
});
