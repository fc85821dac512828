/**
 * The webhooks' secret material on a {@link SecretStore}: each endpoint's signing secrets and custom
 * headers, and the bridge's ed25519 signing key. The endpoint records in the state bucket hold only
 * references (an id, when it was created, when it stops signing) and the header names; the public key
 * is published in the state bucket (`webhooks/public-key.json`) for the API to answer without reading
 * the private key.
 *
 * Secret names, below the store's prefix (deployed `pds-bridge/<stage>/`):
 * - `webhooks/<endpoint id>/s_<hex>`: one `whsec_` secret of the endpoint
 * - `webhooks/<endpoint id>/h_<hex>`: the endpoint's custom headers, as JSON
 * - `webhooks/signing-key`: the bridge's key pair, as JSON `{privateKey, publicKey}`
 */
import { createHash, randomBytes } from 'node:crypto';
import { type RetryPolicy, retry } from '../core/index.ts';
import type { StateStore } from '../state/index.ts';
import { WebhookError } from './errors.ts';
import { PUBLIC_KEY_KEY, SIGNING_KEY_KEY } from './keys.ts';
import type { SecretStore } from './secret-store.ts';
import { generateSecret, generateSigningKey, PRIVATE_KEY_PREFIX, type SigningKeyPair } from './signing.ts';

/** One secret of an endpoint, as its record holds it: the value is in the secret store. */
export interface SecretRef {
  readonly id: string;
  readonly createdAt: string;
  /** A rotated-out secret keeps signing until then (the overlap), and is deleted after. */
  readonly expiresAt?: string;
}

/** The signing key's secret name. */
export const SIGNING_KEY_SECRET = 'webhooks/signing-key';

/** The secret name of one secret (or the headers) of an endpoint. */
export function endpointSecretName(endpointId: string, refId: string): string {
  return `webhooks/${endpointId}/${refId}`;
}

/** True while the secret still signs at `now`. */
export function isLive(ref: Pick<SecretRef, 'expiresAt'>, now: Date): boolean {
  return ref.expiresAt === undefined || Date.parse(ref.expiresAt) > now.getTime();
}

/** Values read and kept per instance: a secret is written once, so a kept value is never stale. */
const MAX_KEPT_VALUES = 1_000;

/**
 * How {@link WebhookSecrets.publicKey} waits for the instance that created the key to publish it: a
 * few reads, about 1.5 s in all.
 */
const AWAIT_PUBLISHED: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 800, jitter: 'none' };

/**
 * The secret material of the webhooks.
 *
 * @example
 * ```ts
 * const secrets = new WebhookSecrets(new MemorySecretStore(), stateStore);
 * const { ref, secret } = await secrets.createSecret('ep_0123…', new Date()); // secret shown once
 * const [value] = await secrets.values('ep_0123…', [ref]);
 * ```
 */
export class WebhookSecrets {
  readonly #secrets: SecretStore;
  readonly #state: StateStore;
  readonly #kept = new Map<string, string>();
  #published = false;

  constructor(secrets: SecretStore, state: StateStore) {
    this.#secrets = secrets;
    this.#state = state;
  }

  /** A new `whsec_` secret of the endpoint, stored; the value is returned to be shown once. */
  async createSecret(endpointId: string, now: Date): Promise<{ ref: SecretRef; secret: string }> {
    const secret = generateSecret();
    const ref = { id: `s_${randomBytes(8).toString('hex')}`, createdAt: now.toISOString() };
    await this.#createOnce(endpointSecretName(endpointId, ref.id), secret);
    return { ref, secret };
  }

  /**
   * Moves a secret a record held inline (written before the secret store) into the store; the id is
   * derived from the value, so two instances moving it at once store it once.
   */
  async adoptSecret(
    endpointId: string,
    inline: { secret: string; createdAt: string; expiresAt?: string },
  ): Promise<SecretRef> {
    const id = `s_${createHash('sha256').update(inline.secret).digest('hex').slice(0, 16)}`;
    await this.#secrets.create(endpointSecretName(endpointId, id), inline.secret);
    return {
      id,
      createdAt: inline.createdAt,
      ...(inline.expiresAt !== undefined ? { expiresAt: inline.expiresAt } : {}),
    };
  }

