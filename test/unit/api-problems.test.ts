import { describe, expect, it } from 'vitest';
import type { ApiSettings } from '../../packages/bridge/src/api/index.ts';
import { type ApiDependencies, createApi } from '../../packages/bridge/src/api/index.ts';
import {
  PdsBadRequestError,
  PdsRateLimitedError,
  PdsServerError,
  PdsUnauthorizedError,
} from '../../packages/bridge/src/pds/errors.ts';
import type { PdsClient } from '../../packages/bridge/src/pds/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { apiEvent, bodyOf, postPublicationEvent, publicationBody } from '../helpers/apigw.ts';
import { FakePds } from '../helpers/fake-pds.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const IAM: ApiSettings = {
  maxKeys: 5,
  channelsCacheMs: 60_000,
  watchTtlMs: 86_400_000,
  auth: { mode: 'iam' },
};
const TOKEN = 'local-token-0123456789abcdef';

function setup(
  overrides: Partial<ApiDependencies> = {},
  pds: PdsClient = new FakePds({ listSupplierReviews: async () => [] }),
) {
  const store = new MemoryStateStore();
  const queue = new RecordingQueue();
  const api = createApi({
    store,
    queue,
    pds: async () => pds,
    settings: IAM,
    version: '9.9.9',
    ...overrides,
  });
  return { api, store, queue };
}

function expectProblem(
  result: { statusCode?: number; headers?: Record<string, unknown>; body?: string },
  status: number,
  slug: string,
) {
  expect(result.statusCode).toBe(status);
  expect(result.headers?.['content-type']).toBe('application/problem+json');
  const problem = bodyOf(result);
  expect(problem).toMatchObject({ type: `urn:pds-bridge:problem:${slug}`, status });
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  expect(typeof problem.instance).toBe('string');
  return problem;
}

