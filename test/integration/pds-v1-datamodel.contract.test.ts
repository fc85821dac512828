/**
 * Contract of `pds.dataModel` against the simulator over real HTTP: retrieval by kind with every filter
 * (list filters as repeated parameters), the current model with ETag / If-None-Match ("not modified" is a
 * result, not an error) and allowCaching, default items (404 for an unknown category), export formats,
 * and 403 for a caller who is not signed in. Each `describe` names the operation it covers.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  PdsBadRequestError,
  PdsNotFoundError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import { createFullPdsClient, type FullPdsClient } from '../../packages/bridge/src/pds/resources/index.ts';
import { type RunningSimulator, startSimulator } from '../../packages/simulator/src/index.ts';
import { simulatorClient } from '../helpers/simulator-client.ts';

let sim: RunningSimulator;
let pds: FullPdsClient;
let signedOut: FullPdsClient;

beforeAll(async () => {
  sim = await startSimulator({ reviewDelayMs: 60_000 });
  pds = simulatorClient(sim);
  signedOut = createFullPdsClient({
    baseUrl: sim.url,
    credentials: { username: sim.username, password: 'wrong' },
  });
});

afterAll(async () => {
  await pds?.close();
  await signedOut?.close();
  await sim?.close();
});

beforeEach(() => {
  sim.requestLog.length = 0;
});

/** Expects the 403 "sign-in required" of the data model, typed as PdsUnauthorizedError with code FORBIDDEN. */
async function expectForbidden(call: () => Promise<unknown>): Promise<void> {
  const error = await call().catch((e) => e);
  expect(error).toBeInstanceOf(PdsUnauthorizedError);
  expect(error).toMatchObject({ status: 403, code: 'FORBIDDEN' });
}

describe('GET /v1/datamodel/retrieval/{kind}', () => {
  it('retrieves category, attribute and enum code keys', async () => {
    // Act
    const categories = await pds.dataModel.retrieve('categories');
    const leaves = await pds.dataModel.retrieve('categories', { leaf: true });
    const gdsnAttributes = await pds.dataModel.retrieve('attributes', { extension: 'gdsn' });

    // Assess
    expect(categories).toEqual(['PRODUCT', 'PACKAGED', 'FOOD', 'BEVERAGE', 'NON_FOOD']);
    expect(leaves).toEqual(['FOOD', 'BEVERAGE', 'NON_FOOD']);
    expect(gdsnAttributes).toEqual(['netContent', 'netContentUnit']);
  });

  it('sends list filters as repeated parameters and combines every filter', async () => {
    // Act
    const codes = await pds.dataModel.retrieve('enums', {
      name: ['measurementUnit'],
      code: ['GRM', 'LTR', 'EA'],
      q: 'l',
      dataModel: 'demo',
      limit: 5,
    });
    const children = await pds.dataModel.retrieve('categories', {
      parent: ['PRODUCT', 'PACKAGED'],
      limit: 2,
    });

    // Assess
    expect(codes).toEqual(['measurementUnit.LTR']);
    expect(sim.requestLog[0]?.path).toContain('code=GRM&code=LTR&code=EA');
    expect(children).toEqual(['PACKAGED', 'FOOD']);
  });

  it('answers 400 for an unknown kind', async () => {
    // Act
    const error = await pds.dataModel.retrieve('colours').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsBadRequestError);
    expect(error.message).toContain('categories');
  });

  it('answers 403 when not signed in', async () => {
    await expectForbidden(() => signedOut.dataModel.retrieve('categories'));
  });
});

describe('GET /v1/datamodel/current', () => {
  it('reads the model with its ETag, then "not modified" for that ETag', async () => {
    // Act
    const first = await pds.dataModel.current();
    const again = await pds.dataModel.current({ ifNoneMatch: first.etag, allowCaching: true });

    // Assess
    expect(first.notModified).toBe(false);
    if (first.notModified) return;
    expect(first.value).toMatchObject({ name: 'demo', version: '1' });
    expect(first.value.attributes.map((attribute) => attribute.name)).toContain('netContentUnit');
    expect(first.value.enums.find((each) => each.name === 'measurementUnit')?.codes).toHaveLength(5);
    expect(first.cacheControl).toBe('no-cache');
    expect(again).toEqual({ notModified: true, etag: first.etag, cacheControl: 'private, max-age=60' });
    expect(sim.requestLog.map((entry) => entry.status)).toEqual([200, 304]);
  });

  it('answers with the model when If-None-Match names another ETag', async () => {
    // Act
    const answer = await pds.dataModel.current({ ifNoneMatch: '"outdated"' });

    // Assess
    expect(answer.notModified).toBe(false);
  });

  it('answers 403 when not signed in', async () => {
    await expectForbidden(() => signedOut.dataModel.current());
  });
});

describe('GET /v1/datamodel/defaultItem/{category}', () => {
  it('answers the defaults of a category over those of its ancestors', async () => {
    // Act
    const food = await pds.dataModel.defaultItem('FOOD');
    const root = await pds.dataModel.defaultItem('PRODUCT');

    // Assess
    expect(food).toEqual({ category: 'FOOD', netContentUnit: 'GRM' });
    expect(root).toEqual({});
  });

  it('answers 404 for an unknown category', async () => {
    // Act
    const error = await pds.dataModel.defaultItem('SPACESHIPS').catch((e) => e);

    // Assess
    expect(error).toBeInstanceOf(PdsNotFoundError);
  });

  it('answers 403 when not signed in', async () => {
    await expectForbidden(() => signedOut.dataModel.defaultItem('FOOD'));
  });
});

describe('GET /v1/datamodel/exportFormats', () => {
  it('lists the formats, with mappings on request, or keyed by format key', async () => {
    // Act
    const plain = await pds.dataModel.exportFormats();
    const mapped = await pds.dataModel.exportFormats({ includeExportMappings: true });
    const keyed = await pds.dataModel.exportFormats({ returnKeyValueFormat: true });

    // Assess
    expect(plain.map((format) => format.key)).toEqual(['CSV', 'JSON', 'GDSN_3_1']);
    expect(plain[0]?.mappings).toBeUndefined();
    expect(mapped.find((format) => format.key === 'GDSN_3_1')?.mappings).toContainEqual({
      attribute: 'primaryKey__',
      column: 'tradeItem/gtin',
    });
    expect(keyed.GDSN_3_1).toMatchObject({ source: 'DATA_MODEL', fileExtension: 'xml' });
  });

  it('answers 403 when not signed in', async () => {
    await expectForbidden(() => signedOut.dataModel.exportFormats());
  });
});
