/**
 * Reads a handler's answer the way API Gateway HTTP APIs read a payload 2.0 result and turns it into
 * status, headers and body bytes.
 *
 * - An object with `statusCode` is a structured result: its headers, body (base64 when
 *   `isBase64Encoded`) and cookies (one `Set-Cookie` each).
 * - Anything else is the body of a 200 answer: a string as is, any other value as JSON, with
 *   `Content-Type: application/json`.
 */

import { isIntegerInRange } from '@pds-bridge/bridge/core';
import { HandlerResultError } from './errors.ts';

/** What the adapter writes to the socket. */
export interface HttpAnswer {
  statusCode: number;
  /** Header values as sent; `set-cookie` may hold several. */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

interface StructuredResult {
  statusCode: unknown;
  headers?: unknown;
  body?: unknown;
  isBase64Encoded?: unknown;
  cookies?: unknown;
}

function isStructured(result: unknown): result is StructuredResult {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}

/**
 * The answer of a payload 2.0 result.
 *
 * @example
 * ```ts
 * toHttpAnswer({ statusCode: 202, headers: { location: '/publications/1' }, body: '{}' }).statusCode; // 202
 * toHttpAnswer({ ok: true }).body.toString(); // '{"ok":true}'
 * ```
 */
export function toHttpAnswer(result: unknown): HttpAnswer {
  if (!isStructured(result)) {
    const body = result === undefined ? '' : typeof result === 'string' ? result : JSON.stringify(result);
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(body, 'utf8'),
    };
  }
  const status = result.statusCode;
  if (!isIntegerInRange(status, { min: 100, max: 599 })) {
    throw new HandlerResultError(`statusCode ${JSON.stringify(status)} is not an HTTP status`);
  }
  if (result.body !== undefined && result.body !== null && typeof result.body !== 'string') {
    throw new HandlerResultError('body must be a string');
  }
  const headers: Record<string, string | string[]> = {};
  if (typeof result.headers === 'object' && result.headers !== null) {
    for (const [name, value] of Object.entries(result.headers)) {
      if (value === undefined || value === null) continue;
      headers[name.toLowerCase()] = String(value);
    }
  }
  if (Array.isArray(result.cookies) && result.cookies.length > 0) {
    headers['set-cookie'] = result.cookies.map(String);
  }
  const text = (result.body as string | undefined) ?? '';
  const body = result.isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { statusCode: status, headers, body };
}
