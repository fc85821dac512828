import { describe, expect, it } from 'vitest';
import type { ApiSettings } from '../../packages/bridge/src/api/index.ts';
import { type ApiDependencies, createApi } from '../../packages/bridge/src/api/index.ts';
import { PdsNotFoundError } from '../../packages/bridge/src/pds/errors.ts';
import type { CommunicationChannel, ValidationRequest } from '../../packages/bridge/src/pds/types.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { getWatchEntry, watch } from '../../packages/bridge/src/state/watch-list.ts';
import { apiEvent, bodyOf } from '../helpers/apigw.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const DAY = 86_400_000;
const SETTINGS: ApiSettings = {
  maxKeys: 1000,
  channelsCacheMs: 60_000,
  watchTtlMs: 30 * DAY,
  auth: { mode: 'iam' },
};
const T0 = new Date('2026-11-20T09:15:00.000Z');
const CHANNELS: CommunicationChannel[] = [{ id: 'gdsn-de', name: 'GDSN Germany', type: 'GDSN' }];

function setup(overrides: Partial<ApiDependencies> = {}) {
  const store = new MemoryStateStore();
  let clock = T0.getTime();
  const calls = { channels: 0, validate: [] as ValidationRequest[] };
  const pds = new FakePds({
    listCommunicationChannels: async () => {
      calls.channels += 1;
      return CHANNELS;
    },
    // Every item is known but those whose key starts with "unknown".
    listSupplierReviews: async (primaryKey) => {
      if (primaryKey.startsWith('unknown')) {
        throw new PdsNotFoundError(404, { method: 'GET', path: `/api/v1/supplierreviews/${primaryKey}` }, '');
      }
      return [];
    },
    validate: async (request) => {
      calls.validate.push(request);
      return {
        validations: {
          simple_date: [
            {
              name: 'simple_validation',
              level: 'Warning',
              path: ['simple_date'],
              message: 'Friday',
              params: { msg_id: 'friday', err_val: 'x', err_val_msg: 'x' },
            },
          ],
        },
        attributeStates: { simple_date: 'NEW' },
        calculations: {},
      };
    },
  });
  const api = createApi({
    store,
    queue: new RecordingQueue(),
    pds: async () => pds,
    settings: SETTINGS,
    version: '1.2.3',
    now: () => new Date(clock),
    ...overrides,
  });
  return { api, store, calls, advance: (ms: number) => (clock += ms) };
}

describe('GET /communication-channels', () => {
  it('answers the PDS list and reuses it until the cache time has passed', async () => {
    // Prepare
    const { api, calls, advance } = setup();

    // Act
    const first = await api.handle(apiEvent({ path: '/communication-channels', iam: true }));
    advance(59_000);
    const cached = await api.handle(apiEvent({ path: '/communication-channels', iam: true }));
    advance(2_000);
    const refreshed = await api.handle(apiEvent({ path: '/communication-channels', iam: true }));

    // Assess
    expect(first.statusCode).toBe(200);
    expect(api.schemas.communicationChannels.parse(bodyOf(first))).toEqual({
      channels: CHANNELS,
      fetchedAt: T0.toISOString(),
    });
    expect(bodyOf(cached)).toEqual(bodyOf(first));
    expect(bodyOf(refreshed).fetchedAt).toBe(new Date(T0.getTime() + 61_000).toISOString());
    expect(calls.channels).toBe(2);
  });
});

describe('POST /validations', () => {
  it('passes the item to the PDS and answers its results', async () => {
    // Prepare
    const { api, calls } = setup();
    const request = {
      newItem: { primaryKey__: '04012345678901', simple_date: '2013-07-26' },
      attributeNames: ['simple_date'],
    };

    // Act
    const result = await api.handle(
      apiEvent({ method: 'POST', path: '/validations', json: request, iam: true }),
    );

    // Assess
    expect(result.statusCode).toBe(200);
    expect(api.schemas.validationResponse.parse(bodyOf(result)).validations.simple_date?.[0]?.level).toBe(
      'Warning',
    );
    expect(calls.validate).toEqual([request]);
  });

  it('answers 422 for a request without newItem and does not call the PDS', async () => {
    // Prepare
    const { api, calls } = setup();

    // Act
    const result = await api.handle(
      apiEvent({
        method: 'POST',
        path: '/validations',
        json: { oldItem: {}, attributeNames: [''] },
        iam: true,
      }),
    );

    // Assess
    expect(result.statusCode).toBe(422);
    expect((bodyOf(result).errors as Array<{ pointer: string }>).map((error) => error.pointer)).toEqual([
      '/newItem',
      '/attributeNames/0',
    ]);
    expect(calls.validate).toEqual([]);
  });
});

