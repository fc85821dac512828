/**
 * An HTTP proxy on 127.0.0.1 in front of moto's SQS that refuses message bodies as AWS SQS does.
 *
 * Why: moto accepts any body, but SQS allows only #x9 | #xA | #xD | #x20–#xD7FF | #xE000–#xFFFD |
 * #x10000–#x10FFFF and refuses the rest (U+FFFE and U+FFFF, most control characters, lone
 * surrogates) with `InvalidMessageContents`, the sender's fault. Behind this proxy an event carrying
 * such characters is refused as it would be in AWS: the single send with a 400, a batch entry as a
 * failed entry (`SenderFault: true`) while the other entries of the batch go through.
 *
 * Only the AWS JSON protocol (`x-amz-target: AmazonSQS.*`, what the SDK v3 speaks) is inspected;
 * everything else passes unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters SQS refuses are exactly what is matched.
const REFUSED = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export interface SqsProxy {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Bodies refused so far. */
  readonly refused: number;
  close(): Promise<void>;
}

interface BatchEntry {
  Id: string;
  MessageBody: string;
}

/** Starts the proxy in front of `target` (moto's `http://127.0.0.1:PORT`). */
export async function startSqsProxy(target: string): Promise<SqsProxy> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true });
  let refused = 0;

  const forward = (
    request: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const outgoing = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, 'content-length': String(body.length) },
          agent,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.once('end', () =>
            resolve({
              status: answer.statusCode ?? 502,
              headers: answer.headers,
              body: Buffer.concat(chunks),
            }),
          );
          answer.once('error', reject);
        },
      );
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  const reply = (
    response: http.ServerResponse,
    status: number,
    headers: http.IncomingHttpHeaders,
    body: Buffer,
  ) => {
    const { 'content-length': _length, 'transfer-encoding': _encoding, ...rest } = headers;
    response.writeHead(status, { ...rest, 'content-length': String(body.length) });
    response.end(body);
  };

  const refuseSingle = (response: http.ServerResponse) => {
    refused++;
    const body = Buffer.from(
      JSON.stringify({
        __type: 'com.amazonaws.sqs#InvalidMessageContents',
        message:
          'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
      }),
    );
    reply(
      response,
      400,
      { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'InvalidMessageContents;Sender' },
      body,
    );
  };

  /** Sends the acceptable entries of a batch on, and answers the refused ones as failed entries. */
  const sendBatch = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    input: { Entries?: BatchEntry[] },
  ) => {
    const entries = input.Entries ?? [];
    const bad = entries.filter((entry) => REFUSED.test(entry.MessageBody));
    refused += bad.length;
    const failed = bad.map((entry) => ({
      Id: entry.Id,
      Code: 'InvalidMessageContents',
      SenderFault: true,
      Message: 'Invalid characters found in the message body',
    }));
    const good = entries.filter((entry) => !bad.includes(entry));
    if (good.length === 0) {
      reply(
        response,
        200,
        { 'content-type': 'application/x-amz-json-1.0' },
        Buffer.from(JSON.stringify({ Successful: [], Failed: failed })),
      );
      return;
    }
    const answer = await forward(request, Buffer.from(JSON.stringify({ ...input, Entries: good })));
    if (answer.status !== 200) {
      reply(response, answer.status, answer.headers, answer.body);
      return;
    }
    const result = JSON.parse(answer.body.toString('utf8')) as { Successful?: unknown[]; Failed?: unknown[] };
    const merged = { ...result, Failed: [...(result.Failed ?? []), ...failed] };
    reply(response, 200, answer.headers, Buffer.from(JSON.stringify(merged)));
  };

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      const body = Buffer.concat(chunks);
      const action = String(request.headers['x-amz-target'] ?? '');
      const handle = async () => {
        if (action === 'AmazonSQS.SendMessage') {
          const input = JSON.parse(body.toString('utf8')) as { MessageBody?: string };
          if (REFUSED.test(input.MessageBody ?? '')) return refuseSingle(response);
        } else if (action === 'AmazonSQS.SendMessageBatch') {
          return sendBatch(request, response, JSON.parse(body.toString('utf8')));
        }
        const answer = await forward(request, body);
        reply(response, answer.status, answer.headers, answer.body);
      };
      handle().catch((error: Error) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`sqs proxy: ${error.message}`);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
