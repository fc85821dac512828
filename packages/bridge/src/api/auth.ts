/**
 * Who is calling. Deployed, API Gateway checks the SigV4 signature (IAM authorisation) and puts the
 * caller's identity into `requestContext.authorizer.iam`; the handler refuses any event without it, so
 * a route added without authorisation by mistake still cannot be used anonymously. The local stack
 * has no IAM: there the caller sends `Authorization: Bearer <API_TOKEN>`, compared in constant time,
 * or signs with SigV4, which the local stand-in for API Gateway verifies with the local credentials
 * and turns into the bearer token (packages/local/src/gateway/sigv4.ts).
 *
 * The identity scopes Idempotency-Keys: two callers choosing the same key never share a record.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ApiProblem } from './problem.ts';

export const AUTH_MODES = ['iam', 'bearer'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export interface AuthSettings {
  mode: AuthMode;
  /** Required for `bearer`. */
  token?: string;
}

/** The identity of a caller authenticated by the bearer token. */
export const LOCAL_CALLER = 'local';

const BEARER_CHALLENGE = 'Bearer realm="pds-bridge"';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

function header(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  if (headers[name] !== undefined) return headers[name];
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
}

/** `arn:<partition>:sts::<account>:assumed-role/<role>/<session>`: the role, and the session name. */
const ASSUMED_ROLE = /^(arn:[^:]+:sts::\d{12}:assumed-role\/[^/]+)\/.+$/;

/**
 * The stable identity of an IAM caller: an assumed-role session ARN without its session name (which
 * changes with every new session: a retry from a new session must find its Idempotency-Key), every
 * other ARN as it is.
 *
 * @example
 * callerOf('arn:aws:sts::123456789012:assumed-role/Publisher/i-0abc'); // 'arn:aws:sts::123456789012:assumed-role/Publisher'
 * callerOf('arn:aws:iam::123456789012:user/alice'); // unchanged
 */
export function callerOf(userArn: string): string {
  return ASSUMED_ROLE.exec(userArn)?.[1] ?? userArn;
}

interface IamIdentity {
  userArn?: unknown;
}

/**
 * The caller's identity (IAM user ARN, or {@link LOCAL_CALLER}); throws a 401 {@link ApiProblem} otherwise.
 *
 * @example
 * ```ts
 * authenticate(event, { mode: 'bearer', token: process.env.API_TOKEN }); // 'local'
 * ```
 */
export function authenticate(event: APIGatewayProxyEventV2, settings: AuthSettings): string {
  if (settings.mode === 'iam') {
    const context = event.requestContext as { authorizer?: { iam?: IamIdentity } } | undefined;
    const userArn = context?.authorizer?.iam?.userArn;
    if (typeof userArn === 'string' && userArn.length > 0) return callerOf(userArn);
    throw new ApiProblem(
      'unauthorized',
      'This API needs AWS SigV4-signed requests (IAM authorisation, service execute-api); the request carried no IAM identity',
    );
  }
  const expected = settings.token;
  if (!expected) {
    throw new Error('API_AUTH_MODE=bearer needs API_TOKEN; the configuration should have refused to start');
  }
  const authorization = header(event, 'authorization');
  if (authorization?.startsWith('AWS4-HMAC-SHA256 ')) {
    throw new ApiProblem(
      'unauthorized',
      "The SigV4 signature does not verify: sign with the local stack's credentials (aws.accessKeyId and aws.secretAccessKey in .local/stack.json), its region and service execute-api; the stack's log says what differed",
    );
  }
  const match = authorization === undefined ? null : /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
  if (!match) {
    throw new ApiProblem(
      'unauthorized',
      'Send Authorization: Bearer <token> with the token the local stack printed at start-up',
      { headers: { 'www-authenticate': BEARER_CHALLENGE } },
    );
  }
  if (!safeEqual(match[1] as string, expected)) {
    throw new ApiProblem(
      'unauthorized',
      'The bearer token is not valid; use the token the local stack printed at start-up',
      {
        headers: { 'www-authenticate': `${BEARER_CHALLENGE}, error="invalid_token"` },
      },
    );
  }
  return LOCAL_CALLER;
}
