/**
 * A webhook receiver on 127.0.0.1 (port 0) for tests: records every request (headers, raw body) and
 * answers what `answer` says (status, headers, delay), so tests inject faults per request.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  /** The request's path and query. */
  readonly url?: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export interface ReceiverAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly delayMs?: number;
  readonly body?: string;
}

export interface TestReceiver {
  readonly url: string;
  readonly received: ReceivedRequest[];
  answer: (request: ReceivedRequest, index: number) => ReceiverAnswer;
  close(): Promise<void>;
}

export async function startTestReceiver(
  answer: TestReceiver['answer'] = () => ({ status: 204 }),
): Promise<TestReceiver> {
  const received: ReceivedRequest[] = [];
  const receiver: TestReceiver = {
    url: '',
    received,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(entry);
      const reply = receiver.answer(entry, received.length - 1);
      setTimeout(() => {
        response.writeHead(reply.status, reply.headers ?? {}).end(reply.body ?? '');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/**
 * Answers 200 at once, then drips the body: one byte every `everyMs`, `bytes` in all, then ends
 * (issue 42's endpoint that holds an attempt without ever leaving the socket idle). Stops when the
 * connection closes.
 */
export function dripAnswer(response: ServerResponse, options: { everyMs: number; bytes: number }): void {
  response.writeHead(200, { 'content-type': 'text/plain' }).write('o');
  let sent = 1;
  const timer = setInterval(() => {
    if (++sent < options.bytes) response.write('.');
    else {
      clearInterval(timer);
      response.end('k');
    }
  }, options.everyMs);
  response.on('close', () => clearInterval(timer));
}