  /** The values of an endpoint's secrets; a secret deleted meanwhile is left out. */
  async values(endpointId: string, refs: readonly SecretRef[]): Promise<string[]> {
    const read = await Promise.all(refs.map((ref) => this.#read(endpointSecretName(endpointId, ref.id))));
    return read.filter((value): value is string => value !== undefined);
  }

  /** Stores an endpoint's custom headers; returns the reference its record keeps. */
  async createHeaders(endpointId: string, headers: Readonly<Record<string, string>>): Promise<string> {
    const id = `h_${randomBytes(8).toString('hex')}`;
    await this.#createOnce(endpointSecretName(endpointId, id), JSON.stringify(headers));
    return id;
  }

  /** The custom headers stored under `refId`; none when they were deleted meanwhile. */
  async headers(endpointId: string, refId: string): Promise<Record<string, string>> {
    const text = await this.#read(endpointSecretName(endpointId, refId));
    return text === undefined ? {} : (JSON.parse(text) as Record<string, string>);
  }

  /** Deletes secrets of an endpoint (by reference id) at once, with no recovery window. */
  async remove(endpointId: string, refIds: readonly string[]): Promise<void> {
    await Promise.all(
      refIds.map(async (id) => {
        const name = endpointSecretName(endpointId, id);
        await this.#secrets.delete(name);
        this.#kept.delete(name);
      }),
    );
  }

  /**
   * The bridge's key pair, created on first use: a create-if-absent write, so two first uses agree
   * on one key. A key the state bucket held before the secret store (`webhooks/signing-key.json`) is
   * moved into it, not replaced: receivers that pinned its public key keep verifying.
   */
  async signingKey(): Promise<SigningKeyPair> {
    const stored = await this.#readPair();
    if (stored) {
      if (!this.#published) await this.#publish(stored.publicKey, { ifAbsent: true });
      return stored;
    }
    const created = await this.#createPair();
    if (created) return created;
    const winner = await this.#readPair();
    if (!winner) throw this.#unavailable('signing key was created by another instance but cannot be read');
    return winner;
  }

  /**
   * The `whpk_` public key, from the state bucket; without reading the private key (the api may not).
   * On first use it creates the key pair as {@link signingKey} does.
   */
  async publicKey(): Promise<string> {
    const published = await this.#state.get<{ publicKey: string }>(PUBLIC_KEY_KEY);
    if (published) return published.value.publicKey;
    const created = await this.#createPair();
    if (created) return created.publicKey;
    // Another instance created it and publishes its public key right after.
    return retry(async () => {
      const now = await this.#state.get<{ publicKey: string }>(PUBLIC_KEY_KEY);
      if (now) return now.value.publicKey;
      throw this.#unavailable(
        'signing key exists but its public key is not published yet (webhook-delivery publishes it when it first signs); try again shortly',
      );
    }, AWAIT_PUBLISHED);
  }

  /**
   * Creates the key pair (the state bucket's earlier one, else a new one) unless another instance
   * did; the creator publishes its public key. Undefined when another instance's create won.
   */
  async #createPair(): Promise<SigningKeyPair | undefined> {
    const candidate = await this.#candidatePair();
    if (!(await this.#secrets.create(SIGNING_KEY_SECRET, JSON.stringify(candidate)))) return undefined;
    await this.#settle(candidate);
    return candidate;
  }

  async #createOnce(name: string, value: string): Promise<void> {
    if (!(await this.#secrets.create(name, value))) {
      throw this.#unavailable(`secret ${name} already exists (random ids collided); try again`);
    }
    this.#keep(name, value);
  }

  async #read(name: string): Promise<string | undefined> {
    const kept = this.#kept.get(name);
    if (kept !== undefined) return kept;
    const value = await this.#secrets.read(name);
    if (value !== undefined) this.#keep(name, value);
    return value;
  }

  #keep(name: string, value: string): void {
    if (this.#kept.size >= MAX_KEPT_VALUES) this.#kept.clear();
    this.#kept.set(name, value);
  }

  async #readPair(): Promise<SigningKeyPair | undefined> {
    const text = await this.#read(SIGNING_KEY_SECRET);
    return text === undefined ? undefined : (JSON.parse(text) as SigningKeyPair);
  }

  /** The pair the state bucket held before the secret store, else a new one. */
  async #candidatePair(): Promise<SigningKeyPair> {
    const legacy = await this.#state.get<Partial<SigningKeyPair>>(SIGNING_KEY_KEY);
    const { privateKey, publicKey } = legacy?.value ?? {};
    return privateKey?.startsWith(PRIVATE_KEY_PREFIX) && publicKey
      ? { privateKey, publicKey }
      : generateSigningKey();
  }

  /** After creating the pair: its public key published, the state bucket's old copy emptied. */
  async #settle(pair: SigningKeyPair): Promise<void> {
    await this.#publish(pair.publicKey, { ifAbsent: false });
    // Overwritten, not deleted (the signing role may not delete): the current object holds no key;
    // the bucket's noncurrent versions expire (docs/webhooks.md, "Upgrading a stage").
    await this.#state.mutate<object>(SIGNING_KEY_KEY, (current) =>
      current === undefined ? undefined : { movedTo: 'the secret store', secret: SIGNING_KEY_SECRET },
    );
  }

  async #publish(publicKey: string, options: { ifAbsent: boolean }): Promise<void> {
    if (options.ifAbsent) await this.#state.create(PUBLIC_KEY_KEY, { publicKey });
    else await this.#state.mutate(PUBLIC_KEY_KEY, () => ({ publicKey }));
    this.#published = true;
  }

  #unavailable(what: string): WebhookError {
    return new WebhookError('WEBHOOK_SECRET_UNAVAILABLE', `The webhook ${what}`, {
      retryable: true,
    });
  }
}
