/**
 * What one delivery costs the state store (S3 requests when deployed): a first attempt that
 * succeeds reads the endpoint and the event and writes its log record once; the signing key is read
 * once per function instance, not per delivery. A duplicate task (SQS delivers at least once) still
 * appends its attempt to the existing record.
 */

import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../packages/bridge/src/events/index.ts';
import { MemoryStateStore, type StateOperation } from '../../packages/bridge/src/state/index.ts';
import {
  type DeliveryTask,
  getDelivery,
  keepEvent,
  MemoryDeliveryQueue,
  MemorySecretStore,
  WebhookDelivery,
} from '../../packages/bridge/src/webhooks/index.ts';
import { dropEvent } from './../helpers/webhook-events.ts';

const event = (n: number) => dropEvent(n);

async function setup() {
  const operations: StateOperation[] = [];
  let recording = false;
  const store = new MemoryStateStore({
    beforeOperation: async (operation) => {
      if (recording) operations.push(operation);
    },
  });
  const posted: string[] = [];
  const delivery = new WebhookDelivery({
    store,
    secrets: new MemorySecretStore(),
    queue: new MemoryDeliveryQueue(),
    policy: 'any',
    knownTypes: EVENT_TYPES,
    post: async (_url, _body, headers) => {
      posted.push(String(headers['webhook-id']));
      return { status: 204, latencyMs: 1, response: '' };
    },
  });
  const { endpoint } = await delivery.registry.create({ url: 'http://127.0.0.1:9/hook' });
  for (let n = 0; n < 3; n++) await keepEvent(store, event(n));
  const task = (n: number): DeliveryTask => ({
    kind: 'deliver',
    endpointId: endpoint.id,
    eventId: `evt-${n}`,
    attempt: 1,
  });
  return {
    delivery,
    store,
    endpointId: endpoint.id,
    task,
    posted,
    record: (on: boolean) => {
      recording = on;
    },
    operations,
  };
}

describe('webhook delivery: state store requests per delivery', () => {
  it('a successful first attempt reads the endpoint and the event and creates its log record, nothing more', async () => {
    const h = await setup();
    expect(await h.delivery.deliver(h.task(0))).toBe('delivered'); // reads (or creates) the signing key
    h.record(true);
    expect(await h.delivery.deliver(h.task(1))).toBe('delivered');
    expect(await h.delivery.deliver(h.task(2))).toBe('delivered');
    h.record(false);
    const kinds = h.operations.map((each) => `${each.kind} ${each.key.split('/')[1]}`);
    // Per delivery: get endpoint, get event (in either order), create the delivery record.
    expect(kinds.filter((each) => each.startsWith('get'))).toHaveLength(4);
    expect(kinds.filter((each) => each.startsWith('create'))).toHaveLength(2);
    expect(kinds).toHaveLength(6);
    expect(h.operations.some((each) => each.key.includes('signing-key'))).toBe(false);
    expect(h.posted).toEqual(['evt-0', 'evt-1', 'evt-2']);
  });

  it('a duplicate task appends its attempt to the record the first one created', async () => {
    const h = await setup();
    expect(await h.delivery.deliver(h.task(0))).toBe('delivered');
    expect(await h.delivery.deliver(h.task(0))).toBe('delivered');
    const record = await getDelivery(h.store, h.endpointId, 'evt-0');
    expect(record?.status).toBe('delivered');
    expect(record?.attempts).toHaveLength(2);
    expect(h.posted).toEqual(['evt-0', 'evt-0']);
  });
});
