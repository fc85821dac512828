/**
 * The endpoint registry on the state store: one document per endpoint, written with conditional
 * writes (`mutate`), so the API, the delivery function and replays never overwrite each other.
 */
import { randomBytes } from 'node:crypto';
import { mapAll } from '../core/index.ts';
import type { CloudEvent } from '../events/index.ts';
import type { StateStore } from '../state/index.ts';
import { WebhookError } from './errors.ts';
import { ENDPOINTS_PREFIX, endpointKey, SIGNING_KEY_KEY } from './keys.ts';
import { generateSecret, generateSigningKey, type SigningKeyPair } from './signing.ts';
import { checkEndpointUrl, resolveEndpoint, type UrlPolicy } from './url-policy.ts';

/** One secret of an endpoint; a rotated-out one keeps signing until `expiresAt`. */
export interface EndpointSecret {
  readonly secret: string;
  readonly createdAt: string;
  readonly expiresAt?: string;
}

export interface EndpointRecord {
  readonly id: string;
  readonly url: string;
  /** Event types delivered; empty means every type. */
  readonly eventTypes: readonly string[];
  /** Only events whose subject equals it, or starts with it when it ends with `*`. */
  readonly subject?: string;
  readonly description: string;
  readonly status: 'enabled' | 'disabled';
  readonly disabledReason?: string;
  readonly disabledAt?: string;
  readonly secrets: readonly EndpointSecret[];
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Consecutive failed attempts (breaker), and since when it has been failing. */
  readonly failures: number;
  readonly failingSince?: string;
  readonly breakerOpenUntil?: string;
  /** The last replay queued for it: tasks queued before then check the log before they are sent. */
  readonly replayedAt?: string;
}

/** What the API and CLI show: the record without its secrets. */
export type EndpointView = Omit<EndpointRecord, 'secrets'> & { readonly secretCount: number };

export interface EndpointInput {
  readonly url: string;
  readonly eventTypes?: readonly string[];
  readonly subject?: string | undefined;
  readonly description?: string | undefined;
}

export function endpointView(record: EndpointRecord): EndpointView {
  const { secrets, ...rest } = record;
  return { ...rest, secretCount: secrets.length };
}

/**
 * The bridge's own events about webhook endpoints: delivered only to an endpoint that lists their type,
 * never to one that takes every type (they describe other endpoints).
 */
export const WEBHOOK_OWN_EVENT_PREFIX = 'pds.webhook.';

/** True when the endpoint takes this event (type and subject filters). */
export function endpointMatches(
  endpoint: EndpointRecord,
  event: Pick<CloudEvent, 'type' | 'subject'>,
): boolean {
  const listed = endpoint.eventTypes.includes(event.type);
  if (!listed && (endpoint.eventTypes.length > 0 || event.type.startsWith(WEBHOOK_OWN_EVENT_PREFIX)))
    return false;
  if (endpoint.subject === undefined) return true;
  const subject = event.subject ?? '';
  return endpoint.subject.endsWith('*')
    ? subject.startsWith(endpoint.subject.slice(0, -1))
    : subject === endpoint.subject;
}

/** The secrets that still sign at `now`. */
export function liveSecrets(endpoint: EndpointRecord, now: Date): string[] {
  return endpoint.secrets
    .filter((each) => each.expiresAt === undefined || Date.parse(each.expiresAt) > now.getTime())
    .map((each) => each.secret);
}

const MAX_DESCRIPTION = 500;
const MAX_EVENT_TYPES = 50;

