/**
 * The endpoint registry on the state store: one document per endpoint, written with conditional
 * writes (`mutate`), so the API, the delivery function and replays never overwrite each other. The
 * documents hold no secret material: an endpoint's secrets and custom headers are in the secret store
 * (./secrets.ts), referenced by id. A document written before the secret store (its secrets inline)
 * is moved on first read: its secrets into the store, the document rewritten without them.
 */
import { randomBytes } from 'node:crypto';
import { mapAll } from '../core/index.ts';
import type { CloudEvent } from '../events/index.ts';
import type { StateStore } from '../state/index.ts';
import { checkCustomHeaders } from './custom-headers.ts';
import { WebhookError } from './errors.ts';
import { ENDPOINTS_PREFIX, endpointKey } from './keys.ts';
import { isLive, type SecretRef, type WebhookSecrets } from './secrets.ts';
import { checkEndpointUrl, resolveEndpoint, type UrlPolicy } from './url-policy.ts';

/** A secret as records written before the secret store held it inline (moved on first read). */
export interface InlineSecret {
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
  /** The endpoint's secrets, by reference (their values are in the secret store). */
  readonly secretRefs: readonly SecretRef[];
  /** Records written before the secret store: the secrets themselves, moved out on first read. */
  readonly secrets?: readonly InlineSecret[];
  /** The names of its custom headers (their values are in the secret store, under `headersRef`). */
  readonly headerNames?: readonly string[];
  readonly headersRef?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Consecutive failed attempts (breaker), and since when it has been failing. */
  readonly failures: number;
  readonly failingSince?: string;
  readonly breakerOpenUntil?: string;
  /**
   * Since when its answers take longer than the main lane's budget (./lane-budget.ts): its tasks
   * take the slow lane, as a failing endpoint's do, without counting as failures; cleared by an answer
   * within the budget.
   */
  readonly slowSince?: string;
  /** The main lane's budget (ms) its answer missed when it became slow: it stays slow until it answers within it. */
  readonly slowAfterMs?: number;
  /** The last replay queued for it: tasks queued before then check the log before they are sent. */
  readonly replayedAt?: string;
}

/** What the API and CLI show: the record without references to secret material, header names only. */
export type EndpointView = Omit<EndpointRecord, 'secrets' | 'secretRefs' | 'headersRef' | 'headerNames'> & {
  readonly secretCount: number;
  readonly headerNames: readonly string[];
};

