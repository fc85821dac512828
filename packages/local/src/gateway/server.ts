/**
 * A small local HTTP server that hands every request to a Lambda handler as an API Gateway HTTP API
 * (payload 2.0) event and writes the handler's result back, as API Gateway would. The local stack
 * and benchmarks put the real handlers behind it; it knows nothing about any particular handler.
 *
 * Like API Gateway it refuses bodies above the payload limit (413), answers 500
 * `{"message":"Internal Server Error"}` when the handler throws or returns something unusable, and
 * gives every invocation a fresh Lambda context with a deadline.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BridgeError } from '@pds-bridge/bridge/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { localLambdaContext } from './context.ts';
import { type EventOptions, toApiGatewayV2Event } from './event.ts';
import { type HttpAnswer, toHttpAnswer } from './result.ts';

/** Any handler that takes a payload 2.0 event (results are read by {@link toHttpAnswer}). */
export type ApiGatewayV2Handler = (event: APIGatewayProxyEventV2, context: Context) => unknown;

export interface HttpAdapterOptions {
  handler: ApiGatewayV2Handler;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Largest request body; default 10 MiB, API Gateway's payload limit. */
  maxBodyBytes?: number;
  /** Passed to the Lambda context. */
  functionName?: string;
  /** The Lambda context's deadline; default 30 000 ms (API Gateway's integration limit). */
  timeoutMs?: number;
  /** Fixed event parts (stage, api id). */
  eventOptions?: Omit<EventOptions, 'now' | 'requestId'>;
  /**
   * Changes the event before the handler sees it, e.g. to add what an authorizer would add.
   * Returning a value replaces the event.
   */
  decorateEvent?: (
    event: APIGatewayProxyEventV2,
    request: IncomingMessage,
  ) => APIGatewayProxyEventV2 | undefined | Promise<APIGatewayProxyEventV2 | undefined>;
  /** Told about handler failures (the caller only sees a 500). */
  onError?: (error: unknown, event: APIGatewayProxyEventV2) => void;
}

export interface RunningHttpAdapter {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** API Gateway's request payload limit. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

const INTERNAL_ERROR: HttpAnswer = {
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"message":"Internal Server Error"}'),
};

class BodyTooLargeError extends BridgeError {
  constructor(limit: number) {
    super('BODY_TOO_LARGE', `The request body is longer than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function write(response: ServerResponse, answer: HttpAnswer): void {
  response.statusCode = answer.statusCode;
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  response.setHeader('content-length', answer.body.length);
  response.end(answer.body);
}

async function serve(
  options: HttpAdapterOptions,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    response.setHeader('connection', 'close');
    write(response, {
      statusCode: 413,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"message":"Request Entity Too Large"}'),
    });
    return;
  }
  let event = toApiGatewayV2Event(
    {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      rawHeaders: request.rawHeaders,
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      protocol: `HTTP/${request.httpVersion}`,
    },
    options.eventOptions,
  );
  let answer: HttpAnswer;
  try {
    event = (await options.decorateEvent?.(event, request)) ?? event;
    const context = localLambdaContext({
      ...(options.functionName ? { functionName: options.functionName } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      awsRequestId: event.requestContext.requestId,
    });
    answer = toHttpAnswer(await options.handler(event, context));
  } catch (error) {
    options.onError?.(error, event);
    answer = INTERNAL_ERROR;
  }
  write(response, answer);
}

/**
 * Starts the adapter and resolves once it listens.
 *
 * @example
 * ```ts
 * const local = await startHttpAdapter({ handler: async () => ({ statusCode: 204 }) });
 * await fetch(`${local.url}/anything`); // 204
 * await local.close();
 * ```
 */
export async function startHttpAdapter(options: HttpAdapterOptions): Promise<RunningHttpAdapter> {
  const server = createServer((request, response) => {
    serve(options, request, response).catch(() => {
      // The client went away while we read or answered; nothing is left to tell it.
      response.destroy();
    });
  });
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    close() {
      closed ??= (async () => {
        const stopped = once(server, 'close');
        server.close();
        server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