function checkedInput(
  input: EndpointInput,
  knownTypes: readonly string[],
): Required<Pick<EndpointInput, 'eventTypes'>> & EndpointInput {
  const eventTypes = [...new Set(input.eventTypes ?? [])];
  if (eventTypes.length > MAX_EVENT_TYPES) {
    throw new WebhookError('WEBHOOK_ENDPOINT_INVALID', `At most ${MAX_EVENT_TYPES} event types per endpoint`);
  }
  const unknown = eventTypes.filter((type) => !knownTypes.includes(type));
  if (unknown.length > 0) {
    throw new WebhookError(
      'WEBHOOK_ENDPOINT_INVALID',
      `Unknown event type ${unknown.map((each) => JSON.stringify(each)).join(', ')}; known: ${knownTypes.join(', ')}`,
    );
  }
  if ((input.description ?? '').length > MAX_DESCRIPTION) {
    throw new WebhookError(
      'WEBHOOK_ENDPOINT_INVALID',
      `The description is longer than ${MAX_DESCRIPTION} characters`,
    );
  }
  if (input.subject !== undefined && (input.subject.length === 0 || input.subject.length > 1024)) {
    throw new WebhookError('WEBHOOK_ENDPOINT_INVALID', 'The subject filter must be 1 to 1024 characters');
  }
  return { ...input, eventTypes };
}

export interface RegistryOptions {
  readonly policy: UrlPolicy;
  /** Every event type the bridge emits (the filter is checked against it). */
  readonly knownTypes: readonly string[];
  readonly now?: () => Date;
}

/**
 * Endpoints in the state store.
 *
 * @example
 * ```ts
 * const registry = new EndpointRegistry(store, { policy: 'public', knownTypes: EVENT_TYPES });
 * const { endpoint, secret } = await registry.create({ url: 'https://erp.example.com/hooks' });
 * ```
 */
/** Endpoint records read at once by {@link EndpointRegistry.list} (each an S3 GET when deployed). */
export const LIST_READ_CONCURRENCY = 8;

export class EndpointRegistry {
  readonly #store: StateStore;
  readonly #options: RegistryOptions;

