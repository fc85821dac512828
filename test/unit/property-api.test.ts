/**
 * Property tier (issue 21): API Gateway HTTP API (payload 2.0) events, as any caller can shape
 * them, through the API handler. Budgets and replay: test/helpers/property.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Router } from '../../packages/bridge/src/api/router.ts';
import { watchKey } from '../../packages/bridge/src/state/keys.ts';
import { apiEvent, publicationBody } from '../helpers/apigw.ts';
import { holds, hostileString, withinTimeBudgetAsync } from '../helpers/property.ts';
import { publicationsApi, TEST_API_SETTINGS } from '../helpers/publications-api.ts';

const text = hostileString({ maxLength: 24 });
/** A path segment as a client may send it: plain, percent-encoded once, or raw and broken. */
const segment = fc.oneof(
  fc.constantFrom(
    '04012345678901',
    'b2f1a6a4-64a8-4d0e-9f0a-1f7f2d0c9e11',
    '',
    '%',
    '%ZZ',
    '%ED%A0%80',
    '%2F',
    '..',
  ),
  text.map((value) => encodeURIComponent(value.toWellFormed())),
  text.map((value) => value.replaceAll('/', '').replaceAll('?', '')),
);
const suffix = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  { weight: 2, arbitrary: fc.constant('/') },
  { weight: 1, arbitrary: fc.constantFrom('//', '/x') },
);
const path = fc.oneof(
  fc.constantFrom(
    '/publications',
    '/communication-channels',
    '/validations',
    '/watch',
    '/openapi.json',
    '/health',
    '/',
    '',
  ),
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom('/publications/', '/watch/'), segment, suffix)
      .map((parts) => parts.join('')),
  },
  fc.array(segment, { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?limit=1',
    '?limit=0',
    '?limit=-1',
    '?limit=x',
    '?cursor=%2B%2B',
    '?cursor=',
    '?limit=1000000',
  ),
  text.map((value) => `?cursor=${encodeURIComponent(value.toWellFormed())}`),
);
const jsonBody = fc.oneof(
  fc.constant(publicationBody()),
  fc.array(text, { minLength: 1, maxLength: 3 }).map((keys) => publicationBody(keys)),
  fc
    .tuple(
      fc.array(text, { maxLength: 3 }),
      fc.array(fc.record({ destinationType: text, destinationId: text }), { maxLength: 2 }),
    )
    .map(([keys, destinations]) => ({ primaryKeys: keys, destinations })),
  fc.record({ primaryKeys: fc.jsonValue(), destinations: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
);
const event = fc
  .record({
    method: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') },
      fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'get'),
    ),
    path,
    query,
    json: fc.option(jsonBody, { nil: undefined }),
    raw: fc.option(text, { nil: undefined }),
    iam: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, fc.constant(false)),
    idempotencyKey: fc.option(fc.oneof(fc.uuid(), text), { nil: undefined }),
    contentType: fc.option(
      fc.oneof(fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8'), text),
      { nil: undefined },
    ),
    // API Gateway decodes the parameter itself and passes it beside the raw path.
    pathParameter: fc.option(text, { nil: undefined, freq: 3 }),
    base64: fc.boolean(),
  })
  .map((input) => {
    const headers: Record<string, string> = {};
    if (input.idempotencyKey !== undefined) headers['idempotency-key'] = input.idempotencyKey;
    if (input.contentType !== undefined) headers['content-type'] = input.contentType;
    const built = apiEvent({
      method: input.method,
      path: `${input.path}${input.query}`,
      iam: input.iam,
      headers,
      ...(input.json !== undefined
        ? { json: input.json }
        : input.raw !== undefined
          ? { body: input.raw }
          : {}),
      ...(input.pathParameter === undefined
        ? {}
        : { pathParameters: { publicationId: input.pathParameter, primaryKey: input.pathParameter } }),
    });
    if (input.base64 && built.body !== undefined) {
      built.body = Buffer.from(built.body.toWellFormed()).toString('base64');
      built.isBase64Encoded = true;
    }
    return built;
  });

