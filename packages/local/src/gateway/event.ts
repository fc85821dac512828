/**
 * Turns one HTTP request into the event API Gateway HTTP APIs send to a Lambda integration
 * (payload format 2.0), so the local stack and benchmarks run handlers exactly as they run behind
 * API Gateway.
 *
 * The shape follows the AWS documentation of payload 2.0: header names in lower case with repeated
 * values joined by commas, cookies in their own array, query parameters decoded with repeated names
 * joined by commas, a text body as UTF-8 and any other body base64-encoded. The one deliberate
 * difference: `rawPath` keeps the request's percent-encoding (as Lambda function URLs do), so a path
 * parameter such as `a%2Fb` stays one segment; handlers decode path segments once.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** The parts of an HTTP request the event is made of. */
export interface HttpRequestInput {
  method: string;
  /** Request target as received: path and optional query, e.g. `/publications?x=1`. */
  url: string;
  /** Node's raw header list (`IncomingMessage.rawHeaders`): name, value, name, value, … */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp?: string;
  /** `HTTP/1.1` unless told. */
  protocol?: string;
}

/** Fixed parts of every event an adapter produces. */
export interface EventOptions {
  /** `requestContext.stage`; default `$default`. */
  stage?: string;
  /** `requestContext.apiId`; default `local`. */
  apiId?: string;
  /** `requestContext.accountId`; default `000000000000`. */
  accountId?: string;
  /** `requestContext.domainName`; default the Host header or `localhost`. */
  domainName?: string;
  /** Request time; default now. */
  now?: Date;
  /** `requestContext.requestId`; default a random UUID. */
  requestId?: string;
}

/** Media types whose body travels as text (everything else is base64-encoded, as API Gateway does). */
const TEXT_MEDIA = /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded)\b)/i;

/** True when a body of this content type is passed as UTF-8 text rather than base64. */
export function isTextContentType(contentType: string | undefined): boolean {
  return contentType !== undefined && TEXT_MEDIA.test(contentType.trim());
}

function collectHeaders(rawHeaders: readonly string[]): {
  headers: Record<string, string>;
  cookies: string[];
} {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = (rawHeaders[index] as string).toLowerCase();
    const value = rawHeaders[index + 1] as string;
    if (name === 'cookie') {
      cookies.push(
        ...value
          .split(';')
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  return { headers, cookies };
}

function decodeQueryPart(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // API Gateway passes undecodable text through rather than refusing the request.
    return text;
  }
}

function queryParameters(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === '') return undefined;
  const parameters: Record<string, string> = {};
  for (const pair of rawQueryString.split('&')) {
    if (pair === '') continue;
    const separator = pair.indexOf('=');
    const name = decodeQueryPart(separator === -1 ? pair : pair.slice(0, separator));
    const value = separator === -1 ? '' : decodeQueryPart(pair.slice(separator + 1));
    parameters[name] = parameters[name] === undefined ? value : `${parameters[name]},${value}`;
  }
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

/** `dd/MMM/yyyy:HH:mm:ss +0000`, the format of `requestContext.time`. */
function requestTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/**
 * Builds the payload 2.0 event of one request, with routeKey `$default` (the adapter has no route table).
 *
 * @example
 * ```ts
 * const event = toApiGatewayV2Event({
 *   method: 'POST', url: '/publications', rawHeaders: ['Content-Type', 'application/json'],
 *   body: Buffer.from('{"primaryKeys":["1"]}'),
 * });
 * event.requestContext.http.method; // 'POST'
 * ```
 */
export function toApiGatewayV2Event(
  request: HttpRequestInput,
  options: EventOptions = {},
): APIGatewayProxyEventV2 {
  const now = options.now ?? new Date();
  const queryStart = request.url.indexOf('?');
  const rawPath = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
  const rawQueryString = queryStart === -1 ? '' : request.url.slice(queryStart + 1);
  const { headers, cookies } = collectHeaders(request.rawHeaders);
  const method = request.method.toUpperCase();
  const text = isTextContentType(headers['content-type']);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: '$default',
    rawPath: rawPath === '' ? '/' : rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: options.accountId ?? '000000000000',
      apiId: options.apiId ?? 'local',
      domainName: options.domainName ?? headers.host ?? 'localhost',
      domainPrefix: (options.domainName ?? headers.host ?? 'localhost').split('.')[0] ?? 'localhost',
      http: {
        method,
        path: rawPath === '' ? '/' : rawPath,
        protocol: request.protocol ?? 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: options.requestId ?? randomUUID(),
      routeKey: '$default',
      stage: options.stage ?? '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies.length > 0) event.cookies = cookies;
  const query = queryParameters(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (request.body.length > 0) {
    event.body = text ? request.body.toString('utf8') : request.body.toString('base64');
    event.isBase64Encoded = !text;
  }
  return event;
}
