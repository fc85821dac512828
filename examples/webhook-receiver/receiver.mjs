#!/usr/bin/env node
/**
 * A webhook receiver for pds-bridge that verifies every delivery with the official Standard Webhooks
 * library (`standardwebhooks` on npm), not with the bridge's code: the proof that what the bridge
 * signs is Standard Webhooks 1.0 (`v1`, HMAC-SHA256).
 *
 *   WEBHOOK_SECRET=whsec_… node examples/webhook-receiver/receiver.mjs [--port 0]
 *
 * It listens on 127.0.0.1 (port 0 picks a free one), prints `listening http://127.0.0.1:PORT`, then
 * one JSON line per delivery: `{"verified":true,"id":…,"type":…}` (answered 204), or
 * `{"verified":false,"error":…}` (answered 400). The same `webhook-id` twice is answered 204 and
 * printed with `"duplicate":true`: deduplicate by it.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * Starts the receiver; resolves with its URL, the verified events and a close function.
 *
 * @param {{ secret: string | (() => string), port?: number, print?: (line: string) => void }} options
 *   `secret` may be a function when the endpoint is registered after the receiver listens (its URL
 *   is known only then), as `npm run demo` does.
 */
export async function startReceiver({ secret, port = 0, print = () => undefined }) {
  const secretOf = typeof secret === 'function' ? secret : () => secret;
  const seen = new Set();
  const rejected = [];
  const events = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = new Webhook(secretOf()).verify(body, request.headers);
        const id = request.headers['webhook-id'];
        const duplicate = seen.has(id);
        seen.add(id);
        if (!duplicate) events.push(event);
        print(JSON.stringify({ verified: true, id, type: event.type, duplicate }));
        response.writeHead(204).end();
      } catch (error) {
        rejected.push(error.message);
        print(JSON.stringify({ verified: false, error: error.message }));
        response.writeHead(400, { 'content-type': 'text/plain' }).end('signature not verified');
      }
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    events,
    rejected,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error(
      'WEBHOOK_SECRET is required: the whsec_… secret shown when the endpoint was registered (pds bridge webhooks create)',
    );
    process.exit(2);
  }
  const portIndex = process.argv.indexOf('--port');
  const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : 0;
  const receiver = await startReceiver({ secret, port, print: (line) => console.log(line) });
  console.log(`listening ${receiver.url}`);
}
