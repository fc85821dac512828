/**
 * Verifying a Standard Webhooks 1.0 delivery on the receiving side (the consumer kit exports it):
 * the timestamp within a tolerance, then any `v1` signature made with the secret, or any `v1a`
 * signature made with the bridge's public key. Comparisons are constant-time.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { WebhookError } from './errors.ts';

export { WebhookError };

export interface VerifyWebhookOptions {
  /** The raw request body, exactly as received (parse it only after verifying). */
  readonly body: string | Buffer;
  /** The request headers (names in any case). */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The endpoint's `whsec_` secret: accepts `v1` signatures. */
  readonly secret?: string;
  /** The bridge's `whpk_` public key (GET /webhooks/public-key): accepts `v1a` signatures. */
  readonly publicKey?: string;
  /** Largest distance between the timestamp and now, in seconds; default 300. */
  readonly toleranceSeconds?: number;
  /** Default: the clock. */
  readonly now?: Date;
}

function header(headers: VerifyWebhookOptions['headers'], name: string): string {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' && text.length > 0) return text;
  }
  throw new WebhookError('WEBHOOK_SIGNATURE_INVALID', `The ${name} header is missing`);
}

/**
 * Verifies a delivery and returns its parsed JSON body (the CloudEvent); throws {@link WebhookError}
 * `WEBHOOK_SIGNATURE_INVALID` naming the reason otherwise.
 *
 * @example
 * ```ts
 * const event = verifyWebhook({ body: rawBody, headers: req.headers, secret: process.env.WEBHOOK_SECRET });
 * ```
 */
export function verifyWebhook(options: VerifyWebhookOptions): unknown {
  if (!options.secret && !options.publicKey) {
    throw new WebhookError(
      'WEBHOOK_SIGNATURE_INVALID',
      'verifyWebhook needs the endpoint secret (whsec_…) or the bridge public key (whpk_…)',
    );
  }
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) {
    throw new WebhookError('WEBHOOK_SIGNATURE_INVALID', 'The webhook-timestamp header is not whole seconds');
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - seconds) > tolerance) {
    throw new WebhookError(
      'WEBHOOK_SIGNATURE_INVALID',
      `The webhook-timestamp is ${now - seconds} s from now, more than the ${tolerance} s tolerated (a replayed or delayed request, or a wrong clock)`,
    );
  }
  const body = typeof options.body === 'string' ? Buffer.from(options.body) : options.body;
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body]);
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (!value) continue;
    if (version === 'v1' && options.secret && v1Matches(options.secret, content, value)) return parse(body);
    if (version === 'v1a' && options.publicKey && v1aMatches(options.publicKey, content, value)) {
      return parse(body);
    }
  }
  throw new WebhookError(
    'WEBHOOK_SIGNATURE_INVALID',
    'No signature in webhook-signature matches (check the secret or public key, and that the body is the raw one)',
  );
}

function v1Matches(secret: string, content: Buffer, value: string): boolean {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const expected = createHmac('sha256', key).update(content).digest();
  const given = Buffer.from(value, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function v1aMatches(publicKey: string, content: Buffer, value: string): boolean {
  const raw = Buffer.from(publicKey.startsWith('whpk_') ? publicKey.slice(5) : publicKey, 'base64');
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  return verify(null, content, key, Buffer.from(value, 'base64'));
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookError('WEBHOOK_SIGNATURE_INVALID', 'The signed body is not JSON');
  }
}
