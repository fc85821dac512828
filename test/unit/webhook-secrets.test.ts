/**
 * Where the webhooks' secret material lives (docs/webhooks.md, "What is stored where"): never in the
 * state bucket the endpoint records, the public key and the delivery views are read from; rotated-out
 * secrets gone after the overlap, deleted endpoints' secrets gone at once; records and the signing key
 * written before the secret store moved into it without a receiver noticing.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStateStore, type StateStore } from '../../packages/bridge/src/state/index.ts';
import {
  type DeliveryTask,
  deleteEndpoint,
  keepEvent,
  MemorySecretStore,
  type SecretStore,
  SIGNING_KEY_SECRET,
} from '../../packages/bridge/src/webhooks/index.ts';
import { endpointKey, PUBLIC_KEY_KEY, SIGNING_KEY_KEY } from '../../packages/bridge/src/webhooks/keys.ts';
import { generateSecret, generateSigningKey, signV1 } from '../../packages/bridge/src/webhooks/signing.ts';
import { dropEvent, memoryDelivery } from '../helpers/webhook-events.ts';

const HOUR = 3_600_000;

/** A delivery flow on memory ports whose POSTs are recorded (headers and body) and answered 204. */
function recordingDelivery(secrets: SecretStore = new MemorySecretStore()) {
  const clock = { now: new Date('2026-12-07T08:00:00Z') };
  const sent: Array<{ headers: Record<string, string>; body: string }> = [];
  const built = memoryDelivery({
    secrets,
    now: () => clock.now,
    post: async (_url, body, headers) => {
      sent.push({ headers: { ...headers }, body });
      return { status: 204, latencyMs: 1, response: '' };
    },
  });
  const deliver = async (endpointId: string, n: number) => {
    await keepEvent(built.store, dropEvent(n));
    const task: DeliveryTask = { kind: 'deliver', endpointId, eventId: `evt-${n}`, attempt: 1 };
    await built.delivery.deliver(task);
    return sent.at(-1) as { headers: Record<string, string>; body: string };
  };
  return { ...built, clock, sent, deliver };
}

/** Every object of the state store as text, keys included. */
async function everyStateObject(store: MemoryStateStore | StateStore): Promise<string> {
  const texts: string[] = [];
  for await (const key of store.list('')) texts.push(key, JSON.stringify((await store.get(key))?.value));
  return texts.join('\n');
}

/** True when one of the delivery's `v1` signatures is the secret's (timestamps on the fake clock are not checked). */
function verifies(secret: string, delivered: { headers: Record<string, string>; body: string }): boolean {
  const { headers, body } = delivered;
  const expected = signV1(secret, String(headers['webhook-id']), Number(headers['webhook-timestamp']), body);
  return String(headers['webhook-signature']).split(' ').includes(expected);
}

/** A secret store that refuses every read: the api's role may create and delete, never read. */
function unreadable(inner: SecretStore): SecretStore {
  return {
    read: async (name) => {
      throw new Error(`read ${name}: the api may not read secrets`);
    },
    create: (name, value) => inner.create(name, value),
    delete: (name) => inner.delete(name),
  };
}

