/**
 * Standard Webhooks 1.0 signatures: the signed content is `${webhook-id}.${webhook-timestamp}.${body}`;
 * `v1` is HMAC-SHA256 with the endpoint's `whsec_` secret, `v1a` is ed25519 with the bridge's signing
 * key (its public key, `whpk_…`, is published by the API). Several signatures go in one
 * `webhook-signature` header, space-separated: every live secret of an endpoint during a rotation,
 * and the `v1a` one.
 *
 * Key formats: a secret is `whsec_` + base64 of 24 random bytes; the public key is `whpk_` + base64 of
 * the raw 32-byte ed25519 key; the private key is `whsk_` + base64 of its PKCS#8 DER form.
 */

import type { KeyObject } from 'node:crypto';
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
} from 'node:crypto';
import { WebhookError } from './errors.ts';

export const SECRET_PREFIX = 'whsec_';
export const PUBLIC_KEY_PREFIX = 'whpk_';
export const PRIVATE_KEY_PREFIX = 'whsk_';

/** The bridge's ed25519 key pair, as stored (both strings). */
export interface SigningKeyPair {
  readonly privateKey: string;
  readonly publicKey: string;
}

/**
 * A new endpoint secret.
 *
 * @example
 * ```ts
 * generateSecret(); // 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
 * ```
 */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The key bytes of a `whsec_` secret; throws {@link WebhookError} for anything else. */
export function secretBytes(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : undefined;
  if (!encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new WebhookError(
      'WEBHOOK_ENDPOINT_INVALID',
      'A webhook secret is "whsec_" followed by base64; use the secret shown when the endpoint was created or rotated',
    );
  }
  return Buffer.from(encoded, 'base64');
}

/** A new ed25519 key pair in the stored formats. */
export function generateSigningKey(): SigningKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  return {
    privateKey: `${PRIVATE_KEY_PREFIX}${der.toString('base64')}`,
    publicKey: publicKeyText(publicKey),
  };
}

function publicKeyText(key: ReturnType<typeof createPublicKey>): string {
  const jwk = key.export({ format: 'jwk' });
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(jwk.x as string, 'base64url').toString('base64')}`;
}

/** The `whpk_` public key of a `whsk_` private key. */
export function publicKeyOf(privateKey: string): string {
  return publicKeyText(createPublicKey(privateKeyObject(privateKey)));
}

/** Parsed keys by their text: parsing a PKCS#8 key costs far more than one ed25519 signature. */
const parsedKeys = new Map<string, KeyObject>();

function privateKeyObject(privateKey: string): KeyObject {
  const cached = parsedKeys.get(privateKey);
  if (cached) return cached;
  if (!privateKey.startsWith(PRIVATE_KEY_PREFIX)) {
    throw new WebhookError('WEBHOOK_ENDPOINT_INVALID', 'The signing key is not a "whsk_" key');
  }
  const key = createPrivateKey({
    key: Buffer.from(privateKey.slice(PRIVATE_KEY_PREFIX.length), 'base64'),
    format: 'der',
    type: 'pkcs8',
  });
  if (parsedKeys.size >= 8) parsedKeys.clear();
  parsedKeys.set(privateKey, key);
  return key;
}

/** The content every scheme signs. */
export function signedContent(id: string, timestampSeconds: number, body: string): string {
  return `${id}.${timestampSeconds}.${body}`;
}

/** `v1,<base64 HMAC-SHA256>` of the content with one secret. */
export function signV1(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(signedContent(id, timestampSeconds, body));
  return `v1,${mac.digest('base64')}`;
}

/** `v1a,<base64 ed25519 signature>` of the content with the bridge's private key. */
export function signV1a(privateKey: string, id: string, timestampSeconds: number, body: string): string {
  const signature = sign(
    null,
    Buffer.from(signedContent(id, timestampSeconds, body)),
    privateKeyObject(privateKey),
  );
  return `v1a,${signature.toString('base64')}`;
}

export interface SignOptions {
  /** The endpoint's live secrets (two during a rotation's overlap); each gives a `v1` signature. */
  readonly secrets: readonly string[];
  /** The bridge's `whsk_` key; when given, a `v1a` signature is added. */
  readonly privateKey?: string | undefined;
}

/**
 * The three Standard Webhooks headers of one delivery.
 *
 * @example
 * ```ts
 * webhookHeaders({ id: event.id, timestampSeconds: 1700000000, body }, { secrets: ['whsec_…'], privateKey });
 * // { 'webhook-id': …, 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,… v1a,…' }
 * ```
 */
export function webhookHeaders(
  message: { id: string; timestampSeconds: number; body: string },
  options: SignOptions,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const { id, timestampSeconds, body } = message;
  const signatures = options.secrets.map((secret) => signV1(secret, id, timestampSeconds, body));
  if (options.privateKey) signatures.push(signV1a(options.privateKey, id, timestampSeconds, body));
  if (signatures.length === 0) {
    throw new WebhookError('WEBHOOK_ENDPOINT_INVALID', `No secret or key to sign webhook ${id} with`);
  }
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