describe('API problem answers', () => {
  it('answers 400 naming the position when the body is not valid JSON', async () => {
    // Prepare
    const { api, store, queue } = setup();
    const event = apiEvent({
      method: 'POST',
      path: '/publications',
      body: '{"primaryKeys": ["1"],}',
      headers: { 'content-type': 'application/json' },
      iam: true,
    });

    // Act
    const result = await api.handle(event);

    // Assess
    const problem = expectProblem(result, 400, 'invalid-json');
    expect(problem.position).toBe(22);
    expect(problem.detail).toMatch(/not valid JSON/);
    expect(problem.instance).toBe('/publications');
    expect(store.size).toBe(0);
    expect(queue.attempts).toBe(0);
  });

  it('answers 400 for an empty body and reads base64-encoded bodies', async () => {
    // Prepare
    const { api } = setup();
    const empty = apiEvent({
      method: 'POST',
      path: '/publications',
      body: '  ',
      headers: { 'content-type': 'application/json' },
      iam: true,
    });
    const encoded = apiEvent({
      method: 'POST',
      path: '/publications',
      body: Buffer.from(JSON.stringify(publicationBody())).toString('base64'),
      isBase64Encoded: true,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      iam: true,
    });

    // Act
    const emptyResult = await api.handle(empty);
    const encodedResult = await api.handle(encoded);

    // Assess
    expect(expectProblem(emptyResult, 400, 'invalid-json').detail).toMatch(/empty/);
    expect(encodedResult.statusCode).toBe(202);
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    // Prepare
    const { api, store } = setup();
    const event = apiEvent({
      method: 'POST',
      path: '/publications',
      body: JSON.stringify(publicationBody()),
      headers: { 'content-type': 'text/plain' },
      iam: true,
    });

    // Act
    const result = await api.handle(event);

    // Assess
    expect(expectProblem(result, 415, 'unsupported-media-type').detail).toContain('text/plain');
    expect(store.size).toBe(0);
  });

  it('answers 422 listing every field error with a JSON Pointer', async () => {
    // Prepare
    const { api, store, queue } = setup();
    const body = {
      primaryKeys: ['a', '', 'b', 'a', 'c', 'd'],
      destinations: [{ destinationType: 'EMAIL', destinationId: 'x' }, { destinationType: 'IN_PLATFORM' }],
      selectionId: 'not-a-field',
    };

    // Act
    const result = await api.handle(postPublicationEvent(body));

    // Assess
    const problem = expectProblem(result, 422, 'validation-failed');
    const errors = problem.errors as Array<{ pointer: string; detail: string }>;
    const pointers = errors.map((error) => error.pointer).sort();
    expect(pointers).toEqual([
      '/destinations/0/destinationType',
      '/destinations/1/destinationId',
      '/primaryKeys',
      '/primaryKeys/1',
      '/primaryKeys/3',
      '/selectionId',
    ]);
    expect(errors.find((e) => e.pointer === '/primaryKeys')?.detail).toMatch(
      /6 primary keys, more than the 5 allowed/,
    );
    expect(errors.find((e) => e.pointer === '/primaryKeys/3')?.detail).toMatch(/duplicates \/primaryKeys\/0/);
    expect(errors.find((e) => e.pointer === '/destinations/0/destinationType')?.detail).toMatch(
      /IN_PLATFORM, COMMUNICATION_CHANNEL/,
    );
    expect(store.size).toBe(0);
    expect(queue.attempts).toBe(0);
  });

  it('answers 422 for empty keys and empty destinations', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const result = await api.handle(postPublicationEvent({ primaryKeys: [], destinations: [] }));

    // Assess
    const errors = expectProblem(result, 422, 'validation-failed').errors as Array<{
      pointer: string;
      detail: string;
    }>;
    expect(errors).toEqual([
      { pointer: '/primaryKeys', detail: 'must list at least one primary key' },
      { pointer: '/destinations', detail: 'must name at least one destination' },
    ]);
  });

  it('answers 422 with an empty pointer when the body is not an object', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const result = await api.handle(postPublicationEvent(['04012345678901']));

    // Assess
    const errors = expectProblem(result, 422, 'validation-failed').errors as Array<{ pointer: string }>;
    expect(errors.map((error) => error.pointer)).toEqual(['']);
  });

  it('answers 400 for an Idempotency-Key that is not visible ASCII', async () => {
    // Prepare
    const { api, store } = setup();

    // Act
    const result = await api.handle(postPublicationEvent(publicationBody(), { idempotencyKey: 'schlüssel' }));

    // Assess
    expectProblem(result, 400, 'invalid-header');
    expect(store.size).toBe(0);
  });

  it('answers 404 for an unknown route and an unknown publication', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const route = await api.handle(apiEvent({ path: '/nothing-here', iam: true }));
    const publication = await api.handle(
      apiEvent({ path: '/publications/0b8e4c17-6a2d-4f9b-8c31-5e7a9d2f4b60', iam: true }),
    );

    // Assess
    expectProblem(route, 404, 'not-found');
    expect(expectProblem(publication, 404, 'not-found').detail).toContain(
      '0b8e4c17-6a2d-4f9b-8c31-5e7a9d2f4b60',
    );
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const result = await api.handle(apiEvent({ method: 'PATCH', path: '/watch/04012345678901', iam: true }));

    // Assess
    expectProblem(result, 405, 'method-not-allowed');
    expect(result.headers?.allow).toBe('DELETE, GET, PUT');
  });

  it('answers 400 for a path parameter that is not valid percent-encoding', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const result = await api.handle(apiEvent({ method: 'PUT', path: '/watch/100%zz', iam: true }));

    // Assess
    expectProblem(result, 400, 'invalid-path');
  });

  it('answers 503 with Retry-After when the PDS is unavailable', async () => {
    // Prepare
    const line = { method: 'GET', path: '/api/v1/communicationchannels' };
    const { api } = setup(
      {},
      new FakePds({
        listCommunicationChannels: async () => {
          throw new PdsServerError(503, line, '{"status":503}');
        },
        validate: async () => {
          throw new PdsRateLimitedError(429, { method: 'POST', path: '/api/v1/validate' }, '', 12_300);
        },
      }),
    );

    // Act
    const channels = await api.handle(apiEvent({ path: '/communication-channels', iam: true }));
    const validation = await api.handle(
      apiEvent({ method: 'POST', path: '/validations', json: { newItem: { primaryKey__: '1' } }, iam: true }),
    );

    // Assess
    expectProblem(channels, 503, 'pds-unavailable');
    expect(channels.headers?.['retry-after']).toBe('5');
    expectProblem(validation, 503, 'pds-unavailable');
    expect(validation.headers?.['retry-after']).toBe('13');
  });

  it('answers 502 for a PDS failure that retrying does not fix', async () => {
    // Prepare
    const { api } = setup(
      {},
      new FakePds({
        validate: async () => {
          throw new PdsBadRequestError(
            400,
            { method: 'POST', path: '/api/v1/validate' },
            '{"message":"bad item"}',
          );
        },
        listCommunicationChannels: async () => {
          throw new PdsUnauthorizedError(401, { method: 'GET', path: '/api/v1/communicationchannels' }, '');
        },
      }),
    );

    // Act
    const validation = await api.handle(
      apiEvent({ method: 'POST', path: '/validations', json: { newItem: { primaryKey__: '1' } }, iam: true }),
    );
    const channels = await api.handle(apiEvent({ path: '/communication-channels', iam: true }));

    // Assess
    expect(expectProblem(validation, 502, 'pds-error').detail).toContain('bad item');
    expect(expectProblem(channels, 502, 'pds-error').pdsCode).toBe('UNAUTHORIZED');
  });

  it('answers 503 when the state record keeps changing under concurrent writers', async () => {
    // Prepare
    const store: MemoryStateStore = new MemoryStateStore({
      // A writer that always gets there first: every conditional write of the watch entry loses.
      beforeOperation: async ({ kind, key }) => {
        if (kind === 'create') await store.create(key, { primaryKey: 'k', racing: true });
        if (kind === 'update') await store.delete(key);
      },
    });
    const { api } = setup({ store });

    // Act
    const result = await api.handle(apiEvent({ method: 'PUT', path: '/watch/k', iam: true }));

    // Assess
    expectProblem(result, 503, 'service-unavailable');
    expect(result.headers?.['retry-after']).toBe('1');
  });

  it('answers 500 without internals when something unexpected fails', async () => {
    // Prepare
    const store = new MemoryStateStore({
      beforeOperation: () => {
        throw new Error('secret internal detail');
      },
    });
    const { api } = setup({ store });

    // Act
    const result = await api.handle(apiEvent({ path: '/publications/p1', iam: true, requestId: 'req-1' }));

    // Assess
    const problem = expectProblem(result, 500, 'internal-error');
    expect(problem.detail).toContain('req-1');
    expect(result.body).not.toContain('secret internal detail');
  });
});