  constructor(store: StateStore, options: RegistryOptions) {
    this.#store = store;
    this.#options = options;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }

  async #checkUrl(text: string): Promise<string> {
    const url = checkEndpointUrl(text, this.#options.policy);
    if (this.#options.policy === 'public') await resolveEndpoint(url, 'public');
    return url.href;
  }

  /** Registers an endpoint; the secret is returned here only. */
  async create(input: EndpointInput): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const checked = checkedInput(input, this.#options.knownTypes);
    const url = await this.#checkUrl(checked.url);
    const now = this.#now().toISOString();
    const secret = generateSecret();
    const endpoint: EndpointRecord = {
      id: `ep_${randomBytes(12).toString('hex')}`,
      url,
      eventTypes: checked.eventTypes,
      ...(checked.subject !== undefined ? { subject: checked.subject } : {}),
      description: checked.description ?? '',
      status: 'enabled',
      secrets: [{ secret, createdAt: now }],
      createdAt: now,
      updatedAt: now,
      failures: 0,
    };
    const created = await this.#store.create(endpointKey(endpoint.id), endpoint);
    if (!created.created) throw new Error(`Endpoint id ${endpoint.id} collided; try again`);
    return { endpoint, secret };
  }

  async get(id: string): Promise<EndpointRecord | undefined> {
    if (!/^ep_[0-9a-f]{24}$/.test(id)) return undefined;
    return (await this.#store.get<EndpointRecord>(endpointKey(id)))?.value;
  }

  async require(id: string): Promise<EndpointRecord> {
    const endpoint = await this.get(id);
    if (!endpoint) {
      throw new WebhookError(
        'WEBHOOK_ENDPOINT_NOT_FOUND',
        `No webhook endpoint ${JSON.stringify(id)}; list them with GET /webhooks/endpoints`,
      );
    }
    return endpoint;
  }

  /** Every endpoint; the records are read {@link LIST_READ_CONCURRENCY} at a time, not one after another. */
  async list(): Promise<EndpointRecord[]> {
    const keys: string[] = [];
    for await (const key of this.#store.list(ENDPOINTS_PREFIX)) keys.push(key);
    const entries = await mapAll(keys, LIST_READ_CONCURRENCY, (key) => this.#store.get<EndpointRecord>(key));
    return entries.flatMap((entry) => (entry ? [entry.value] : []));
  }

  /** Changes an endpoint with a conditional write; `change` may run more than once. */
  async change(
    id: string,
    change: (current: EndpointRecord) => EndpointRecord | undefined,
  ): Promise<EndpointRecord> {
    await this.require(id);
    const result = await this.#store.mutate<EndpointRecord>(endpointKey(id), (current) =>
      current === undefined ? undefined : change(current),
    );
    if (!result.value)
      throw new WebhookError('WEBHOOK_ENDPOINT_NOT_FOUND', `Webhook endpoint ${id} was deleted meanwhile`);
    return result.value;
  }

  async update(id: string, input: Partial<EndpointInput>): Promise<EndpointRecord> {
    const current = await this.require(id);
    const checked = checkedInput(
      { url: current.url, ...input, eventTypes: input.eventTypes ?? current.eventTypes },
      this.#options.knownTypes,
    );
    const url = input.url === undefined ? current.url : await this.#checkUrl(input.url);
    const now = this.#now().toISOString();
    return this.change(id, (record) => ({
      ...record,
      url,
      eventTypes: checked.eventTypes,
      ...(input.subject !== undefined ? { subject: input.subject } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      updatedAt: now,
    }));
  }

  async disable(id: string, reason: string): Promise<EndpointRecord> {
    const now = this.#now().toISOString();
    return this.change(id, (record) =>
      record.status === 'disabled'
        ? undefined
        : { ...record, status: 'disabled', disabledReason: reason, disabledAt: now, updatedAt: now },
    );
  }

  async enable(id: string): Promise<EndpointRecord> {
    const now = this.#now().toISOString();
    return this.change(id, (record) => {
      if (record.status === 'enabled') return undefined;
      const {
        disabledReason: _reason,
        disabledAt: _at,
        failingSince: _since,
        breakerOpenUntil: _until,
        ...rest
      } = record;
      return { ...rest, status: 'enabled', failures: 0, updatedAt: now };
    });
  }

  /**
   * A new secret; the old ones keep signing for `overlapMs` (both signatures are sent), so a receiver
   * can switch without refusing a delivery. Returns the new secret, shown once.
   */
  async rotate(id: string, overlapMs: number): Promise<{ endpoint: EndpointRecord; secret: string }> {
    const now = this.#now();
    const secret = generateSecret();
    const expiresAt = new Date(now.getTime() + overlapMs).toISOString();
    const endpoint = await this.change(id, (record) => ({
      ...record,
      secrets: [
        ...record.secrets
          .filter((each) => each.expiresAt === undefined || Date.parse(each.expiresAt) > now.getTime())
          .map((each) =>
            each.expiresAt === undefined || Date.parse(each.expiresAt) > Date.parse(expiresAt)
              ? { ...each, expiresAt }
              : each,
          ),
        { secret, createdAt: now.toISOString() },
      ],
      updatedAt: now.toISOString(),
    }));
    return { endpoint, secret };
  }
}

/**
 * Removes an endpoint (its delivery log stays until it expires). A function of its own, not a method,
 * so that only the api's bundle carries the delete (the IAM tables grant DeleteObject to it alone).
 */
export async function deleteEndpoint(
  registry: EndpointRegistry,
  store: StateStore,
  id: string,
): Promise<void> {
  await registry.require(id);
  await store.delete(endpointKey(id));
}

/**
 * The bridge's ed25519 key pair, created on first use (a create-if-absent write: two first uses agree
 * on one key).
 */
export async function signingKeyOf(store: StateStore): Promise<SigningKeyPair> {
  const existing = await store.get<SigningKeyPair>(SIGNING_KEY_KEY);
  if (existing) return existing.value;
  const fresh = generateSigningKey();
  const created = await store.create(SIGNING_KEY_KEY, fresh);
  if (created.created) return fresh;
  const winner = await store.get<SigningKeyPair>(SIGNING_KEY_KEY);
  if (!winner) throw new Error('The webhook signing key vanished right after it was created');
  return winner.value;
}