export interface EndpointInput {
  readonly url: string;
  readonly eventTypes?: readonly string[];
  readonly subject?: string | undefined;
  readonly description?: string | undefined;
  /** Custom headers sent on every attempt (./custom-headers.ts); on a change, `{}` removes them all. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

export function endpointView(record: EndpointRecord): EndpointView {
  const { secrets, secretRefs, headersRef: _ref, headerNames, ...rest } = record;
  return {
    ...rest,
    secretCount: (secretRefs ?? []).length + (secrets ?? []).length,
    headerNames: headerNames ?? [],
  };
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

/** The references of the secrets that still sign at `now`. */
export function liveSecrets(endpoint: EndpointRecord, now: Date): SecretRef[] {
  return endpoint.secretRefs.filter((ref) => isLive(ref, now));
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
  /** Where the endpoints' secrets and custom headers are kept. */
  readonly secrets: WebhookSecrets;
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
    const headers = checked.headers === undefined ? undefined : checkCustomHeaders(checked.headers);
    const url = await this.#checkUrl(checked.url);
    const now = this.#now();
    const id = `ep_${randomBytes(12).toString('hex')}`;
    const { ref, secret } = await this.#options.secrets.createSecret(id, now);
    const headerFields = await this.#storedHeaders(id, headers);
    const endpoint: EndpointRecord = {
      id,
      url,
      eventTypes: checked.eventTypes,
      ...(checked.subject !== undefined ? { subject: checked.subject } : {}),
      description: checked.description ?? '',
      status: 'enabled',
      secretRefs: [ref],
      ...headerFields,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      failures: 0,
    };
    await this.#withSecretsOf(id, this.secretIdsOf(endpoint), async () => {
      const created = await this.#store.create(endpointKey(endpoint.id), endpoint);
      if (!created.created) throw new Error(`Endpoint id ${endpoint.id} collided; try again`);
    });
    return { endpoint, secret };
  }

  /**
   * Runs `write`, the record write that references secrets just created; when it fails they are
   * deleted again (best effort), so no secret outlives a registration or change that did not happen.
   */
  async #withSecretsOf<T>(id: string, created: readonly string[], write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      await this.#options.secrets.remove(id, created).catch(() => undefined);
      throw error;
    }
  }

  /** The record fields of custom headers stored now (none for none). */
  async #storedHeaders(
    id: string,
    headers: Record<string, string> | undefined,
  ): Promise<Pick<EndpointRecord, 'headerNames' | 'headersRef'>> {
    if (headers === undefined || Object.keys(headers).length === 0) return {};
    const headersRef = await this.#options.secrets.createHeaders(id, headers);
    return { headerNames: Object.keys(headers).sort(), headersRef };
  }

  async get(id: string): Promise<EndpointRecord | undefined> {
    if (!/^ep_[0-9a-f]{24}$/.test(id)) return undefined;
    const record = (await this.#store.get<EndpointRecord>(endpointKey(id)))?.value;
    return record?.secrets === undefined ? record : this.#moveInlineSecrets(record);
  }

  /**
   * A record written before the secret store: its secrets go into the store (ids derived from the
   * values, so two instances moving them at once agree) and the record is rewritten without them.
   * Until then every reader signs with them as before, so a stage that upgrades loses no endpoint.
   */
  async #moveInlineSecrets(record: EndpointRecord): Promise<EndpointRecord> {
    const now = this.#now();
    const live = (record.secrets ?? []).filter((each) => isLive(each, now));
    const refs = await Promise.all(live.map((each) => this.#options.secrets.adoptSecret(record.id, each)));
    const result = await this.#store.mutate<EndpointRecord>(endpointKey(record.id), (current) => {
      if (current?.secrets === undefined) return undefined;
      const { secrets: _inline, ...rest } = current;
      return { ...rest, secretRefs: [...(current.secretRefs ?? []), ...refs] };
    });
    return result.value ?? record;
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
    const records = entries.flatMap((entry) => (entry ? [entry.value] : []));
    return Promise.all(
      records.map((record) => (record.secrets === undefined ? record : this.#moveInlineSecrets(record))),
    );
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
    const headers = input.headers === undefined ? undefined : checkCustomHeaders(input.headers);
    const url = input.url === undefined ? current.url : await this.#checkUrl(input.url);
    const now = this.#now().toISOString();
    const headerFields = headers === undefined ? undefined : await this.#storedHeaders(id, headers);
    let replaced: string | undefined;
    const created = headerFields?.headersRef ? [headerFields.headersRef] : [];
    const changed = await this.#withSecretsOf(id, created, () =>
      this.change(id, (record) => {
        const { headerNames: _names, headersRef, ...rest } = record;
        replaced = headerFields === undefined ? undefined : headersRef;
        return {
          ...(headerFields === undefined ? record : { ...rest, ...headerFields }),
          url,
          eventTypes: checked.eventTypes,
          ...(input.subject !== undefined ? { subject: input.subject } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          updatedAt: now,
        };
      }),
    );
    // Headers replaced are deleted at once: an old API key is not kept anywhere.
    if (replaced !== undefined) await this.#options.secrets.remove(id, [replaced]);
    return changed;
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
   * can switch without refusing a delivery, and are deleted from the secret store once it has passed
   * ({@link dropExpiredSecrets}). Returns the new secret, shown once.
   */
  async rotate(id: string, overlapMs: number): Promise<{ endpoint: EndpointRecord; secret: string }> {
    await this.require(id);
    const now = this.#now();
    const { ref, secret } = await this.#options.secrets.createSecret(id, now);
    const expiresAt = new Date(now.getTime() + overlapMs).toISOString();
    const endpoint = await this.#withSecretsOf(id, [ref.id], () =>
      this.change(id, (record) => ({
        ...record,
        secretRefs: [
          ...record.secretRefs.map((each) =>
            each.expiresAt === undefined || Date.parse(each.expiresAt) > Date.parse(expiresAt)
              ? { ...each, expiresAt }
              : each,
          ),
          ref,
        ],
        updatedAt: now.toISOString(),
      })),
    );
    return { endpoint: await this.dropExpiredSecrets(endpoint), secret };
  }

  /**
   * Deletes the endpoint's secrets whose overlap has passed, from the secret store and from its
   * record; returns the record as it is then. The signing function calls it when it meets one, the
   * API at each rotation, so a rotated-out secret is readable no longer than that.
   */
  async dropExpiredSecrets(endpoint: EndpointRecord): Promise<EndpointRecord> {
    const now = this.#now();
    const expired = endpoint.secretRefs.filter((ref) => !isLive(ref, now)).map((ref) => ref.id);
    if (expired.length === 0) return endpoint;
    const changed = await this.change(endpoint.id, (record) => {
      const kept = record.secretRefs.filter((ref) => !expired.includes(ref.id));
      return kept.length === record.secretRefs.length ? undefined : { ...record, secretRefs: kept };
    });
    await this.#options.secrets.remove(endpoint.id, expired);
    return changed;
  }

  /** The secret ids of the endpoint, its headers' included (what deleting it removes). */
  secretIdsOf(endpoint: EndpointRecord): string[] {
    return [
      ...endpoint.secretRefs.map((ref) => ref.id),
      ...(endpoint.headersRef ? [endpoint.headersRef] : []),
    ];
  }

  /** The store of the endpoints' secret material. */
  get secrets(): WebhookSecrets {
    return this.#options.secrets;
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
  const endpoint = await registry.require(id);
  // The secrets first, with no recovery window: should the record's delete fail, a second DELETE
  // finishes it, and no secret of a deleted endpoint stays readable.
  await registry.secrets.remove(id, registry.secretIdsOf(endpoint));
  await store.delete(endpointKey(id));
}