describe('watch routes', () => {
  it('PUT adds a key with source operator (201), then extends it (200)', async () => {
    // Prepare
    const { api, store, advance } = setup();

    // Act
    const created = await api.handle(apiEvent({ method: 'PUT', path: '/watch/04012345678901', iam: true }));
    advance(DAY);
    const refreshed = await api.handle(apiEvent({ method: 'PUT', path: '/watch/04012345678901', iam: true }));

    // Assess
    expect(created.statusCode).toBe(201);
    expect(created.headers?.location).toBe('/watch/04012345678901');
    expect(api.schemas.watchEntry.parse(bodyOf(created))).toEqual({
      primaryKey: '04012345678901',
      addedAt: T0.toISOString(),
      expiresAt: new Date(T0.getTime() + 30 * DAY).toISOString(),
      expired: false,
      sources: ['operator'],
      seenReviews: 0,
    });
    expect(refreshed.statusCode).toBe(200);
    expect(bodyOf(refreshed).expiresAt).toBe(new Date(T0.getTime() + 31 * DAY).toISOString());
    expect((await getWatchEntry(store, '04012345678901'))?.sources).toEqual(['operator']);
  });

  it('PUT refuses a key the PDS does not know with 422 unknown-item, and watches nothing', async () => {
    // Prepare
    const { api, store } = setup();

    // Act
    const result = await api.handle(
      apiEvent({ method: 'PUT', path: '/watch/unknown%20%C3%BCber', iam: true }),
    );

    // Assess
    expect(result.statusCode).toBe(422);
    const problem = bodyOf(result);
    expect(problem.type).toBe('urn:pds-bridge:problem:unknown-item');
    expect(problem.detail).toContain('"unknown über"');
    expect(problem.detail).toContain('?force=true');
    expect(problem.primaryKey).toBe('unknown über');
    expect(await getWatchEntry(store, 'unknown über')).toBeUndefined();
  });

  it('PUT with force=true watches a key the PDS does not know; an invalid force is 400', async () => {
    // Prepare
    const { api, store } = setup();

    // Act
    const forced = await api.handle(
      apiEvent({ method: 'PUT', path: '/watch/unknown-1?force=true', iam: true }),
    );
    const invalid = await api.handle(
      apiEvent({ method: 'PUT', path: '/watch/unknown-2?force=yes', iam: true }),
    );

    // Assess
    expect(forced.statusCode).toBe(201);
    expect((await getWatchEntry(store, 'unknown-1'))?.sources).toEqual(['operator']);
    expect(invalid.statusCode).toBe(400);
    expect(bodyOf(invalid).type).toBe('urn:pds-bridge:problem:invalid-query');
  });

  it('decodes the path parameter once: a key with a slash travels as %2F', async () => {
    // Prepare
    const { api, store } = setup();

    // Act
    const result = await api.handle(apiEvent({ method: 'PUT', path: '/watch/a%2Fb%20c%25', iam: true }));

    // Assess
    expect(result.statusCode).toBe(201);
    expect(bodyOf(result).primaryKey).toBe('a/b c%');
    expect(await getWatchEntry(store, 'a/b c%')).toBeDefined();
  });

  it('takes path parameters API Gateway already decoded as they are', async () => {
    // Prepare
    const { api, store } = setup();

    // Act
    const result = await api.handle(
      apiEvent({ method: 'PUT', path: '/watch/100%', pathParameters: { primaryKey: '100%' }, iam: true }),
    );

    // Assess
    expect(result.statusCode).toBe(201);
    expect(await getWatchEntry(store, '100%')).toBeDefined();
  });

  it('DELETE removes a watched key (204) and answers 404 for one that is not watched', async () => {
    // Prepare
    const { api, store } = setup();
    await watch(store, ['k1'], { ttlMs: DAY, source: 'publication:p1', now: T0 });

    // Act
    const removed = await api.handle(apiEvent({ method: 'DELETE', path: '/watch/k1', iam: true }));
    const missing = await api.handle(apiEvent({ method: 'DELETE', path: '/watch/k1', iam: true }));

    // Assess
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBeUndefined();
    expect(missing.statusCode).toBe(404);
    expect(await getWatchEntry(store, 'k1')).toBeUndefined();
  });

  it('GET /watch/{primaryKey} shows one entry or 404', async () => {
    // Prepare
    const { api, store } = setup();
    await watch(store, ['k1'], { ttlMs: DAY, source: 'publication:p1', now: T0 });

    // Act
    const found = await api.handle(apiEvent({ path: '/watch/k1', iam: true }));
    const missing = await api.handle(apiEvent({ path: '/watch/k2', iam: true }));

    // Assess
    expect(bodyOf(found)).toMatchObject({ primaryKey: 'k1', sources: ['publication:p1'] });
    expect(missing.statusCode).toBe(404);
  });

  it('GET /watch pages through every entry, expired ones flagged', async () => {
    // Prepare
    const { api, store, advance } = setup();
    await watch(store, ['k1', 'k2', 'k3'], { ttlMs: 30 * DAY, source: 'operator', now: T0 });
    await watch(store, ['k0'], { ttlMs: DAY, source: 'operator', now: T0 });
    advance(2 * DAY);

    // Act
    const pages: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const result = await api.handle(
        apiEvent({ path: `/watch?limit=3${cursor ? `&cursor=${cursor}` : ''}`, iam: true }),
      );
      const page = api.schemas.watchList.parse(bodyOf(result));
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor);

    // Assess
    const entries = pages.flatMap((page) => page.entries as Array<{ primaryKey: string; expired: boolean }>);
    expect(pages).toHaveLength(2);
    expect(entries.map((entry) => [entry.primaryKey, entry.expired])).toEqual([
      ['k0', true],
      ['k1', false],
      ['k2', false],
      ['k3', false],
    ]);
  });

  it('GET /watch refuses a bad limit or cursor with 400', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const limit = await api.handle(apiEvent({ path: '/watch?limit=0', iam: true }));
    const cursor = await api.handle(apiEvent({ path: '/watch?cursor=%2B%2B', iam: true }));

    // Assess
    expect(bodyOf(limit)).toMatchObject({ status: 400, type: 'urn:pds-bridge:problem:invalid-query' });
    expect(bodyOf(cursor)).toMatchObject({ status: 400, type: 'urn:pds-bridge:problem:invalid-query' });
  });
});

