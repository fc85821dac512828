/**
 * What handlers return: a `Reply` value (status, headers, body) that server.ts writes, so faults
 * such as a reset mid-body apply to every route alike. Request bodies are read by ./request-body.ts.
 */
import { STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * A complete answer; server.ts sets Content-Length from a string or Buffer body. A Readable body is
 * streamed (chunked unless the handler sets `content-length`) and destroyed when the client goes away.
 */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

/** A JSON answer: `jsonReply(200, [1, 2])`. */
export function jsonReply(status: number, value: unknown): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(value),
  };
}

/** An answer without body, such as the 202 of imports and publications. */
export function emptyReply(status: number): Reply {
  return { status };
}

/**
 * The error answer of docs/spec-gaps.md: `{status, error, message}`.
 *
 * @example
 * errorReply(404, "No selection has id 'x'"); // body {"status":404,"error":"Not Found","message":"No selection has id 'x'"}
 */
export function errorReply(status: number, message: string, headers: Record<string, string> = {}): Reply {
  const reply = jsonReply(status, { status, error: STATUS_CODES[status] ?? 'Error', message });
  return { ...reply, headers: { ...reply.headers, ...headers } };
}