describe('API authentication', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['POST', '/publications', publicationBody()],
    ['GET', '/publications/p1'],
    ['GET', '/communication-channels'],
    ['POST', '/validations', { newItem: {} }],
    ['GET', '/watch'],
    ['PUT', '/watch/04012345678901'],
    ['DELETE', '/watch/04012345678901'],
    ['GET', '/openapi.json'],
    ['GET', '/no-such-route'],
  ];

  it.each(routes)('refuses %s %s without an IAM identity and records nothing', async (method, path, json) => {
    // Prepare
    const { api, store, queue } = setup();

    // Act
    const result = await api.handle(apiEvent({ method, path, ...(json === undefined ? {} : { json }) }));

    // Assess
    expect(expectProblem(result, 401, 'unauthorized').detail).toMatch(/SigV4/);
    expect(store.size).toBe(0);
    expect(queue.attempts).toBe(0);
  });

  it('in bearer mode refuses a missing or wrong token with 401 and records nothing', async () => {
    // Prepare
    const { api, store, queue } = setup({ settings: { ...IAM, auth: { mode: 'bearer', token: TOKEN } } });
    const missing = postPublicationEvent(publicationBody(), { iam: false });
    const wrong = postPublicationEvent(publicationBody(), { bearer: `${TOKEN}x` });
    const basic = apiEvent({ method: 'PUT', path: '/watch/1', headers: { authorization: `Basic ${TOKEN}` } });

    // Act
    const results = [await api.handle(missing), await api.handle(wrong), await api.handle(basic)];

    // Assess
    for (const result of results) expectProblem(result, 401, 'unauthorized');
    expect(results[0]?.headers?.['www-authenticate']).toBe('Bearer realm="pds-bridge"');
    expect(results[1]?.headers?.['www-authenticate']).toContain('error="invalid_token"');
    expect(store.size).toBe(0);
    expect(queue.attempts).toBe(0);
  });

  it('in bearer mode accepts the right token (an IAM identity alone is not enough)', async () => {
    // Prepare
    const { api, queue } = setup({ settings: { ...IAM, auth: { mode: 'bearer', token: TOKEN } } });

    // Act
    const accepted = await api.handle(postPublicationEvent(publicationBody(), { bearer: TOKEN }));
    const iamOnly = await api.handle(postPublicationEvent(publicationBody(), { iam: true }));

    // Assess
    expect(accepted.statusCode).toBe(202);
    expect(iamOnly.statusCode).toBe(401);
    expect(queue.sent).toHaveLength(1);
  });

  it('answers every route unsigned with a malformed path parameter as it answers an unknown path: 401', async () => {
    // prepare: %FF is not UTF-8; before authentication it would tell which paths exist (400 vs 401)
    const { api } = setup({ settings: { ...IAM, auth: { mode: 'bearer', token: TOKEN } } });
    const malformed = api.routes
      .filter((route) => route.path.includes('{'))
      .map((route) => ({ method: route.method, path: route.path.replace(/\{[^}]+\}/g, '%FF') }));
    expect(malformed.length).toBeGreaterThan(3);

    // act
    const unknown = await api.handle(apiEvent({ method: 'GET', path: '/nope/%FF' }));
    const answers = await Promise.all(
      malformed.map(({ method, path }) => api.handle(apiEvent({ method, path }))),
    );

    // assess
    const refusal = expectProblem(unknown, 401, 'unauthorized').detail;
    for (const answer of answers) {
      expect(expectProblem(answer, 401, 'unauthorized').detail).toBe(refusal);
      expect(answer.headers).toEqual(unknown.headers);
    }
  });

  it('still answers 400 invalid-path to an authenticated caller', async () => {
    // prepare
    const { api } = setup({ settings: { ...IAM, auth: { mode: 'bearer', token: TOKEN } } });

    // act
    const result = await api.handle(
      apiEvent({ method: 'GET', path: '/watch/%FF', headers: { authorization: `Bearer ${TOKEN}` } }),
    );

    // assess
    expectProblem(result, 400, 'invalid-path');
  });

  it('answers GET /health without authentication', async () => {
    // Prepare
    const { api } = setup();

    // Act
    const result = await api.handle(apiEvent({ path: '/health' }));

    // Assess
    expect(result.statusCode).toBe(200);
    expect(bodyOf(result)).toEqual({ status: 'ok', service: 'pds-bridge', version: '9.9.9' });
  });
});