/** What the API accepted, the publish worker can record: every primary key makes a watch-list key. */
function expectWorkerCanCarry(request: { body?: string; isBase64Encoded: boolean }): void {
  const text = Buffer.from(request.body ?? '', request.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
  const { primaryKeys } = JSON.parse(request.isBase64Encoded ? text : (request.body ?? '')) as {
    primaryKeys: string[];
  };
  for (const key of primaryKeys) expect(() => watchKey(key)).not.toThrow();
}

describe('API Gateway events, property-tested', () => {
  it('every answer is problem+json naming its own status, or the documented body of its route, and none is a 500, within the time budget', async () => {
    const { api } = publicationsApi();
    const router = new Router(api.routes);
    await holds(
      fc.asyncProperty(event, async (request) => {
        // act
        const result = await withinTimeBudgetAsync(() => api.handle(request));

        // assess: the fakes never fail, so a 500 is a request the API failed to classify
        const status = result.statusCode ?? 0;
        expect(status).toBeGreaterThanOrEqual(200);
        expect(status).toBeLessThan(500);
        const body = result.body === undefined || result.body === '' ? undefined : JSON.parse(result.body);
        if (status >= 400) {
          expect(result.headers?.['content-type']).toBe('application/problem+json');
          expect(api.schemas.problem.safeParse(body).success).toBe(true);
          expect(body.status).toBe(status);
          return;
        }
        const match = router.match(
          request.requestContext.http.method,
          request.rawPath,
          request.pathParameters,
        );
        if (match.kind !== 'found') throw new Error(`answered ${status} to a request no route matches`);
        if (match.route.operationId === 'createPublication') expectWorkerCanCarry(request);
        const schema = match.route.responses[status]?.schema;
        if (status !== 204) expect(match.route.responses[status]).toBeDefined();
        if (schema) expect(schema.safeParse(body).error).toBeUndefined();
      }),
      { runs: 700 },
    );
  });

  it('every publication request the API accepts is one the publish worker can record', async () => {
    const { api } = publicationsApi();
    await holds(
      fc.asyncProperty(jsonBody, fc.option(fc.uuid(), { nil: undefined }), async (body, idempotencyKey) => {
        // act
        const request = apiEvent({
          method: 'POST',
          path: '/publications',
          json: body,
          iam: true,
          ...(idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }),
        });
        const result = await api.handle(request);

        // assess
        expect([202, 422, 400, 409]).toContain(result.statusCode);
        if (result.statusCode === 202) expectWorkerCanCarry(request);
      }),
      { runs: 500 },
    );
  });

  it('with a bearer token (the local stack), any Authorization header is let in only when it is the token, and refused with problem+json otherwise', async () => {
    const token = 'local-token-0123456789';
    const { api } = publicationsApi({ settings: { ...TEST_API_SETTINGS, auth: { mode: 'bearer', token } } });
    const authorization = fc.oneof(
      fc.constant(`Bearer ${token}`),
      text.map((value) => `Bearer ${value}`),
      fc.constantFrom('Bearer', `bearer ${token}`, `Bearer  ${token}`, `Basic ${token}`, ''),
      text,
    );
    await holds(
      fc.asyncProperty(authorization, async (header) => {
        // act
        const result = await withinTimeBudgetAsync(() =>
          api.handle(apiEvent({ path: '/watch', headers: { authorization: header } })),
        );

        // assess
        if (result.statusCode === 200) {
          expect(header).toMatch(new RegExp(`^bearer +${token}\\s*$`, 'i'));
          return;
        }
        expect(result.statusCode).toBe(401);
        expect(result.headers?.['content-type']).toBe('application/problem+json');
        expect(api.schemas.problem.safeParse(JSON.parse(result.body ?? '')).success).toBe(true);
      }),
      { runs: 300 },
    );
  });
});
