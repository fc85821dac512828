/**
 * Queue URLs in the emulator's SQS answers, pointed at the local stack's endpoint.
 *
 * fauxqs writes queue URLs as `http://sqs.<region>.localhost:<its own port>/<account>/<name>`: a host
 * that only resolves where `*.localhost` does, and a port that only the endpoint should use. The AWS
 * SDK for JavaScript v3 sends every later call to the queue URL's host, so a consumer that looked its
 * queue up by name failed with `getaddrinfo ENOTFOUND`. The endpoint rewrites the URLs of the answers
 * that carry them to `<endpoint>/<account>/<name>`, which fauxqs accepts back (it finds a queue by the
 * name in the URL's path).
 */

import { parseJson } from '@pds-bridge/bridge/core';

/** The SQS operations (JSON protocol, `X-Amz-Target: AmazonSQS.<operation>`) whose answers carry queue URLs. */
const ANSWERS_WITH_QUEUE_URLS: ReadonlyMap<string, readonly string[]> = new Map([
  ['CreateQueue', ['QueueUrl']],
  ['GetQueueUrl', ['QueueUrl']],
  ['ListQueues', ['QueueUrls']],
  ['ListDeadLetterSourceQueues', ['queueUrls']],
]);

/**
 * The fields of the answer that hold queue URLs, when the request is an SQS operation whose answer
 * carries them; undefined for every other request (S3, other SQS operations).
 *
 * @example
 * ```ts
 * queueUrlFieldsOf({ 'x-amz-target': 'AmazonSQS.GetQueueUrl' }); // ['QueueUrl']
 * queueUrlFieldsOf({ 'x-amz-target': 'AmazonSQS.ReceiveMessage' }); // undefined
 * ```
 */
export function queueUrlFieldsOf(
  headers: Record<string, string | string[] | undefined>,
): readonly string[] | undefined {
  const target = headers['x-amz-target'];
  if (typeof target !== 'string' || !target.startsWith('AmazonSQS.')) return undefined;
  return ANSWERS_WITH_QUEUE_URLS.get(target.slice('AmazonSQS.'.length));
}

/**
 * `url` with its scheme, host and port replaced by the endpoint's; the path (`/<account>/<name>`)
 * is kept. A value that is not a URL is returned unchanged.
 *
 * @example
 * ```ts
 * onEndpoint('http://sqs.us-east-1.localhost:41234/000000000000/q', 'http://127.0.0.1:4566');
 * // 'http://127.0.0.1:4566/000000000000/q'
 * ```
 */
export function onEndpoint(url: string, endpoint: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${endpoint.replace(/\/+$/, '')}${parsed.pathname}`;
}

/**
 * The answer's JSON body with the queue URLs in `fields` on the endpoint. A body that is not a JSON
 * object (an error page, say) is returned unchanged, so the client sees what the emulator said.
 *
 * @example
 * ```ts
 * rewriteQueueUrls('{"QueueUrls":["http://sqs.us-east-1.localhost:41234/000000000000/q"]}', ['QueueUrls'], 'http://127.0.0.1:4566');
 * // '{"QueueUrls":["http://127.0.0.1:4566/000000000000/q"]}'
 * ```
 */
export function rewriteQueueUrls(body: string, fields: readonly string[], endpoint: string): string {
  let answer: unknown;
  try {
    answer = parseJson(body);
  } catch {
    return body;
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return body;
  const record = answer as Record<string, unknown>;
  let changed = false;
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string') {
      record[field] = onEndpoint(value, endpoint);
      changed = true;
    } else if (Array.isArray(value)) {
      record[field] = value.map((url) => (typeof url === 'string' ? onEndpoint(url, endpoint) : url));
      changed = true;
    }
  }
  return changed ? JSON.stringify(record) : body;
}
