/**
 * The local stand-in for API Gateway verifies SigV4 signatures with the local stack's credentials,
 * beside the bearer token: requests signed by the AWS SDK's own signer (and by curl --aws-sigv4) are
 * let in (as the local caller the bearer token stands for), a wrong secret is refused. The handler is
 * the API's real authentication, in the local stack's mode (bearer).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../packages/bridge/src/api/auth.ts';
import { ApiProblem } from '../../packages/bridge/src/api/problem.ts';
import {
  type RunningHttpAdapter,
  sigV4Authorizer,
  startHttpAdapter,
} from '../../packages/local/src/gateway/index.ts';

const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };
const REGION = 'us-east-1';
const refusals: string[] = [];
let api: RunningHttpAdapter;

beforeAll(async () => {
  api = await startHttpAdapter({
    decorateEvent: sigV4Authorizer({
      credentials: CREDENTIALS,
      region: REGION,
      token: 'local-token',
      log: (line) => refusals.push(line),
    }),
    handler: async (event: APIGatewayProxyEventV2) => {
      try {
        return { statusCode: 200, body: authenticate(event, { mode: 'bearer', token: 'local-token' }) };
      } catch (error) {
        if (error instanceof ApiProblem) return { statusCode: 401, body: error.message };
        throw error;
      }
    },
  });
});

afterAll(async () => {
  await api?.close();
});

async function signedFetch(
  path: string,
  options: { method?: string; body?: string; query?: Record<string, string>; secret?: string } = {},
) {
  const url = new URL(api.url);
  const signer = new SignatureV4({
    credentials: { ...CREDENTIALS, secretAccessKey: options.secret ?? CREDENTIALS.secretAccessKey },
    region: REGION,
    service: 'execute-api',
    sha256: Sha256,
  });
  const signed = await signer.sign({
    method: options.method ?? 'GET',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path,
    query: options.query ?? {},
    headers: { host: url.host, ...(options.body ? { 'content-type': 'application/json' } : {}) },
    ...(options.body ? { body: options.body } : {}),
  });
  const search = new URLSearchParams(options.query ?? {}).toString();
  const response = await fetch(`${api.url}${path}${search ? `?${search}` : ''}`, {
    method: signed.method,
    headers: signed.headers,
    ...(options.body ? { body: options.body } : {}),
  });
  return { status: response.status, text: await response.text() };
}

describe('SigV4 on the local API', () => {
  it("lets in requests the AWS SDK's signer signed with the local credentials", async () => {
    const get = await signedFetch('/confirmations', { query: { state: 'OVERDUE', limit: '5' } });
    const post = await signedFetch('/publications', {
      method: 'POST',
      body: '{"primaryKeys":["0614141000012"]}',
    });

    expect(get).toEqual({ status: 200, text: 'local' });
    expect(post).toEqual({ status: 200, text: 'local' });
  });

  it('refuses a signature made with another secret, saying what to sign with, and logs why', async () => {
    const refused = await signedFetch('/confirmations', { secret: 'not-the-secret' });

    expect(refused.status).toBe(401);
    expect(refused.text).toContain("sign with the local stack's credentials");
    expect(refusals.at(-1)).toBe(
      "✗ api GET /confirmations: SigV4 refused: the signature does not match the request signed with the local stack's secret key",
    );
  });

  it('still takes the bearer token', async () => {
    const response = await fetch(`${api.url}/confirmations`, {
      headers: { authorization: 'Bearer local-token' },
    });

    expect(await response.text()).toBe('local');
  });

  it('lets in curl --aws-sigv4', async () => {
    const { stdout } = await promisify(execFile)('curl', [
      '--silent',
      '--aws-sigv4',
      `aws:amz:${REGION}:execute-api`,
      '--user',
      `${CREDENTIALS.accessKeyId}:${CREDENTIALS.secretAccessKey}`,
      `${api.url}/confirmations?state=OVERDUE`,
    ]);

    expect(stdout).toBe('local');
  });
});
