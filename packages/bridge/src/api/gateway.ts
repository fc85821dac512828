/**
 * The API Gateway side of the API: reading a payload 2.0 event (headers, the JSON body: 415 for
 * another media type, 400 with the parser's position for invalid JSON; validation against a zod
 * schema: 422 listing every field error with a JSON Pointer) and writing the result (JSON or
 * problem+json).
 */

import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { parseJson } from '../core/index.ts';
import type * as z from '../core/zod.ts';
import { ApiProblem, type FieldError, jsonPointer, PROBLEM_CONTENT_TYPE } from './problem.ts';
import type { ApiResponse } from './route.ts';

/** The value of a header, whatever case the event uses for its name. */
export function headerOf(event: APIGatewayProxyEventV2, name: string): string | undefined {
  const headers = event.headers ?? {};
  const lower = name.toLowerCase();
  if (headers[lower] !== undefined) return headers[lower];
  const found = Object.keys(headers).find((key) => key.toLowerCase() === lower);
  return found === undefined ? undefined : headers[found];
}

const JSON_MEDIA = /^application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * The parsed JSON body; throws 415 for a body that is not declared as JSON and 400 for an empty or
 * malformed one (naming the position when the parser does).
 *
 * @example
 * ```ts
 * const body = readJsonBody(event); // unknown: validate it with a schema next
 * ```
 */
export function readJsonBody(event: APIGatewayProxyEventV2): unknown {
  const contentType = headerOf(event, 'content-type');
  if (contentType === undefined || !JSON_MEDIA.test(contentType.trim())) {
    throw new ApiProblem(
      'unsupported-media-type',
      `Send the body as JSON with Content-Type: application/json (got ${contentType === undefined ? 'no Content-Type' : JSON.stringify(contentType)})`,
      { headers: { 'accept-post': 'application/json' } },
    );
  }
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.trim() === '') {
    throw new ApiProblem('invalid-json', 'The request body is empty; send a JSON object');
  }
  try {
    return parseJson(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
    throw new ApiProblem('invalid-json', `The request body is not valid JSON: ${message}`, {
      extensions: {
        ...(position ? { position: Number(position[1]) } : {}),
        ...(lineColumn ? { line: Number(lineColumn[1]), column: Number(lineColumn[2]) } : {}),
      },
    });
  }
}

/** Every field error of a failed zod parse, as JSON Pointers into the body. */
export function fieldErrorsOf(error: z.core.$ZodError): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        errors.push({
          pointer: jsonPointer([...issue.path, key]),
          detail: 'is not a field of this request; remove it (or check its spelling)',
        });
      }
      continue;
    }
    errors.push({ pointer: jsonPointer(issue.path), detail: issue.message });
  }
  return errors;
}

/**
 * The body checked against `schema`; throws a 422 problem listing every field error otherwise.
 *
 * @example
 * ```ts
 * const request = validateBody(schemas.publicationRequest, readJsonBody(event));
 * ```
 */
export function validateBody<S extends z.ZodMiniType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors = fieldErrorsOf(result.error);
  const first = errors[0];
  const summary = first
    ? `${first.pointer || '(body)'} ${first.detail}`
    : 'the body does not match the schema';
  throw new ApiProblem(
    'validation-failed',
    errors.length === 1
      ? `The request has an invalid field: ${summary}`
      : `The request has ${errors.length} invalid fields; the first: ${summary}`,
    { errors },
  );
}

/** A JSON answer. */
export function jsonResult(response: ApiResponse): APIGatewayProxyStructuredResultV2 {
  const headers: Record<string, string> = { 'cache-control': 'no-store', ...response.headers };
  if (response.body === undefined) return { statusCode: response.status, headers };
  return {
    statusCode: response.status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(response.body),
  };
}

/** A problem+json answer for a problem. */
export function problemResult(
  problem: ApiProblem,
  instance: string,
  requestId?: string,
): APIGatewayProxyStructuredResultV2 {
  const document = problem.toDocument(instance);
  if (requestId) document.requestId = requestId;
  return {
    statusCode: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store', ...problem.headers },
    body: JSON.stringify(document),
  };
}
