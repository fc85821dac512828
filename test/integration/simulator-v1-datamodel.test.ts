import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  DataModel,
  ExportFormat,
  ExportFormatsByKey,
} from '../../packages/bridge/src/pds/resources/types.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { authHeader, call } from './simulator-v1-http.ts';

let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ demoData: false });
});
afterAll(async () => {
  await sim.close();
});

async function keys(kind: string, query = ''): Promise<string[]> {
  const response = await call(sim, 'GET', `/v1/datamodel/retrieval/${kind}${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as string[];
}

describe('simulator data model: sign-in', () => {
  it('answers 403 with the JSON error body to a caller without or with wrong credentials, on every route', async () => {
    // Prepare
    const paths = [
      '/v1/datamodel/retrieval/categories',
      '/v1/datamodel/current',
      '/v1/datamodel/defaultItem/FOOD',
      '/v1/datamodel/exportFormats',
    ];

    // Act
    const missing = await Promise.all(paths.map((path) => call(sim, 'GET', path, { auth: false })));
    const wrong = await Promise.all(
      paths.map((path) =>
        call(sim, 'GET', path, { auth: false, headers: { authorization: authHeader(sim, 'demo', 'wrong') } }),
      ),
    );
    const otherFamily = await call(sim, 'GET', '/v1/assetFolders/', { auth: false });

    // Assess
    expect([...missing, ...wrong].map((response) => response.status)).toEqual(Array(8).fill(403));
    expect(await missing[0]?.json()).toEqual({
      status: 403,
      error: 'Forbidden',
      message: expect.stringContaining('Sign-in required'),
    });
    expect(missing[0]?.headers.get('www-authenticate')).toBeNull();
    expect(otherFamily.status).toBe(401);
  });
});

describe('simulator data model: retrieval', () => {
  it('answers the keys of each kind in model order', async () => {
    expect(await keys('categories')).toEqual(['PRODUCT', 'PACKAGED', 'FOOD', 'BEVERAGE', 'NON_FOOD']);
    expect(await keys('attributes')).toEqual([
      'primaryKey__',
      'name',
      'category',
      'netContent',
      'netContentUnit',
      'simple_date',
    ]);
    expect(await keys('enums', '?name=categoryCode')).toEqual([
      'categoryCode.FOOD',
      'categoryCode.BEVERAGE',
      'categoryCode.NON_FOOD',
    ]);
  });

  it('applies every filter: q, dataModel, extension, leaf, parent, name, code and limit', async () => {
    expect(await keys('categories', '?leaf=true')).toEqual(['FOOD', 'BEVERAGE', 'NON_FOOD']);
    expect(await keys('categories', '?leaf=false&parent=PRODUCT')).toEqual(['PACKAGED']);
    expect(await keys('categories', '?q=food')).toEqual(['FOOD', 'NON_FOOD']);
    expect(await keys('categories', '?name=FOOD&name=BEVERAGE')).toEqual(['FOOD', 'BEVERAGE']);
    expect(await keys('attributes', '?parent=PACKAGED')).toEqual(['netContent', 'netContentUnit']);
    expect(await keys('attributes', '?extension=gdsn&q=unit')).toEqual(['netContentUnit']);
    expect(await keys('attributes', '?dataModel=demo&limit=2')).toEqual(['primaryKey__', 'name']);
    expect(await keys('attributes', '?dataModel=other')).toEqual([]);
    expect(await keys('enums', '?code=GRM,KGM&code=FOOD')).toEqual([
      'categoryCode.FOOD',
      'measurementUnit.GRM',
      'measurementUnit.KGM',
    ]);
    expect(await keys('enums', '?parent=measurementUnit&q=litre')).toEqual([
      'measurementUnit.MLT',
      'measurementUnit.LTR',
    ]);
    expect(await keys('enums', '?limit=0')).toEqual([]);
  });

  it('answers 400 for an unknown kind and for malformed filters', async () => {
    const statuses = await Promise.all(
      [
        '/v1/datamodel/retrieval/classes',
        '/v1/datamodel/retrieval/categories?leaf=1',
        '/v1/datamodel/retrieval/categories?limit=-1',
        '/v1/datamodel/retrieval/categories?limit=many',
      ].map(async (path) => (await call(sim, 'GET', path)).status),
    );

    expect(statuses).toEqual([400, 400, 400, 400]);
  });
});

describe('simulator data model: current', () => {
  it('answers the whole model with an ETag, 304 for If-None-Match, Cache-Control by allowCaching', async () => {
    // Act
    const first = await call(sim, 'GET', '/v1/datamodel/current');
    const etag = first.headers.get('etag') ?? '';
    const revalidated = await call(sim, 'GET', '/v1/datamodel/current', {
      headers: { 'if-none-match': etag },
    });
    const cached = await call(sim, 'GET', '/v1/datamodel/current?allowCaching=true');
    const stale = await call(sim, 'GET', '/v1/datamodel/current', {
      headers: { 'if-none-match': '"other"' },
    });

    // Assess
    const model = (await first.json()) as DataModel;
    expect(model).toMatchObject({ name: 'demo', version: '1' });
    expect(model.categories.find((category) => category.key === 'FOOD')).toEqual({
      key: 'FOOD',
      label: 'Food',
      parent: 'PACKAGED',
      leaf: true,
      extension: 'core',
      attributes: [],
      defaults: { category: 'FOOD', netContentUnit: 'GRM' },
    });
    expect(model.attributes.find((attribute) => attribute.name === 'netContentUnit')).toMatchObject({
      type: 'enum',
      enum: 'measurementUnit',
      category: 'PACKAGED',
    });
    expect(model.layouts[0]?.sections.length).toBeGreaterThan(0);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(revalidated.status).toBe(304);
    expect(await revalidated.text()).toBe('');
    expect(cached.headers.get('cache-control')).toBe('private, max-age=60');
    expect(cached.headers.get('etag')).toBe(etag);
    expect(stale.status).toBe(200);
  });

  it('lists as enum codes exactly the values that validation accepts', async () => {
    // Prepare
    const model = (await (await call(sim, 'GET', '/v1/datamodel/current')).json()) as DataModel;
    const units = model.enums.find((definition) => definition.name === 'measurementUnit')?.codes ?? [];

    // Act
    const results = await Promise.all(
      [...units.map(({ code }) => code), 'NOT_A_UNIT'].map(async (code) => {
        const response = await call(sim, 'POST', '/api/v1/validate', {
          json: {
            newItem: { primaryKey__: 'x', name: 'x', netContentUnit: code },
            attributeNames: ['netContentUnit'],
          },
        });
        return Object.keys(((await response.json()) as { validations: object }).validations).length;
      }),
    );

    // Assess
    expect(units.length).toBe(5);
    expect(results).toEqual([0, 0, 0, 0, 0, 1]);
  });
});

describe('simulator data model: default items and export formats', () => {
  it('answers the default item of a category with its ancestors’ defaults, 404 for an unknown one', async () => {
    const food = await call(sim, 'GET', '/v1/datamodel/defaultItem/FOOD');
    const nonFood = await call(sim, 'GET', '/v1/datamodel/defaultItem/NON_FOOD');
    const root = await call(sim, 'GET', '/v1/datamodel/defaultItem/PRODUCT');
    const unknown = await call(sim, 'GET', '/v1/datamodel/defaultItem/TOYS');

    expect(await food.json()).toEqual({ netContentUnit: 'GRM', category: 'FOOD' });
    expect(await nonFood.json()).toEqual({ netContentUnit: 'EA', category: 'NON_FOOD' });
    expect(await root.json()).toEqual({});
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ status: 404, message: expect.stringContaining('TOYS') });
  });

  it('answers export formats as an array, with mappings on request, or keyed by format', async () => {
    const plain = (await (await call(sim, 'GET', '/v1/datamodel/exportFormats')).json()) as ExportFormat[];
    const mapped = (await (
      await call(sim, 'GET', '/v1/datamodel/exportFormats?includeExportMappings=true')
    ).json()) as ExportFormat[];
    const keyed = (await (
      await call(
        sim,
        'GET',
        '/v1/datamodel/exportFormats?returnKeyValueFormat=true&includeExportMappings=true',
      )
    ).json()) as ExportFormatsByKey;
    const bad = await call(sim, 'GET', '/v1/datamodel/exportFormats?returnKeyValueFormat=perhaps');

    expect(plain.map((format) => [format.key, format.source])).toEqual([
      ['CSV', 'SYSTEM'],
      ['JSON', 'SYSTEM'],
      ['GDSN_3_1', 'DATA_MODEL'],
    ]);
    expect(plain.every((format) => format.mappings === undefined)).toBe(true);
    expect(mapped[2]?.mappings?.[0]).toEqual({ attribute: 'primaryKey__', column: 'tradeItem/gtin' });
    expect(Object.keys(keyed)).toEqual(['CSV', 'JSON', 'GDSN_3_1']);
    expect(keyed.CSV).toMatchObject({ label: 'Comma-separated values', fileExtension: 'csv' });
    expect(keyed.CSV?.mappings).toHaveLength(6);
    expect(keyed.CSV).not.toHaveProperty('key');
    expect(bad.status).toBe(400);
  });
});
