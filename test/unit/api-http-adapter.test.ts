import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { toApiGatewayV2Event } from '../../packages/local/src/gateway/event.ts';
import { type RunningHttpAdapter, startHttpAdapter } from '../../packages/local/src/gateway/index.ts';
import { toHttpAnswer } from '../../packages/local/src/gateway/result.ts';

const running: RunningHttpAdapter[] = [];

afterEach(async () => {
  for (const adapter of running.splice(0)) await adapter.close();
});

async function start(options: Parameters<typeof startHttpAdapter>[0]): Promise<RunningHttpAdapter> {
  const adapter = await startHttpAdapter(options);
  running.push(adapter);
  return adapter;
}

describe('toApiGatewayV2Event', () => {
  it('builds a payload 2.0 event: lower-case headers, joined repeats, cookies, decoded query, raw path kept', () => {
    // Prepare
    const request = {
      method: 'post',
      url: '/watch/a%2Fb?x=1&x=2&name=J%C3%BCrgen+M',
      rawHeaders: [
        'Content-Type',
        'application/json',
        'X-Tag',
        'a',
        'x-tag',
        'b',
        'Cookie',
        'k=v; s=t',
        'Host',
        'localhost:3000',
      ],
      body: Buffer.from('{"a":1}'),
    };

    // Act
    const event = toApiGatewayV2Event(request, { now: new Date('2026-11-20T09:15:00Z'), requestId: 'r1' });

    // Assess
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/watch/a%2Fb',
      rawQueryString: 'x=1&x=2&name=J%C3%BCrgen+M',
      headers: { 'content-type': 'application/json', 'x-tag': 'a,b', host: 'localhost:3000' },
      cookies: ['k=v', 's=t'],
      queryStringParameters: { x: '1,2', name: 'Jürgen M' },
      body: '{"a":1}',
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'POST', path: '/watch/a%2Fb' },
        requestId: 'r1',
        time: '20/Nov/2026:09:15:00 +0000',
        stage: '$default',
      },
    });
    expect(event.headers).not.toHaveProperty('cookie');
  });

  it('base64-encodes a body that is not text', () => {
    // Prepare
    const bytes = Buffer.from([0, 255, 1, 2]);

    // Act
    const event = toApiGatewayV2Event({
      method: 'PUT',
      url: '/x',
      rawHeaders: ['content-type', 'application/octet-stream'],
      body: bytes,
    });

    // Assess
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body as string, 'base64')).toEqual(bytes);
  });
});

describe('toHttpAnswer', () => {
  it('reads structured results, cookies and base64 bodies', () => {
    // Prepare
    const result = {
      statusCode: 201,
      headers: { Location: '/x', 'X-Count': 2 },
      cookies: ['a=1', 'b=2'],
      body: Buffer.from('hi').toString('base64'),
      isBase64Encoded: true,
    };

    // Act
    const answer = toHttpAnswer(result);

    // Assess
    expect(answer).toEqual({
      statusCode: 201,
      headers: { location: '/x', 'x-count': '2', 'set-cookie': ['a=1', 'b=2'] },
      body: Buffer.from('hi'),
    });
  });

  it('treats a value without statusCode as a 200 JSON body, as API Gateway does', () => {
    // Act
    const answer = toHttpAnswer({ ok: true });

    // Assess
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.body.toString()).toBe('{"ok":true}');
  });

  it('refuses a status that is not an HTTP status', () => {
    expect(() => toHttpAnswer({ statusCode: 42 })).toThrow(/statusCode 42 is not an HTTP status/);
  });
});

describe('startHttpAdapter', () => {
  it('hands each request to the handler as an event and writes its result', async () => {
    // Prepare
    const seen: APIGatewayProxyEventV2[] = [];
    const adapter = await start({
      handler: async (event, context) => {
        seen.push(event);
        return {
          statusCode: 202,
          headers: {
            'content-type': 'application/json',
            'x-remaining': String(context.getRemainingTimeInMillis() > 0),
          },
          body: JSON.stringify({ path: event.rawPath }),
        };
      },
    });

    // Act
    const response = await fetch(`${adapter.url}/publications/p%201?q=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"primaryKeys":["1"]}',
    });

    // Assess
    expect(response.status).toBe(202);
    expect(response.headers.get('x-remaining')).toBe('true');
    expect(await response.json()).toEqual({ path: '/publications/p%201' });
    expect(seen[0]).toMatchObject({
      rawPath: '/publications/p%201',
      queryStringParameters: { q: '1' },
      body: '{"primaryKeys":["1"]}',
      headers: { authorization: 'Bearer t' },
      requestContext: { http: { method: 'POST', sourceIp: '127.0.0.1' } },
    });
  });

  it('lets the caller add what an authorizer would add', async () => {
    // Prepare
    const adapter = await start({
      handler: async (event) => ({ statusCode: 200, body: JSON.stringify(event.requestContext) }),
      decorateEvent: (event) =>
        ({
          ...event,
          requestContext: {
            ...event.requestContext,
            authorizer: { iam: { userArn: 'arn:aws:iam::1:user/me' } },
          },
        }) as APIGatewayProxyEventV2,
    });

    // Act
    const context = (await (await fetch(`${adapter.url}/`)).json()) as { authorizer?: unknown };

    // Assess
    expect(context.authorizer).toEqual({ iam: { userArn: 'arn:aws:iam::1:user/me' } });
  });

  it('answers 500 like API Gateway when the handler throws, and tells onError', async () => {
    // Prepare
    const errors: unknown[] = [];
    const adapter = await start({
      handler: async () => {
        throw new Error('boom');
      },
      onError: (error) => errors.push(error),
    });

    // Act
    const response = await fetch(`${adapter.url}/x`);

    // Assess
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ message: 'Internal Server Error' });
    expect((errors[0] as Error).message).toBe('boom');
  });

  it('refuses a body above the limit with 413 without calling the handler', async () => {
    // Prepare
    let calls = 0;
    const adapter = await start({
      maxBodyBytes: 10,
      handler: async () => {
        calls += 1;
        return { statusCode: 204 };
      },
    });

    // Act
    const response = await fetch(`${adapter.url}/x`, { method: 'POST', body: 'x'.repeat(11) });

    // Assess
    expect(response.status).toBe(413);
    expect(calls).toBe(0);
  });
});
