/**
 * API Gateway HTTP API (payload 2.0) events for handler tests, shaped as API Gateway sends them:
 * lower-case header names, `rawPath`, `requestContext.http`, and — for IAM-authorised routes —
 * `requestContext.authorizer.iam` with the caller's identity.
 *
 * @example
 * ```ts
 * const event = apiEvent({ method: 'POST', path: '/publications', json: { primaryKeys: ['1'], destinations: [] }, iam: true });
 * const result = await api.handle(event);
 * ```
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The IAM identity API Gateway adds after checking a SigV4 signature. */
export const TEST_USER_ARN = 'arn:aws:iam::123456789012:user/operator';

export interface ApiEventOptions {
  method?: string;
  /** Raw path, percent-encoded as sent, e.g. `/watch/a%2Fb`. Query after `?`. */
  path: string;
  headers?: Record<string, string>;
  /** Serialised as the body with `content-type: application/json` unless headers say otherwise. */
  json?: unknown;
  /** A raw body (no content type is added). */
  body?: string;
  isBase64Encoded?: boolean;
  /** Adds `requestContext.authorizer.iam` (true: {@link TEST_USER_ARN}; a string: that user ARN). */
  iam?: boolean | string;
  /** `Authorization: Bearer <token>`. */
  bearer?: string;
  /** Path parameters as API Gateway would pass them (decoded). */
  pathParameters?: Record<string, string>;
  requestId?: string;
}

function queryOf(raw: string): Record<string, string> | undefined {
  if (raw === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    parameters[name] = parameters[name] === undefined ? value : `${parameters[name]},${value}`;
  }
  return parameters;
}

/** One payload 2.0 event. */
export function apiEvent(options: ApiEventOptions): APIGatewayProxyEventV2 {
  const method = (options.method ?? 'GET').toUpperCase();
  const [rawPath = '/', rawQueryString = ''] = options.path.split('?', 2);
  const headers: Record<string, string> = {
    host: 'abc123.execute-api.eu-central-1.amazonaws.com',
    'user-agent': 'vitest',
  };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.bearer !== undefined) headers.authorization = `Bearer ${options.bearer}`;
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const now = new Date();
  const requestContext: APIGatewayProxyEventV2['requestContext'] & { authorizer?: unknown } = {
    accountId: '123456789012',
    apiId: 'abc123',
    domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
    domainPrefix: 'abc123',
    http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '192.0.2.10', userAgent: 'vitest' },
    requestId: options.requestId ?? randomUUID(),
    routeKey: '$default',
    stage: '$default',
    time: '20/Nov/2026:09:15:00 +0000',
    timeEpoch: now.getTime(),
  };
  if (options.iam) {
    const userArn = typeof options.iam === 'string' ? options.iam : TEST_USER_ARN;
    requestContext.authorizer = {
      iam: {
        accessKey: 'AKIAEXAMPLE',
        accountId: '123456789012',
        callerId: 'AIDAEXAMPLE',
        cognitoIdentity: null,
        principalOrgId: null,
        userArn,
        userId: 'AIDAEXAMPLE',
      },
    };
  }
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers,
    requestContext,
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
  const query = queryOf(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (options.pathParameters) event.pathParameters = options.pathParameters;
  if (body !== undefined) event.body = body;
  return event;
}

/** A valid POST /publications body. */
export function publicationBody(
  primaryKeys: string[] = ['04012345678901'],
  destinations = [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: 'gdsn-de' }],
) {
  return { primaryKeys, destinations };
}

/** POST /publications with a JSON body (IAM-authorised unless `iam: false`). */
export function postPublicationEvent(
  body: unknown,
  options: { idempotencyKey?: string; iam?: boolean | string; bearer?: string } = {},
): APIGatewayProxyEventV2 {
  return apiEvent({
    method: 'POST',
    path: '/publications',
    json: body,
    iam: options.iam ?? options.bearer === undefined,
    ...(options.bearer === undefined ? {} : { bearer: options.bearer }),
    ...(options.idempotencyKey === undefined
      ? {}
      : { headers: { 'idempotency-key': options.idempotencyKey } }),
  });
}

/** The JSON body of a handler result. */
export function bodyOf(result: { body?: string | undefined }): Record<string, unknown> {
  return result.body === undefined ? {} : (JSON.parse(result.body) as Record<string, unknown>);
}