describe('webhook secrets', () => {
  it('keeps no secret, custom header value or private key in any state bucket object', async () => {
    // prepare
    const h = recordingDelivery();
    const { endpoint, secret } = await h.delivery.registry.create({
      url: 'http://127.0.0.1:9/hook',
      headers: { 'X-Api-Key': 'key-for-the-receiver' },
    });
    const rotated = await h.delivery.registry.rotate(endpoint.id, HOUR);

    // act
    const delivered = await h.deliver(endpoint.id, 1);

    // assess: delivered and signed with both secrets, while the state bucket holds none of them
    expect(verifies(secret, delivered) && verifies(rotated.secret, delivered)).toBe(true);
    const { privateKey } = await h.delivery.secrets.signingKey();
    const everything = await everyStateObject(h.store);
    for (const value of [secret, rotated.secret, 'key-for-the-receiver', privateKey]) {
      expect(everything).not.toContain(value);
    }
    expect(everything).toContain(await h.delivery.secrets.publicKey());
  });

  it('signs with a rotated-out secret during the overlap only, then deletes it from the secret store', async () => {
    // prepare
    const secrets = new MemorySecretStore();
    const h = recordingDelivery(secrets);
    const { endpoint, secret: old } = await h.delivery.registry.create({ url: 'http://127.0.0.1:9/hook' });
    const { secret: fresh } = await h.delivery.registry.rotate(endpoint.id, HOUR);
    const during = await h.deliver(endpoint.id, 1);

    // act
    h.clock.now = new Date(h.clock.now.getTime() + HOUR + 1);
    const after = await h.deliver(endpoint.id, 2);

    // assess
    expect([verifies(old, during), verifies(fresh, during)]).toEqual([true, true]);
    expect([verifies(old, after), verifies(fresh, after)]).toEqual([false, true]);
    const names = secrets.names().filter((name) => name.startsWith(`webhooks/${endpoint.id}/`));
    expect(names).toHaveLength(1);
    expect(await secrets.read(names[0] as string)).toBe(fresh);
  });

  it('deletes every secret of a deleted endpoint, its custom headers included', async () => {
    // prepare
    const secrets = new MemorySecretStore();
    const h = recordingDelivery(secrets);
    const { endpoint } = await h.delivery.registry.create({
      url: 'http://127.0.0.1:9/hook',
      headers: { authorization: 'Bearer t' },
    });
    await h.delivery.registry.rotate(endpoint.id, HOUR);

    // act
    await deleteEndpoint(h.delivery.registry, h.store, endpoint.id);

    // assess
    expect(secrets.names().filter((name) => name.includes(endpoint.id))).toEqual([]);
    expect(await h.store.get(endpointKey(endpoint.id))).toBeUndefined();
  });

  it('leaves no secret behind when the record of a registration or a header change cannot be written', async () => {
    // prepare: a state store whose endpoint writes fail once armed
    const secrets = new MemorySecretStore();
    let failing = false;
    const store = new MemoryStateStore({
      beforeOperation: ({ kind, key }) => {
        if (failing && kind !== 'get' && key.startsWith('webhooks/endpoints/')) throw new Error('S3 is down');
      },
    });
    const h = memoryDelivery({ store, secrets });
    const { endpoint } = await h.delivery.registry.create({ url: 'http://127.0.0.1:9/hook' });
    const before = secrets.names();
    failing = true;

    // act
    const registering = h.delivery.registry.create({
      url: 'http://127.0.0.1:9/other',
      headers: { 'x-a': '1' },
    });
    const changing = h.delivery.registry.update(endpoint.id, { headers: { 'x-a': '2' } });

    // assess
    await expect(registering).rejects.toThrow('S3 is down');
    await expect(changing).rejects.toThrow('S3 is down');
    expect(secrets.names()).toEqual(before);
  });

  it('registers, changes, rotates and deletes endpoints and answers the public key without reading a secret', async () => {
    // prepare: what the api does, on a store it may not read
    const secrets = new MemorySecretStore();
    const api = recordingDelivery(unreadable(secrets));
    const signer = recordingDelivery(secrets);

    // act
    const publicKey = await api.delivery.secrets.publicKey();
    const { endpoint } = await api.delivery.registry.create({ url: 'http://127.0.0.1:9/hook' });
    await api.delivery.registry.update(endpoint.id, { headers: { 'x-api-key': 'one' } });
    await api.delivery.registry.update(endpoint.id, { headers: { 'x-api-key': 'two' } });
    await api.delivery.registry.rotate(endpoint.id, 0);
    await deleteEndpoint(api.delivery.registry, api.store, endpoint.id);

    // assess: the signer uses the key the api created; nothing of the endpoint is left
    expect((await signer.delivery.secrets.signingKey()).publicKey).toBe(publicKey);
    expect(secrets.names()).toEqual(['webhooks/signing-key']);
  });

  it('moves an endpoint record written before the secret store: it keeps its secret, which leaves the record', async () => {
    // prepare: a record as an earlier version wrote it, its secret inline
    const secrets = new MemorySecretStore();
    const h = recordingDelivery(secrets);
    const id = `ep_${'a'.repeat(24)}`;
    const legacySecret = generateSecret();
    const createdAt = '2026-11-01T00:00:00.000Z';
    await h.store.create(endpointKey(id), {
      id,
      url: 'http://127.0.0.1:9/hook',
      eventTypes: [],
      description: 'from before the upgrade',
      status: 'enabled',
      secrets: [{ secret: legacySecret, createdAt }],
      createdAt,
      updatedAt: createdAt,
      failures: 0,
    });

    // act
    await h.delivery.dispatch([dropEvent(1)]);
    const delivered = await h.deliver(id, 1);

    // assess
    expect(verifies(legacySecret, delivered)).toBe(true);
    expect(await everyStateObject(h.store)).not.toContain(legacySecret);
    expect((await h.store.get<{ secretRefs: unknown[] }>(endpointKey(id)))?.value.secretRefs).toHaveLength(1);
    const moved = secrets.names().filter((name) => name.startsWith(`webhooks/${id}/`));
    expect(await Promise.all(moved.map((name) => secrets.read(name)))).toEqual([legacySecret]);
  });

  it('answers the public key another instance is publishing, and a retryable error when none comes', async () => {
    // prepare: the key pair created by another instance (a signer) that has not published it yet
    const secrets = new MemorySecretStore();
    const pair = generateSigningKey();
    await secrets.create(SIGNING_KEY_SECRET, JSON.stringify(pair));
    const publishing = recordingDelivery(secrets);
    const never = recordingDelivery(secrets);

    // act
    setTimeout(() => void publishing.store.create(PUBLIC_KEY_KEY, { publicKey: pair.publicKey }), 150);
    const answered = await publishing.delivery.secrets.publicKey();
    const refused = await never.delivery.secrets.publicKey().catch((error: unknown) => error);

    // assess
    expect(answered).toBe(pair.publicKey);
    expect(refused).toMatchObject({ code: 'WEBHOOK_SECRET_UNAVAILABLE', retryable: true });
  });

  it('moves the signing key the state bucket held, so receivers that pinned its public key keep verifying', async () => {
    // prepare
    const h = recordingDelivery();
    const legacy = generateSigningKey();
    await h.store.create(SIGNING_KEY_KEY, legacy);

    // act
    const pair = await h.delivery.secrets.signingKey();

    // assess
    expect(pair).toEqual(legacy);
    expect((await h.store.get<{ publicKey: string }>(PUBLIC_KEY_KEY))?.value.publicKey).toBe(
      legacy.publicKey,
    );
    expect(await everyStateObject(h.store)).not.toContain(legacy.privateKey);
  });
});