interface OpenApiOperation {
  requestBody: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
  parameters: unknown[];
}

interface ObjectSchema {
  properties: { primaryKeys: unknown; destinations: { items: unknown } };
  additionalProperties: unknown;
}

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document generated from the route table and the validating schemas', async () => {
    // Prepare
    const { api } = setup({ settings: { ...SETTINGS, maxKeys: 250 } });

    // Act
    const result = await api.handle(apiEvent({ path: '/openapi.json', iam: true }));

    // Assess
    expect(result.statusCode).toBe(200);
    const document = bodyOf(result) as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { schemas: Record<string, Record<string, unknown>> };
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.2.3');
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(api.routes.map((route) => `${route.method} ${route.path}`).sort());
    const post = document.paths['/publications']?.post as unknown as OpenApiOperation;
    expect(post.requestBody.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/PublicationRequest',
    });
    expect(Object.keys(post.responses).sort()).toEqual([
      '202',
      '400',
      '401',
      '403',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '502',
      '503',
    ]);
    expect(post.responses['422']?.content['application/problem+json']?.schema).toEqual({
      allOf: [
        { $ref: '#/components/schemas/Problem' },
        {
          properties: {
            type: {
              enum: [
                'urn:pds-bridge:problem:validation-failed',
                'urn:pds-bridge:problem:idempotency-key-reused',
              ],
            },
            status: { const: 422 },
          },
        },
      ],
    });
    expect(post.responses['403']?.content).toEqual({
      'application/json': {
        schema: { $ref: '#/components/schemas/GatewayMessage' },
        example: { message: 'Forbidden' },
      },
    });
    expect(Object.keys(post.responses['500']?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/problem+json',
    ]);
    expect(post.parameters[0]).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: false });
    const request = document.components.schemas.PublicationRequest as unknown as ObjectSchema;
    expect(request.properties.primaryKeys).toMatchObject({ minItems: 1, maxItems: 250, uniqueItems: true });
    expect(request.properties.destinations).toMatchObject({
      items: { $ref: '#/components/schemas/Destination' },
      uniqueItems: true,
    });
    expect(request.additionalProperties).toBe(false);
    expect(document.components.schemas.Destination?.properties).toMatchObject({
      destinationType: { enum: ['IN_PLATFORM', 'COMMUNICATION_CHANNEL'] },
    });
    expect(document.components.schemas.Destination).not.toHaveProperty('$schema');
    expect(document.paths['/health']?.get?.security).toEqual([]);
    expect(document.paths['/health']?.get?.responses).not.toHaveProperty('401');
    expect(document.paths['/health']?.get?.responses).not.toHaveProperty('403');
    const confirmationQuery = document.paths['/confirmations']?.get?.parameters as Array<{
      name: string;
      description?: string;
    }>;
    const described = (name: string) => confirmationQuery.find((p) => p.name === name)?.description ?? '';
    expect(described('gtin')).toContain('GTIN as the recipients’ GDSN messages carry it');
    expect(described('gtin')).not.toBe(described('primaryKey'));
    expect(document.paths['/watch/{primaryKey}']?.put?.parameters).toEqual([
      expect.objectContaining({ name: 'primaryKey', in: 'path', required: true }),
      expect.objectContaining({ name: 'force', in: 'query' }),
    ]);
  });
});
