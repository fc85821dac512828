/**
 * One signed POST to an endpoint, over Node's http/https with keep-alive, connecting to the address
 * the URL policy checked (./url-policy.ts). The attempt has one deadline, from the DNS lookup to the
 * answer's last byte, that aborts the request when it passes: an endpoint that answers its status at
 * once and then drips the rest cannot hold a delivery (or the batch around it) past `timeoutMs`. The
 * answer's first bytes are kept; at most {@link MAX_ANSWER_BYTES} are read, the rest is not waited for.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RESPONSE_SNIPPET_BYTES } from './deliveries.ts';
import { checkEndpointUrl, type ResolvedAddress, resolveEndpoint, type UrlPolicy } from './url-policy.ts';

export interface PostResult {
  /** HTTP status of a complete answer; undefined when none came within the deadline. */
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

/** The default deadline of one attempt, connect to last byte (WEBHOOK_TIMEOUT_MS). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

/**
 * Bytes of an answer read at most: past them the answer is not read further (its socket is closed,
 * not reused) and the attempt counts by its status. A receiver's answer body means nothing to the
 * bridge beyond the snippet the log keeps.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostOptions {
  readonly policy: UrlPolicy;
  /**
   * The attempt's one deadline in ms, from the DNS lookup to the answer's last byte; when it passes
   * the request is aborted and the attempt has no status, whatever status had begun to arrive.
   * Default {@link DEFAULT_ATTEMPT_TIMEOUT_MS}.
   */
  readonly timeoutMs?: number;
  /** Stops the attempt before its deadline (the main lane's budget, ./lane-budget.ts), with its reason. */
  readonly stop?: AbortSignal;
}

/**
 * POSTs `body` with `headers`; never throws (a refused URL, a missed deadline or a reset is a result
 * without status). The URL policy, scheme included, is checked at every attempt.
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
  const timeoutMs = options.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const deadline = new AbortController();
  const missed = `no complete answer within ${timeoutMs} ms (one deadline per attempt, connect to last byte)`;
  const timer = setTimeout(() => deadline.abort(new Error(missed)), timeoutMs);
  const stop = options.stop;
  const stopped = () => deadline.abort(stop?.reason);
  if (stop?.aborted) stopped();
  else stop?.addEventListener('abort', stopped, { once: true });
  try {
    const resolved = await beforeDeadline(
      (async () => resolveEndpoint(checkEndpointUrl(url.href, options.policy), options.policy))(),
      deadline.signal,
    );
    return await send(url, body, headers, resolved, deadline.signal, elapsed);
  } catch (error) {
    return { latencyMs: elapsed(), response: (error as Error).message };
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', stopped);
  }
}

/** `work`'s result, or the deadline's reason when it passes first (a DNS lookup cannot be aborted). */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  resolved: ResolvedAddress,
  signal: AbortSignal,
  elapsed: () => number,
): Promise<PostResult> {
  const lookup: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) {
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        resolved,
      ]);
    } else callback(null, resolved.address, resolved.family);
  };
  const secure = url.protocol === 'https:';
  return new Promise<PostResult>((resolve) => {
    const fail = (error: Error) => resolve({ latencyMs: elapsed(), response: error.message });
    // The deadline settles the attempt at once, without status, even when a status had arrived and
    // the answer was still being read (the request is aborted by the same signal).
    signal.addEventListener('abort', () => fail(signal.reason as Error), { once: true });
    const request = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        lookup,
        signal,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'pds-bridge-webhooks/1',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const answered = () => {
          const retryAfter = response.headers['retry-after'];
          resolve({
            status: response.statusCode ?? 0,
            latencyMs: elapsed(),
            response: Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8'),
            ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          });
        };
        response.on('data', (chunk: Buffer) => {
          if (read < RESPONSE_SNIPPET_BYTES) chunks.push(chunk);
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            answered();
            response.destroy();
          }
        });
        response.on('end', answered);
        response.on('error', fail);
      },
    );
    request.on('error', fail);
    request.end(body);
  });
}
