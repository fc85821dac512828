/**
 * What handlers return and how request bodies are read: a `Reply` value (status, headers, body)
 * that server.ts writes, so faults such as a reset mid-body apply to every route alike.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { SimulatorHttpError } from './errors.ts';

/**
 * A complete answer; server.ts sets Content-Length from a string or Buffer body. A Readable body is
 * streamed (chunked unless the handler sets `content-length`) and destroyed when the client goes away.
 */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

/** Largest JSON request body accepted; bigger ones are refused with 413. */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

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

/**
 * Reads a JSON request body (at most MAX_JSON_BODY_BYTES); 415 unless the content type is JSON,
 * 400 when it is empty or not valid JSON.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/\bjson\b/i.test(contentType)) {
    throw new SimulatorHttpError(
      415,
      `Content-Type must be application/json, got '${contentType || 'none'}'; send the body as JSON`,
    );
  }
  const text = await readBodyText(req);
  if (text.trim() === '') throw new SimulatorHttpError(400, 'The request body is empty; send a JSON object');
  return parseJsonText(text, 'The request body');
}

/**
 * Reads an optional JSON body whatever its content type (the `*\/*` bodies of asset folders and item
 * tags): `undefined` when the body is empty or blank, the parsed value otherwise; 400 when it is not JSON.
 *
 * @example
 * await readOptionalJsonBody(req); // undefined for an empty body, { name: 'x' } for '{"name":"x"}'
 */
export async function readOptionalJsonBody(req: IncomingMessage): Promise<unknown> {
  const text = await readBodyText(req);
  return text.trim() === '' ? undefined : parseJsonText(text, 'The request body');
}

/**
 * Parses JSON text; 400 naming `what` when it is not JSON.
 *
 * @example
 * parseJsonText('[1]', 'The uploaded file'); // [1]
 */
export function parseJsonText(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SimulatorHttpError(
      400,
      `${what} is not valid JSON (${(error as Error).message}); fix its syntax`,
    );
  }
}

async function readBodyText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn: false keeps the connection usable for the error answer when reading stops early.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_JSON_BODY_BYTES) {
      throw new SimulatorHttpError(
        413,
        `The JSON body is larger than ${MAX_JSON_BODY_BYTES} bytes; send less per request`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Checks a parsed body against a zod schema; 400 naming the first wrong fields otherwise.
 *
 * @example
 * parseBody(z.object({ path: z.string() }), {}); // throws 400 "Invalid request body: field 'path': ..."
 */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues
    .slice(0, 3)
    .map((issue) => `field '${fieldName(issue.path)}': ${issue.message}`);
  throw new SimulatorHttpError(400, `Invalid request body: ${problems.join('; ')}`);
}

function fieldName(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(body)';
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`,
    )
    .join('');
}
