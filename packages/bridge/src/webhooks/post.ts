/**
 * One signed POST to an endpoint, over Node's http/https with keep-alive, connecting to the address
 * the URL policy checked (./url-policy.ts). The answer's first bytes are kept; the rest is read and
 * dropped so the socket can be reused.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RESPONSE_SNIPPET_BYTES } from './deliveries.ts';
import { resolveEndpoint, type UrlPolicy } from './url-policy.ts';

export interface PostResult {
  /** HTTP status, or undefined when no answer came. */
  readonly status?: number;
  readonly latencyMs: number;
  /** First bytes of the answer, or the error. */
  readonly response: string;
  readonly retryAfter?: string;
}

const agents = {
  http: new http.Agent({ keepAlive: true, maxSockets: 50 }),
  https: new https.Agent({ keepAlive: true, maxSockets: 50 }),
};

export interface PostOptions {
  readonly policy: UrlPolicy;
  /** Abandon the attempt after this many ms; default 10 000. */
  readonly timeoutMs?: number;
}

/**
 * POSTs `body` with `headers`; never throws (a refused URL, a timeout or a reset is a result without
 * status).
 *
 * @example
 * ```ts
 * const result = await postWebhook(new URL(endpoint.url), body, headers, { policy: 'public' });
 * ```
 */
export async function postWebhook(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let resolved: Awaited<ReturnType<typeof resolveEndpoint>>;
  try {
    resolved = await resolveEndpoint(url, options.policy);
  } catch (error) {
    return { latencyMs: elapsed(), response: (error as Error).message };
  }
  const lookup: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        resolved,
      ]);
    } else callback(null, resolved.address, resolved.family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: url.protocol === 'https:' ? agents.https : agents.http,
        lookup,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'pds-bridge-webhooks/1',
        },
        timeout: options.timeoutMs ?? 10_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_SNIPPET_BYTES) {
            chunks.push(chunk);
            kept += chunk.length;
          }
        });
        response.on('end', () => {
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            latencyMs: elapsed(),
            response: Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8'),
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          });
        });
        response.on('error', (error) => resolve({ latencyMs: elapsed(), response: error.message }));
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)),
    );
    request.on('error', (error) => resolve({ latencyMs: elapsed(), response: error.message }));
    request.end(body);
  });
}
