/**
 * What API Gateway's IAM authorisation does, for the local stand-in: a request signed with AWS
 * Signature Version 4 (service `execute-api`) is verified with the local stack's credentials, and a
 * verified one is passed on with the local bearer token, which is what the API checks locally
 * (API_AUTH_MODE=bearer: an IAM identity alone is not enough there). So a SigV4 client (curl
 * --aws-sigv4, botocore, the AWS SDK's signer) works locally as it does deployed; the bearer token
 * keeps working beside it.
 *
 * The algorithm is AWS's published one (canonical request, string to sign, HMAC-SHA256 key chain);
 * test/integration/local-api-sigv4.test.ts signs with the AWS SDK's own signer to hold it to that.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const SERVICE = 'execute-api';
/** API Gateway refuses a signature dated more than 15 minutes away from its clock. */
const MAX_SKEW_MS = 15 * 60_000;
const ACCOUNT_ID = '000000000000';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The outcome: the caller's identity, or why the signature was refused. */
export type SigV4Verdict = { userArn: string } | { problem: string };

/** Whether the request claims a SigV4 signature at all. */
export function isSigV4Signed(event: APIGatewayProxyEventV2): boolean {
  return (event.headers?.authorization ?? '').startsWith(`${ALGORITHM} `);
}

/**
 * Verifies the SigV4 signature of a payload 2.0 event against `credentials` and `region`.
 *
 * @example
 * ```ts
 * verifySigV4(event, { accessKeyId: 'test', secretAccessKey: 'test' }, 'us-east-1', Date.now());
 * // { userArn: 'arn:aws:iam::000000000000:user/test' } or { problem: 'the signature does not match …' }
 * ```
 */
export function verifySigV4(
  event: APIGatewayProxyEventV2,
  credentials: SigV4Credentials,
  region: string,
  now: number,
): SigV4Verdict {
  const headers = event.headers ?? {};
  const parsed =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      headers.authorization ?? '',
    );
  if (!parsed)
    return {
      problem:
        'the Authorization header is not a SigV4 signature (AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…)',
    };
  const [, accessKeyId, day, scopeRegion, service, signedList, signature] = parsed as unknown as string[];
  const amzDate = headers['x-amz-date'] ?? '';
  const signedAt = Date.parse(
    amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'),
  );
  if (accessKeyId !== credentials.accessKeyId)
    return { problem: `the access key ${accessKeyId} is not the local stack's (${credentials.accessKeyId})` };
  if (scopeRegion !== region || service !== SERVICE)
    return { problem: `the signature is for ${scopeRegion}/${service}; sign for ${region}/${SERVICE}` };
  if (Number.isNaN(signedAt) || !amzDate.startsWith(day ?? ''))
    return { problem: 'X-Amz-Date is missing or does not match the credential scope' };
  if (Math.abs(now - signedAt) > MAX_SKEW_MS)
    return { problem: `the signature is dated ${amzDate}, more than 15 minutes from now` };
  const signedHeaders = (signedList ?? '').split(';');
  if (!signedHeaders.includes('host')) return { problem: 'the signature does not cover the Host header' };
  const canonical = canonicalRequest(event, signedHeaders);
  const scope = `${day}/${region}/${SERVICE}/aws4_request`;
  const toSign = [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, day ?? '');
  for (const part of [region, SERVICE, 'aws4_request']) key = hmac(key, part);
  const expected = createHmac('sha256', key).update(toSign).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature ?? '', 'hex'))) {
    return { problem: "the signature does not match the request signed with the local stack's secret key" };
  }
  return { userArn: `arn:aws:iam::${ACCOUNT_ID}:user/${accessKeyId}` };
}

function canonicalRequest(event: APIGatewayProxyEventV2, signedHeaders: string[]): string {
  const headers = event.headers ?? {};
  const body =
    event.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  return [
    event.requestContext.http.method,
    // Each segment of the path as sent, escaped once more (AWS: "encode each path segment twice").
    event.rawPath.split('/').map(uriEscape).join('/'),
    canonicalQuery(event.rawQueryString),
    ...signedHeaders.map((name) => `${name}:${(headers[name] ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaders.join(';'),
    headers['x-amz-content-sha256'] ?? sha256Hex(body),
  ].join('\n');
}

function canonicalQuery(raw: string): string {
  if (raw === '') return '';
  return (
    raw
      .split('&')
      .map((pair) => {
        const at = pair.indexOf('=');
        const name = decodeURIComponent(at < 0 ? pair : pair.slice(0, at));
        const value = at < 0 ? '' : decodeURIComponent(pair.slice(at + 1));
        return [uriEscape(name), uriEscape(value)];
      })
      // By name, then value, in code-unit order (the escaped text is ASCII).
      .sort(([a = '', x = ''], [b = '', y = '']) => (a === b ? compare(x, y) : compare(a, b)))
      .map(([name, value]) => `${name}=${value}`)
      .join('&')
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** RFC 3986 escaping, as SigV4 wants it (unreserved characters kept). */
function uriEscape(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/**
 * The adapter's `decorateEvent` for SigV4: a signed request that verifies is passed on with
 * `Authorization: Bearer <token>` instead of its signature; one that does not is logged with the
 * reason and passed on as it is, so the API refuses it (401). Unsigned requests pass unchanged.
 *
 * @example
 * ```ts
 * const decorateEvent = sigV4Authorizer({ credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, region: 'us-east-1', token, log: console.log });
 * await startHttpAdapter({ handler, decorateEvent });
 * ```
 */
export function sigV4Authorizer({
  credentials,
  region,
  token,
  log,
}: {
  credentials: SigV4Credentials;
  region: string;
  /** The API's bearer token (API_TOKEN). */
  token: string;
  log: (line: string) => void;
}): (event: APIGatewayProxyEventV2) => APIGatewayProxyEventV2 | undefined {
  return (event) => {
    if (!isSigV4Signed(event)) return undefined;
    const verdict = verifySigV4(event, credentials, region, Date.now());
    if ('problem' in verdict) {
      log(`✗ api ${event.requestContext.http.method} ${event.rawPath}: SigV4 refused: ${verdict.problem}`);
      return undefined;
    }
    return { ...event, headers: { ...event.headers, authorization: `Bearer ${token}` } };
  };
}
