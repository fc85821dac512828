/**
 * How the simulator's handlers read request bodies: JSON (required, or optional whatever its content
 * type), at most {@link MAX_JSON_BODY_BYTES}, checked against a zod schema; every fault is a
 * SimulatorHttpError with the status the PDS would answer (400, 413, 415).
 */

import type { IncomingMessage } from 'node:http';
import { parseJson } from '@pds-bridge/bridge/core';
import type { z } from 'zod';
import { SimulatorHttpError } from './errors.ts';

/** Largest JSON request body accepted; bigger ones are refused with 413. */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;

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
    return parseJson(text);
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
